import { isBinscopeError } from '@binscope/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CastGuard, firstUnfitValue } from '../src/cast-guard.js';
import { castElements, countChanged, DATA_DTYPES, OUTPUT_TYPE } from '../src/cast.js';
import type { ElementType } from '../src/h5.js';

/** Sources with the typed array that stores them (f16 as its raw halves). */
const SOURCES: Partial<Record<ElementType, (values: number[]) => ArrayBufferView>> = {
  f64: (v) => Float64Array.from(v),
  f32: (v) => Float32Array.from(v),
  f16: (v) => Uint16Array.from(v, (x) => Math.abs(x) % 65536),
  i32: (v) => Int32Array.from(v, (x) => (Number.isFinite(x) ? Math.trunc(x) : 0)),
  u16: (v) => Uint16Array.from(v, (x) => (Number.isFinite(x) ? Math.trunc(x) : 0)),
  u8: (v) => Uint8Array.from(v, (x) => (Number.isFinite(x) ? Math.trunc(x) : 0)),
  i64: (v) => BigInt64Array.from(v, (x) => BigInt.asIntN(64, BigInt(Number.isFinite(x) ? Math.trunc(x) : 0))),
  u64: (v) =>
    BigUint64Array.from(v, (x) => BigInt.asUintN(64, BigInt(Number.isFinite(x) ? Math.trunc(x) : 0))),
};

/** Values near every edge the guard draws: NaN, ±inf, fractions, below 0, each target's maximum and overflow. */
const EDGES = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -1,
  -0,
  0.5,
  255,
  256,
  65504,
  65519,
  65520,
  2 ** 32 - 1,
  2 ** 32,
  2 ** 53,
  2 ** 64,
  1e10,
  3.4028235e38,
  3.4028235677973366e38,
  1e300,
];
const value = fc.oneof(fc.constantFrom(...EDGES), fc.integer({ min: 0, max: 300 }), fc.double());

describe('CastGuard.castChunk: one pass fewer, the same answers (C10)', () => {
  it('refuses exactly the first value firstUnfitValue names, and casts and counts as castElements and countChanged', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...(Object.keys(SOURCES) as ElementType[])),
        fc.constantFrom(...DATA_DTYPES),
        fc.array(value, { minLength: 1, maxLength: 40 }),
        // The warning's tolerance must not change what is refused, however large.
        fc.constantFrom(1e-8, 0.5, Number.POSITIVE_INFINITY),
        (from, dtype, values, tolerance) => {
          const typed = SOURCES[from]!(values);
          const bytes = new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
          const to = OUTPUT_TYPE[dtype];
          const guard = new CastGuard('in.h5ad', 'X', dtype);
          const { cast, changed } = guard.castChunk(bytes, from, 7, tolerance);
          expect(Buffer.from(cast).equals(Buffer.from(castElements(bytes, from, to)))).toBe(true);
          const unfit = firstUnfitValue(bytes, from, to);
          // One row holding every value, its columns numbered as the values: the error names the index.
          const indices = Array.from({ length: values.length }, (_, i) => i);
          let refused: unknown;
          try {
            guard.check([0, values.length], indices);
          } catch (error) {
            refused = error;
          }
          if (unfit === undefined) {
            expect(refused).toBeUndefined();
            expect(changed).toBe(from === to ? 0 : countChanged(bytes, from, cast, to, tolerance));
          } else {
            expect(isBinscopeError(refused, 'FormatError') && refused.code).toBe('InvalidValue');
            expect((refused as Error).message).toContain(
              `row 7, column ${unfit.index}: value ${String(unfit.value)} cannot be stored as ${dtype} (${unfit.reason})`,
            );
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
