import * as fs from 'node:fs';
import { isBinscopeError, type Registry, type Target } from '@binscope/core';
import { type DirectoryOutput, type Output, openDirectoryOutput, openOutput } from '@binscope/core/node';
import { isS3Url } from '@binscope/core/s3';
import type { Context } from './context.js';
import { CliError, EXIT } from './errors.js';
import { closeTarget, openTarget } from './open.js';

export interface CliOutputOptions {
  /** --force: an existing output may be replaced (an input never). */
  force?: boolean;
  /** Paths and URLs the command reads: writing onto one of them is refused. */
  inputs: readonly string[];
  expectedSize?: number;
  signal?: AbortSignal;
}

/**
 * The refusal of an existing output as the CLI has always worded it ("X exists; pass --force
 * to replace it"); every other error (writing onto an input, credentials, a missing bucket) as
 * core words it, naming the path or URL.
 */
function outputError(target: string, error: unknown): unknown {
  if (isBinscopeError(error, 'exists') && !/refusing to write/.test(error.message))
    return new CliError(`${target} exists; pass --force to replace it`, EXIT.usage, { cause: error });
  return error;
}

function warnings(ctx: Context): (message: string) => void {
  return (message) => ctx.messages.line(`binscope: warning: ${message}`);
}

/**
 * Where a command writes one file: a local path (atomic: a temp file renamed on commit), an
 * s3:// URL (a multipart upload completed on commit) or `-` (standard output). Commit or
 * abort it; SIGINT/SIGTERM abort it too (removeTempsOnSignals).
 */
export async function openFileOutput(
  ctx: Context,
  target: string,
  options: CliOutputOptions,
): Promise<Output> {
  try {
    return await openOutput(target, {
      force: options.force,
      inputs: options.inputs,
      expectedSize: options.expectedSize,
      signal: options.signal,
      stdout: ctx.streams.stdout,
      onWarning: warnings(ctx),
    });
  } catch (error) {
    throw outputError(target, error);
  }
}

function existingFolder(target: string): boolean {
  try {
    return fs.statSync(target).isDirectory();
  } catch {
    return false;
  }
}

/**
 * An existing folder or prefix is replaced (with --force) only when it holds what the
 * command writes (`format`): a typo must never delete an unrelated folder.
 */
async function checkReplaceable(registry: Registry, target: string, format: string): Promise<void> {
  if (!isS3Url(target) && !existingFolder(target)) return;
  let opened: Target;
  try {
    opened = await openTarget(isS3Url(target) && !target.endsWith('/') ? `${target}/` : target, registry);
  } catch {
    // Nothing there (an empty prefix): nothing to replace.
    return;
  }
  try {
    if ((await registry.detect(opened)).format === format) return;
  } finally {
    await closeTarget(opened);
  }
  const what = registry.info(format)?.title ?? format;
  throw new CliError(`${target} exists and is not ${what}; refusing to replace it`, EXIT.usage);
}

/**
 * Where a command writes a folder: a local folder (built under a temp name, renamed into
 * place on commit) or an s3:// prefix, whose `marker` file is written last so a reader never
 * takes a partial prefix for a whole one.
 */
export async function openFolderOutput(
  ctx: Context,
  target: string,
  options: CliOutputOptions & { marker?: string; format?: string },
): Promise<DirectoryOutput> {
  if (isS3Url(target) && !options.marker)
    throw new CliError(
      `${target}: this conversion declares no file that marks its folder complete, so it cannot write to object storage; write to a local folder`,
      EXIT.usage,
    );
  if (options.force && options.format) await checkReplaceable(ctx.registry, target, options.format);
  try {
    return await openDirectoryOutput(target, {
      marker: options.marker ?? '',
      force: options.force,
      inputs: options.inputs,
      signal: options.signal,
      onWarning: warnings(ctx),
    });
  } catch (error) {
    throw outputError(target, error);
  }
}

/** Runs `work` on an open output: committed when it succeeds, aborted (nothing left) when not. */
export async function writeInto<O extends { commit(): Promise<void>; abort(): Promise<void> }, T>(
  output: O,
  work: (output: O) => Promise<T>,
): Promise<T> {
  let result: T;
  try {
    result = await work(output);
  } catch (error) {
    await output.abort();
    throw error;
  }
  await output.commit();
  return result;
}
