/** The error classes of CONFORMANCE.md A1. Every reader throws only these for bad input. */
export const ERROR_CODES = [
  'BadMagic',
  'UnsupportedVersion',
  'UnsupportedFeature',
  'Truncated',
  'OutOfBounds',
  'Misaligned',
  'ReservedNonZero',
  'CountMismatch',
  'SchemaMismatch',
  'DecompressError',
  'InvalidValue',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ProblemLocation {
  /** Absolute byte offset in `file` where the problem is. */
  offset?: number;
  /** File name (relative path inside a directory archive, or the file's own name). */
  file?: string;
  /** Format id of the reader that found it. */
  format?: string;
}

/** A JSON-able description of an error or warning: what validate() returns. */
export interface Problem extends ProblemLocation {
  code: string;
  message: string;
}

export class FormatError extends Error {
  /** Tag for structural narrowing across bundle copies (see isFormatError). */
  readonly _tag = 'FormatError' as const;
  readonly code: ErrorCode;
  readonly offset: number | undefined;
  readonly file: string | undefined;
  readonly format: string | undefined;
  /** The message without the location suffix (kept apart: a message may itself contain " (at "). */
  readonly detail: string;

  constructor(
    code: ErrorCode,
    message: string,
    location: ProblemLocation = {},
    options?: { cause?: unknown },
  ) {
    super(decorate(message, location), options);
    this.name = 'FormatError';
    this.code = code;
    this.offset = location.offset;
    this.file = location.file;
    this.format = location.format;
    this.detail = message;
  }

  toProblem(): Problem {
    return {
      code: this.code,
      message: this.detail,
      offset: this.offset,
      file: this.file,
      format: this.format,
    };
  }
}

function decorate(message: string, { offset, file }: ProblemLocation): string {
  const where = [file, offset === undefined ? undefined : `byte ${offset}`].filter(Boolean).join(', ');
  return where ? `${message} (at ${where})` : message;
}

/**
 * Narrows to FormatError, optionally of one code. Checks the tag rather than `instanceof`
 * so errors from a second copy of core (two bundles on one page) still match.
 */
export function isFormatError(value: unknown, code?: ErrorCode): value is FormatError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { _tag?: unknown })._tag === 'FormatError' &&
    (code === undefined || (value as FormatError).code === code)
  );
}

/** Adds a file/format to an error raised deeper down that did not know them. */
export function withLocation(error: unknown, location: ProblemLocation): unknown {
  if (!isFormatError(error)) return error;
  if ((error.file || !location.file) && (error.format || !location.format)) return error;
  return new FormatError(
    error.code,
    error.detail,
    {
      offset: error.offset,
      file: error.file ?? location.file,
      format: error.format ?? location.format,
    },
    { cause: error.cause },
  );
}

/**
 * What went wrong with a remote source: `http` an error status, `dropped` the connection ended
 * early, `timeout` no byte for the idle timeout, `aborted` the caller's signal, `range-ignored`
 * a server that ignores Range for a file too large to keep, `changed` the file changed between
 * requests, `bad-response` a reply that contradicts the request (206 without Content-Range).
 */
export type SourceErrorReason =
  | 'http'
  | 'dropped'
  | 'timeout'
  | 'aborted'
  | 'range-ignored'
  | 'changed'
  | 'bad-response';

export interface SourceErrorDetails {
  cause?: unknown;
  reason?: SourceErrorReason;
  /** HTTP status of the reply, when there was one. */
  status?: number;
  /** The byte range asked for, as sent ("bytes=0-65535"). */
  range?: string;
}

/** Raised for I/O problems that are not about the format: a missing file, a failed HTTP request. */
export class SourceError extends Error {
  readonly _tag = 'SourceError' as const;
  readonly reason: SourceErrorReason | undefined;
  readonly status: number | undefined;
  readonly range: string | undefined;
  constructor(
    message: string,
    readonly path?: string,
    options: SourceErrorDetails = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SourceError';
    this.reason = options.reason;
    this.status = options.status;
    this.range = options.range;
  }
}

export function isSourceError(value: unknown): value is SourceError {
  return typeof value === 'object' && value !== null && (value as { _tag?: unknown })._tag === 'SourceError';
}

/** Collects problems during validation; warnings are values, never console output. */
export class ProblemList {
  readonly errors: Problem[] = [];
  readonly warnings: Problem[] = [];

  constructor(readonly format: string) {}

  error(code: ErrorCode, message: string, location: Omit<ProblemLocation, 'format'> = {}): void {
    this.errors.push({ code, message, ...location, format: this.format });
  }

  warn(code: string, message: string, location: Omit<ProblemLocation, 'format'> = {}): void {
    this.warnings.push({ code, message, ...location, format: this.format });
  }

  /** Records a thrown FormatError as an error; rethrows anything else (a bug, not bad input). */
  capture(error: unknown): void {
    if (!isFormatError(error)) throw error;
    this.errors.push({ ...error.toProblem(), format: error.format ?? this.format });
  }

  /** Runs a check, recording a FormatError it throws; returns undefined on failure. */
  async attempt<T>(check: () => Promise<T> | T): Promise<T | undefined> {
    try {
      return await check();
    } catch (error) {
      this.capture(error);
      return undefined;
    }
  }

  report(): ValidationReport {
    return { valid: this.errors.length === 0, errors: this.errors, warnings: this.warnings };
  }
}

export interface ValidationReport {
  valid: boolean;
  errors: Problem[];
  warnings: Problem[];
}
