import { isBinscopeError } from '@binscope/core';
import { CliError, describeError, EXIT, exitCodeFor } from './errors.js';

/** An error as `--json` output reports it: beside the successes, in the same document. */
export interface JsonErrorEntry {
  path: string | null;
  error: {
    /** A taxonomy code for bad content; SourceError for I/O; UsageError; InternalError. */
    code: string;
    message: string;
    offset: number | null;
    file: string | null;
    exitCode: number;
  };
}

/** The root cause a CliError from forPath wraps (it keeps the original as its cause). */
function original(error: unknown): unknown {
  return error instanceof CliError && error.cause !== undefined ? error.cause : error;
}

function codeOf(error: unknown): string {
  const cause = original(error);
  if (isBinscopeError(cause, 'FormatError')) return cause.code;
  if (isBinscopeError(cause, 'SourceError')) return 'SourceError';
  if (isBinscopeError(cause, 'RegistryError')) return 'RegistryError';
  if (cause instanceof CliError) return cause.exitCode === EXIT.usage ? 'UsageError' : 'Failed';
  if ((cause as NodeJS.ErrnoException)?.code) return 'SourceError';
  return 'InternalError';
}

export function jsonError(error: unknown, path?: string | null): JsonErrorEntry {
  const cause = original(error);
  const format = isBinscopeError(cause, 'FormatError') ? cause : undefined;
  return {
    path: path ?? null,
    error: {
      code: codeOf(error),
      message: describeError(error, path ?? undefined),
      offset: format?.offset ?? null,
      file: format?.file ?? (isBinscopeError(cause, 'SourceError') ? (cause.path ?? null) : null),
      exitCode: exitCodeFor(error),
    },
  };
}
