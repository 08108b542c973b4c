/**
 * An error as plain data (class, constructor, message, code, offset, file), so tests can
 * compare what two code paths threw with one toEqual.
 */
export function describeError(error: unknown): unknown {
  const e = error as Error & { code?: string; offset?: number; file?: string };
  return {
    name: e.name,
    constructor: e.constructor.name,
    message: e.message,
    code: e.code,
    offset: e.offset,
    file: e.file,
  };
}
