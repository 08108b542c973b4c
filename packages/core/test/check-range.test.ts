import { describe, expect, it } from 'vitest';
import { checkRange, isBinscopeError, MemorySource, readExact } from '../src/index.js';

/** What checkRange throws for a range of a 10-byte file, as plain data. */
function classify(offset: number, length: number): { code?: string; offset?: number } | 'ok' {
  try {
    checkRange({ size: 10, name: 'f.bin' }, offset, length, { format: 'x' });
    return 'ok';
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    return { code: error.code, offset: error.offset };
  }
}

// A3: Truncated when a structure starts inside the file and the file ends before it does;
// OutOfBounds when it starts past the end, and "exactly at the end" is past it for anything
// that has bytes (no byte of it is in the file).
describe('checkRange at the end of the file (A3)', () => {
  it('a non-empty range that starts exactly at the end is OutOfBounds, not Truncated', () => {
    expect(classify(10, 1)).toEqual({ code: 'OutOfBounds', offset: 10 });
    expect(classify(10, 2 ** 40)).toEqual({ code: 'OutOfBounds', offset: 10 });
  });

  it('an empty range at the end is fine; one past the end is OutOfBounds', () => {
    expect(classify(10, 0)).toBe('ok');
    expect(classify(11, 0)).toEqual({ code: 'OutOfBounds', offset: 11 });
  });

  it('a range that starts inside and runs past the end is Truncated', () => {
    expect(classify(9, 2)).toEqual({ code: 'Truncated', offset: 9 });
    expect(classify(0, 11)).toEqual({ code: 'Truncated', offset: 0 });
    expect(classify(0, 10)).toBe('ok');
  });

  it('readExact classifies the same way', async () => {
    const source = new MemorySource(new Uint8Array(10), 'f.bin');
    const atEnd = await Promise.resolve()
      .then(() => readExact(source, 10, 4))
      .catch((e: unknown) => e);
    expect(isBinscopeError(atEnd, 'OutOfBounds'), String(atEnd)).toBe(true);
    const across = await Promise.resolve()
      .then(() => readExact(source, 8, 4))
      .catch((e: unknown) => e);
    expect(isBinscopeError(across, 'Truncated'), String(across)).toBe(true);
  });
});
