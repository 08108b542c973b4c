import { isBinscopeError } from '@binscope/core';

/** Exit codes other tools rely on. */
export const EXIT = {
  ok: 0,
  /** A file is invalid, differs, or a lookup found nothing. */
  failed: 1,
  /** Usage or I/O error. */
  usage: 2,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports as one line, with the exit code it decided on. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.usage,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** Bad file content exits 1; usage, I/O and anything unexpected exit 2. */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (isBinscopeError(error, 'FormatError')) return EXIT.failed;
  return EXIT.usage;
}

const SYSTEM_ERRORS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  ENOSPC: 'no space left on device',
  EROFS: 'read-only file system',
  EEXIST: 'already exists',
};

/** A system error in words ("no space left on device (ENOSPC)"), for one-line messages. */
export function systemErrorText(error: NodeJS.ErrnoException): string {
  const words = error.code ? SYSTEM_ERRORS[error.code] : undefined;
  if (words) return `${words} (${error.code})`;
  return error.code ? `${error.message.replace(/\s*\n\s*/g, ' ')} (${error.code})` : error.message;
}

/** Errors that mean a bug in binscope rather than a problem with the input or the call. */
function isProgrammingError(error: unknown): error is Error {
  return error instanceof TypeError || error instanceof ReferenceError || error instanceof SyntaxError;
}

/**
 * One line for stderr: the path, what is wrong and where. FormatError messages already
 * end with their location ("(at x.scbf, byte 12)").
 */
export function describeError(error: unknown, path?: string): string {
  const prefix = path ? `${path}: ` : '';
  let text: string;
  if (error instanceof CliError) text = error.message;
  else if (isBinscopeError(error, 'FormatError')) text = `${prefix}${error.code}: ${error.message}`;
  else if (isBinscopeError(error, 'SourceError')) {
    // An I/O error about another path (the output of a conversion: a full disk) names that
    // path itself; prefixing the input would blame the wrong file.
    const aboutOther = error.path !== undefined && path !== undefined && error.path !== path;
    text =
      !prefix || aboutOther || error.message.startsWith(path ?? '')
        ? error.message
        : `${prefix}${error.message}`;
  } else {
    const code = (error as NodeJS.ErrnoException)?.code;
    const system = code ? SYSTEM_ERRORS[code] : undefined;
    const syscallPath = (error as NodeJS.ErrnoException)?.path;
    if (system) text = `${syscallPath ?? path ?? ''}${syscallPath || path ? ': ' : ''}${system}`;
    else if (isProgrammingError(error)) {
      text = `${prefix}internal error: ${error.message} (run with --debug for details)`;
    } else text = `${prefix}${(error as Error)?.message ?? String(error)}`;
  }
  return text.replace(/\s*\n\s*/g, ' ');
}
