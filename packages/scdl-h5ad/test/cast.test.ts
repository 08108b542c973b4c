import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { castElements, countChanged } from '../src/cast.js';

const f64 = (values: number[]) => new Uint8Array(Float64Array.from(values).buffer);
const f32 = (values: number[]) => new Uint8Array(Float32Array.from(values).buffer);
const i64 = (values: bigint[]) => new Uint8Array(BigInt64Array.from(values).buffer);
const i32 = (values: number[]) => new Uint8Array(Int32Array.from(values).buffer);

describe('castElements follows numpy astype on x86-64', () => {
  it('float → uint8 / uint16 truncate and wrap through a 32-bit register; NaN and huge values give 0', () => {
    const src = f64([0.5, 255.9, 256, -1, -1.5, Number.NaN, Number.POSITIVE_INFINITY, 3e9, 300.7]);
    expect(Array.from(new Uint8Array(castElements(src, 'f64', 'u8').buffer))).toEqual([
      0, 255, 0, 255, 255, 0, 0, 0, 44,
    ]);
    expect(Array.from(new Uint16Array(castElements(src, 'f64', 'u16').buffer))).toEqual([
      0, 255, 256, 65535, 65535, 0, 0, 0, 300,
    ]);
  });

  it('float → uint32 wraps through a 64-bit register', () => {
    const src = f64([-1, 5e9, Number.NaN, 1e19, 4294967295.5, -(2 ** 63)]);
    expect(Array.from(new Uint32Array(castElements(src, 'f64', 'u32').buffer))).toEqual([
      4294967295, 705032704, 0, 0, 4294967295, 0,
    ]);
  });

  it('float → uint64: negatives wrap, NaN and -Inf give 2^63, ≥ 2^64 gives 0', () => {
    const src = f64([Number.NaN, -1, 1e19, 2e19, Number.NEGATIVE_INFINITY, 3.9, 2 ** 63]);
    expect(Array.from(new BigUint64Array(castElements(src, 'f64', 'u64').buffer))).toEqual([
      2n ** 63n,
      2n ** 64n - 1n,
      10000000000000000000n,
      0n,
      2n ** 63n,
      3n,
      2n ** 63n,
    ]);
  });

  it('integers narrow modulo 2^bits and widen with their sign', () => {
    expect(
      Array.from(new Uint8Array(castElements(i64([-1n, 256n, 257n, 2n ** 40n + 5n]), 'i64', 'u8').buffer)),
    ).toEqual([255, 0, 1, 5]);
    expect(Array.from(new BigUint64Array(castElements(i32([-2, 7]), 'i32', 'u64').buffer))).toEqual([
      2n ** 64n - 2n,
      7n,
    ]);
    expect(Array.from(new Float32Array(castElements(i32([16777217, -3]), 'i32', 'f32').buffer))).toEqual([
      16777216, -3,
    ]);
    expect(
      Array.from(new Float64Array(castElements(i64([2n ** 53n + 1n, -5n]), 'i64', 'f64').buffer)),
    ).toEqual([2 ** 53, -5]);
  });

  it('float32 → float32 keeps the bytes (NaN payloads too)', () => {
    const src = new Uint8Array([0x01, 0x00, 0xc0, 0x7f, 0x00, 0x00, 0x80, 0x3f]);
    expect(Array.from(castElements(src, 'f32', 'f32'))).toEqual(Array.from(src));
  });

  it('float16 rounds half to even at the edges of the range', () => {
    const bits = (v: number[]) => Array.from(new Uint16Array(castElements(f64(v), 'f64', 'f16').buffer));
    expect(bits([65504, 65519, 65520, 1 / 3, 2 ** -25, 1.5 * 2 ** -25, -0, 2 ** -24])).toEqual([
      0x7bff, 0x7bff, 0x7c00, 0x3555, 0x0000, 0x0001, 0x8000, 0x0001,
    ]);
    expect(bits([Number.NaN])[0] & 0x7c00).toBe(0x7c00);
  });

  it('float64 → float32 rounds like Math.fround (round half to even)', () => {
    fc.assert(
      fc.property(fc.array(fc.double(), { maxLength: 50 }), (values) => {
        const out = new Float32Array(castElements(f64(values), 'f64', 'f32').buffer);
        expect(Array.from(out)).toEqual(values.map(Math.fround));
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it('float16 input decodes exactly', () => {
    const halves = new Uint8Array(Uint16Array.from([0x3c00, 0xc000, 0x0001, 0x7c00]).buffer);
    expect(Array.from(new Float64Array(castElements(halves, 'f16', 'f64').buffer))).toEqual([
      1,
      -2,
      2 ** -24,
      Number.POSITIVE_INFINITY,
    ]);
  });

  it('countChanged reports values the cast moved by more than the tolerance', () => {
    const src = f32([1, 2.5, 300, 4]);
    const cast = castElements(src, 'f32', 'u8');
    expect(countChanged(src, 'f32', cast, 'u8', 1e-8)).toBe(2);
    expect(countChanged(f32([1, 2]), 'f32', castElements(f32([1, 2]), 'f32', 'f64'), 'f64', 1e-8)).toBe(0);
  });
});
