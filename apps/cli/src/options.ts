import type { Registry } from '@binscope/core';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Context } from './context.js';
import type { ExitCode } from './errors.js';
import { readableFormats } from './format-list.js';

/** Wraps a verb's work: its exit code is recorded, its errors become one stderr line. */
export type Action = <A extends unknown[]>(
  work: (...args: A) => Promise<ExitCode>,
) => (...args: A) => Promise<void>;

/** How each verb module adds itself to the program. */
export type RegisterVerb = (program: Command, ctx: Context, action: Action) => void;

export function wholeNumber(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
      throw new InvalidArgumentError(`${name} must be a whole number ≥ 0, got ${JSON.stringify(value)}`);
    }
    return n;
  };
}

/** A comma-separated option that may be repeated. */
export function list(value: string, previous: string[] | undefined): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return [...(previous ?? []), ...items];
}

export const EXIT_CODES_HELP = `
Exit codes:
  0  success (valid, equal, found)
  1  a file is invalid, the files differ, or a lookup found nothing
  2  usage or I/O error (bad option, missing file, write failed)`;

export function withCommon(cmd: Command): Command {
  return cmd
    .option('--json', 'print one JSON document on stdout (for scripts)')
    .option('--debug', 'show stack traces for errors');
}

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n${EXIT_CODES_HELP}\n`;
}

export function asOption(registry: Registry): Option {
  const ids = readableFormats(registry).map((f) => f.id);
  return new Option('--as <format>', `read as this format instead of detecting it (${ids.join(', ')})`);
}

/**
 * A file name for examples in help texts, from the format list: `name.<ext>` of the first
 * readable single-file format (help never names a format the list does not have).
 */
export function exampleFile(registry: Registry, name: string): string {
  const file = readableFormats(registry).find((f) => f.kind === 'file' && f.extensions.length > 0);
  return file ? `${name}.${file.extensions[0]}` : 'FILE';
}
