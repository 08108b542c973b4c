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
 * early, `timeout` no byte for the idle timeout or no complete reply by the deadline, `aborted`
 * the caller's signal, `range-ignored` a server that ignores Range for a file too large to keep,
 * `changed` the file changed between requests, `bad-response` a reply that contradicts the
 * request (206 without Content-Range, a listing that cycles), `limit` a listing past one of its
 * bounds (pages, entries, page size). Writes add: `credentials` the store rejected the keys
 * (wrong, expired), `denied` it refused the request (permissions, a bucket policy), `missing`
 * the place to write does not exist (a bucket), `exists` the output exists and replacing it
 * was not asked for.
 */
export type SourceErrorReason =
  | 'http'
  | 'dropped'
  | 'timeout'
  | 'aborted'
  | 'range-ignored'
  | 'changed'
  | 'bad-response'
  | 'limit'
  | 'credentials'
  | 'denied'
  | 'missing'
  | 'exists';

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

/**
 * CONFORMANCE A2's check order as ranks: of the errors found while parsing one structure, the
 * lowest phase is "the first error", whatever order the parser happened to find them in.
 */
export const Phase = {
  magic: 0,
  version: 1,
  header: 2,
  alignment: 3,
  bounds: 4,
  reference: 5,
  payload: 6,
} as const;
export type PhaseRank = (typeof Phase)[keyof typeof Phase];

/**
 * The three modes of one parser: `read` stops at the first error (in A2 order), `validate`
 * collects every problem, `inspect` collects them too while it builds the structure tree.
 */
export type ParseMode = 'read' | 'validate' | 'inspect';

/** A problem as recorded while parsing: where it ranks in A2 order and which part it belongs to. */
export interface Finding extends Problem {
  /** Rank in A2 order (Phase); unranked problems sort after ranked ones, in discovery order. */
  phase?: number;
  /**
   * The independent part it belongs to ("column 2", "shard a.tar"): one bad part never hides
   * the others, and `checkpoint(scope)` only stops for that part's errors.
   */
  scope?: string;
}

export interface FindingWhere extends Omit<ProblemLocation, 'format'> {
  phase?: number;
  scope?: string;
}

/** Builds a format's errors with one argument order everywhere: code, message, offset, file. */
export type ErrorFactory = (code: ErrorCode, message: string, offset?: number, file?: string) => FormatError;

/** The one error factory of a format; `file` is the default for errors that do not name another. */
export function formatErrors(format: string, file?: string): ErrorFactory {
  return (code, message, offset, inFile) =>
    new FormatError(code, message, { offset, file: inFile ?? file, format });
}

const UNRANKED = Number.MAX_SAFE_INTEGER;

/**
 * The problems of one parse, in every mode. Parsers record errors as they find them and call
 * `checkpoint()` where a strict read must stop; validate and inspect go on past it. Warnings
 * are values, never console output.
 */
export class ProblemList {
  readonly errors: Finding[] = [];
  readonly warnings: Finding[] = [];
  readonly mode: ParseMode;
  readonly file: string | undefined;

  constructor(
    readonly format: string,
    options: { mode?: ParseMode; file?: string } = {},
  ) {
    this.mode = options.mode ?? 'validate';
    this.file = options.file;
  }

  /** Records an error and returns it, so a parse that cannot go on past it can `throw` it. */
  error(code: ErrorCode, message: string, where: FindingWhere = {}): FormatError {
    const finding = this.finding(code, message, where);
    this.errors.push(finding);
    return new FormatError(code, message, finding);
  }

  warn(code: string, message: string, where: FindingWhere = {}): void {
    this.warnings.push(this.finding(code, message, where));
  }

  /** Records a thrown FormatError as an error; rethrows anything else (a bug, not bad input). */
  capture(error: unknown, where: Pick<FindingWhere, 'phase' | 'scope'> = {}): void {
    if (!isFormatError(error)) throw error;
    this.errors.push({
      ...error.toProblem(),
      file: error.file ?? this.file,
      format: error.format ?? this.format,
      ...definedOnly(where),
    });
  }

  /** Runs a check, recording a FormatError it throws; returns undefined on failure. */
  async attempt<T>(
    check: () => Promise<T> | T,
    where: Pick<FindingWhere, 'phase' | 'scope'> = {},
  ): Promise<T | undefined> {
    try {
      return await check();
    } catch (error) {
      this.capture(error, where);
      return undefined;
    }
  }

  /** The first error in A2 order (lowest phase, then first found), of one part when `scope` is given. */
  first(scope?: string): Finding | undefined {
    let best: Finding | undefined;
    for (const e of this.errors) {
      if (scope !== undefined && e.scope !== scope) continue;
      if (!best || (e.phase ?? UNRANKED) < (best.phase ?? UNRANKED)) best = e;
    }
    return best;
  }

  /** Throws the first error (of `scope`) as a FormatError, in any mode. */
  throwFirst(scope?: string): void {
    const first = this.first(scope);
    if (first) throw toFormatError(first);
  }

  /** Where a strict read stops: throws the first error so far in `read` mode, nothing otherwise. */
  checkpoint(scope?: string): void {
    if (this.mode === 'read') this.throwFirst(scope);
  }

  hasErrors(scope?: string): boolean {
    return scope === undefined ? this.errors.length > 0 : this.errors.some((e) => e.scope === scope);
  }

  /** Errors in A2 order (stable: equal ranks keep the order they were found in). */
  report(): ValidationReport {
    const errors = this.errors
      .map((e, i) => ({ e, i }))
      .sort((a, b) => (a.e.phase ?? UNRANKED) - (b.e.phase ?? UNRANKED) || a.i - b.i)
      .map(({ e }) => plainProblem(e));
    return { valid: errors.length === 0, errors, warnings: this.warnings.map(plainProblem) };
  }

  private finding(code: string, message: string, where: FindingWhere): Finding {
    return {
      code,
      message,
      ...definedOnly({
        offset: where.offset,
        file: where.file ?? this.file,
        phase: where.phase,
        scope: where.scope,
      }),
      format: this.format,
    };
  }
}

/** A finding as a FormatError (its code is one of the taxonomy's when it was recorded as an error). */
export function toFormatError(finding: Finding): FormatError {
  return new FormatError(finding.code as ErrorCode, finding.message, finding);
}

function plainProblem({ phase: _phase, scope: _scope, ...problem }: Finding): Problem {
  return problem;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export interface ValidationReport {
  valid: boolean;
  errors: Problem[];
  warnings: Problem[];
}
