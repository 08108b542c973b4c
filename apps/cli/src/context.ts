import type { Registry } from '@binscope/core';
import { CliError, describeError, exitCodeFor } from './errors.js';
import { type CliStreams, Messages, Output } from './io.js';

/** What every command gets: where data and messages go, and the formats it knows. */
export interface Context {
  streams: CliStreams;
  out: Output;
  messages: Messages;
  /** The built-in format list and the `--plugin` modules' formats and converters. */
  registry: Registry;
}

export function createContext(streams: CliStreams, registry: Registry): Context {
  return { streams, out: new Output(streams.stdout), messages: new Messages(streams.stderr), registry };
}

/** Options every verb takes. */
export interface CommonOptions {
  json?: boolean;
  debug?: boolean;
}

/**
 * Runs `work` for one path, turning any failure into a one-line CliError that names the
 * path and keeps the original (for --debug) as its cause.
 */
export async function forPath<T>(filePath: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(describeError(error, filePath), exitCodeFor(error), { cause: error });
  }
}
