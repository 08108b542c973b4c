import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBinscopeError } from '../src/index.js';
import {
  maxUnsigned,
  Cursor,
  encodeFloat16,
  float16ToNumber,
  numberToFloat16,
  readU64,
  toTypedArray,
} from '../src/binary.js';
import { float16FromDouble } from '../src/cursor.js';

describe('Cursor', () => {
  it('reads little- and big-endian integers and floats', () => {
    const bytes = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0x80, 0x3f]);
    const le = new Cursor(bytes);
    expect(le.u16()).toBe(0x0201);
    expect(le.u32()).toBe(0x06050403);
    expect(le.u8()).toBe(7);
    expect(le.i8()).toBe(8);
    expect(le.f32()).toBe(1);
    const be = new Cursor(bytes, { littleEndian: false });
    expect(be.u32()).toBe(0x01020304);
    expect(be.u64()).toBe(0x050607080000803fn);
  });

  it('throws Truncated with the absolute offset when reading past the end', () => {
    const c = new Cursor(new Uint8Array(6), { base: 100, file: 'x.bin', format: 'test' });
    c.u32();
    let error: unknown;
    try {
      c.u32('count');
    } catch (e) {
      error = e;
    }
    expect(isBinscopeError(error, 'Truncated')).toBe(true);
    expect((error as { offset: number }).offset).toBe(104);
    expect((error as { file: string }).file).toBe('x.bin');
    expect((error as Error).message).toContain('count');
  });

  it('u64Number refuses values beyond 2^53 as OutOfBounds', () => {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setBigUint64(0, 2n ** 60n, true);
    expect(() => new Cursor(bytes).u64Number('offset')).toThrowError(/beyond any file size/);
    try {
      new Cursor(bytes).u64Number();
    } catch (e) {
      expect(isBinscopeError(e, 'OutOfBounds')).toBe(true);
    }
  });

  it('reads 64-bit values exactly with getUint32 pairs up to 2^53', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 53n - 1n }), fc.boolean(), (value, le) => {
        const view = new DataView(new ArrayBuffer(8));
        view.setBigUint64(0, value, le);
        expect(readU64(view, 0, le)).toBe(Number(value));
      }),
    );
  });

  it('decodes strict UTF-8 and reports bad UTF-8 as InvalidValue', () => {
    expect(new Cursor(new TextEncoder().encode('héllo')).utf8(6)).toBe('héllo');
    expect(() => new Cursor(new Uint8Array([0xff, 0xfe])).utf8(2)).toThrowError(/not valid UTF-8/);
  });

  it('keeps a leading U+FEFF: stored text is decoded literally, never as a BOM', () => {
    expect(new Cursor(new TextEncoder().encode('\ufeffname')).utf8(7)).toBe('\ufeffname');
  });

  it('fixedString cuts at the first NUL', () => {
    expect(new Cursor(new Uint8Array([0x54, 0x41, 0, 0x58])).fixedString(4)).toBe('TA');
  });
});

describe('float16', () => {
  it('decodes known values', () => {
    expect(float16ToNumber(0x3c00)).toBe(1);
    expect(float16ToNumber(0xc000)).toBe(-2);
    expect(float16ToNumber(0x7bff)).toBe(65504);
    expect(float16ToNumber(0x0001)).toBe(2 ** -24);
    expect(float16ToNumber(0x7c00)).toBe(Number.POSITIVE_INFINITY);
    expect(Number.isNaN(float16ToNumber(0x7e00))).toBe(true);
    expect(Object.is(float16ToNumber(0x8000), -0)).toBe(true);
  });

  it('encodes every finite half exactly back to its bits', () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      const exponent = (bits >> 10) & 0x1f;
      if (exponent === 0x1f) continue;
      expect(numberToFloat16(float16ToNumber(bits))).toBe(bits);
    }
  });

  it('rounds half to even', () => {
    // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): ties to even → 1.
    expect(numberToFloat16(1 + 2 ** -11)).toBe(0x3c00);
    expect(numberToFloat16(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(numberToFloat16(70000)).toBe(0x7c00);
  });

  it('the float32 fast path and the exact double rounding agree on every float32-exact value', () => {
    // Two independent roundings of one value: the integer path on float32 bits and the
    // arithmetic path on the double. Any disagreement is a bug in one of them.
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (f) => {
        expect(numberToFloat16(f)).toBe(float16FromDouble(f));
      }),
      { seed: 16, numRuns: 20_000 },
    );
    for (const v of [65504, 65519, 65520, 2 ** -25, 1.5 * 2 ** -25, 2 ** -24, -0, 1 + 2 ** -11, 2049, 2051])
      expect(numberToFloat16(v)).toBe(float16FromDouble(v));
  });

  it('keeps NaN payloads as numpy does and encodes arrays', () => {
    expect(numberToFloat16(Number.NaN)).toBe(0x7e00);
    const out = new Uint16Array(3);
    encodeFloat16([1, -2, 1 / 3], out);
    expect(Array.from(out)).toEqual([0x3c00, 0xc000, 0x3555]);
  });
});

describe('toTypedArray', () => {
  it('is zero-copy when aligned and little-endian', () => {
    const buffer = new Uint8Array(new Float32Array([1.5, -2]).buffer);
    const out = toTypedArray(buffer, 'f32');
    expect(Array.from(out as Float32Array)).toEqual([1.5, -2]);
    expect(out.buffer).toBe(buffer.buffer);
  });
  it('copies unaligned bytes and swaps big-endian', () => {
    const raw = new Uint8Array([0, 0, 1, 0, 2]);
    expect(Array.from(toTypedArray(raw.subarray(1), 'u16') as Uint16Array)).toEqual([256, 512]);
    expect(Array.from(toTypedArray(raw.subarray(1), 'u16', false) as Uint16Array)).toEqual([1, 2]);
    expect(Array.from(toTypedArray(new Uint8Array([0, 0x3c]), 'f16') as Float32Array)).toEqual([1]);
  });
});

describe('maxUnsigned', () => {
  it('is the largest element of every unsigned array type and length', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 0xffffffff }), { maxLength: 41 }), (values) => {
        const expected = values.reduce((m, v) => Math.max(m, v), 0);
        expect(maxUnsigned(Uint32Array.from(values))).toBe(expected);
        expect(maxUnsigned(Uint16Array.from(values, (v) => v & 0xffff))).toBe(
          values.reduce((m, v) => Math.max(m, v & 0xffff), 0),
        );
        expect(maxUnsigned(Uint8Array.from(values, (v) => v & 0xff))).toBe(
          values.reduce((m, v) => Math.max(m, v & 0xff), 0),
        );
      }),
    );
  });
});
