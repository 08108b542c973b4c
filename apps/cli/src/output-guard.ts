import * as fs from 'node:fs';
import * as path from 'node:path';
import { isBinscopeError } from '@binscope/core';
import { assertReplaceable, recoverInterruptedReplace } from '@binscope/core/node';
import { CliError, EXIT } from './errors.js';

/** What a writing verb is about to do: write `output`, having read `inputs`. */
export interface PlannedOutput {
  output: string;
  /** Files and folders the verb reads (an input folder's files need not be listed). */
  inputs: readonly string[];
  /** --force: an existing output may be replaced (an input never). */
  force?: boolean;
  /** Told about previous copies an interrupted folder replacement left. */
  onWarning?: (message: string) => void;
  /** The output is a folder (an SCDL archive): an existing folder may be replaced, with --force. */
  folder?: boolean;
}

function statOf(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p);
  } catch {
    return undefined;
  }
}

function realOf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function lstatOf(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/**
 * Writers never destroy input: refuses an output that is one of the inputs (the same file
 * through any path, symlink or hard link) or a folder holding one, anything but a regular file
 * (or, for a folder output, a folder) even with --force, and an existing output without
 * --force. A symbolic link at the output, dangling or not, is never replaced. Every verb that
 * writes a path calls this before it starts.
 */
export function guardOutput(plan: PlannedOutput): void {
  const { output } = plan;
  for (const message of recoverInterruptedReplace(path.resolve(output))) plan.onWarning?.(message);
  if (!lstatOf(output)) return;
  const target = statOf(output);
  const realTarget = realOf(output);
  for (const input of target ? plan.inputs : []) {
    const stat = statOf(input);
    if (!stat || !target) continue;
    const same = stat.dev === target.dev && stat.ino === target.ino;
    const inside = target.isDirectory() && realOf(input).startsWith(realTarget + path.sep);
    if (same || inside) {
      throw new CliError(
        `refusing to write ${output}: it ${same ? 'is' : 'holds'} the input ${input}; choose another output`,
        EXIT.usage,
      );
    }
  }
  try {
    assertReplaceable(output, { folder: plan.folder });
  } catch (error) {
    if (isBinscopeError(error, 'SourceError'))
      throw new CliError(error.message, EXIT.usage, { cause: error });
    throw error;
  }
  if (!plan.force) throw new CliError(`${output} exists; pass --force to replace it`, EXIT.usage);
}
