import { isBinscopeError } from '@binscope/core';
import { numberToFloat16 } from '@binscope/core/binary';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CsrChunk, openScdl, writeScdlToMemory } from '../src/index.js';
import { encodeData } from '../src/write.js';

/** One row holding `indices` (values 1, 2, …), written with the given column count. */
function oneRow(indices: CsrChunk['indices'], numCols?: number, maxIndex?: number) {
  const data = Float32Array.from({ length: indices.length }, (_, k) => k + 1);
  return writeScdlToMemory({ indptr: [0, indices.length], indices, data, maxIndex }, { numCols });
}

const outOfBounds = (e: unknown) => isBinscopeError(e, 'OutOfBounds');

describe('column index checks (one typed pass, or none when the type cannot exceed numCols)', () => {
  it('accepts in-range indices of every integer array type and stores them', async () => {
    const arrays = [
      Uint8Array.of(0, 3, 7),
      Int8Array.of(0, 3, 7),
      Uint16Array.of(0, 3, 7),
      Int16Array.of(0, 3, 7),
      Uint32Array.of(0, 3, 7),
      Int32Array.of(0, 3, 7),
      Float64Array.of(0, 3, 7),
      [0, 3, 7],
    ];
    for (const indices of arrays) {
      for (const numCols of [8, 300, 70_000, undefined]) {
        const { directory, result } = await oneRow(indices, numCols);
        expect(result.numCols).toBe(numCols ?? 8);
        const row = await (await openScdl(directory)).row(0);
        expect(Array.from(row.indices, Number)).toEqual([0, 3, 7]);
      }
    }
  });

  it('rejects an index at or past numCols, a negative one and a fraction, whatever the array type', async () => {
    const bad: Array<[CsrChunk['indices'], number | undefined]> = [
      [Uint8Array.of(1, 8), 8],
      [Uint16Array.of(1, 300), 300],
      [Uint16Array.of(65_535), 65_535],
      [Uint32Array.of(2, 0xffffffff), 70_000],
      [Int32Array.of(1, -1), 8],
      [Int32Array.of(-2_147_483_648), undefined],
      [Int16Array.of(-1), 70_000],
      [Int8Array.of(5, -128), undefined],
      [Float64Array.of(1.5), 8],
      [[2, -0.5], undefined],
      [[Number.NaN], 8],
    ];
    for (const [indices, numCols] of bad)
      await expect(oneRow(indices, numCols), `${indices.constructor.name} ${numCols}`).rejects.toSatisfy(
        outOfBounds,
      );
  });

  it('without numCols, takes the column count from the largest index (a full scan, not the type bound)', async () => {
    const { result } = await oneRow(Uint16Array.of(4, 299, 7));
    expect(result.numCols).toBe(300);
    expect(result.colPtrDType).toBe('uint16');
    const small = await oneRow(Uint32Array.of(0, 12));
    expect(small.result.numCols).toBe(13);
    expect(small.result.colPtrDType).toBe('uint8');
  });

  it('trusts a caller-given maxIndex only within [0, numCols)', async () => {
    const { directory, result } = await oneRow(Uint16Array.of(1, 6), 8, 6);
    expect(result.numCols).toBe(8);
    expect(Array.from((await (await openScdl(directory)).row(0)).indices, Number)).toEqual([1, 6]);
    await expect(oneRow(Uint16Array.of(1, 6), 8, 8)).rejects.toSatisfy(outOfBounds);
    await expect(oneRow(Uint16Array.of(1, 6), 8, -1)).rejects.toSatisfy(outOfBounds);
    await expect(oneRow(Uint16Array.of(1, 6), 8, 2.5)).rejects.toSatisfy(outOfBounds);
    // Without numCols the hint decides the column count.
    expect((await oneRow(Uint16Array.of(1, 6), undefined, 6)).result.numCols).toBe(7);
  });
});

describe('float16 encoding', () => {
  const expectCoreBits = (values: number[]) => {
    const bytes = encodeData(Float64Array.from(values), 'float16');
    const got = Array.from(new Uint16Array(bytes.buffer, bytes.byteOffset, values.length));
    expect(got).toEqual(values.map((v) => numberToFloat16(v)));
  };

  it("gives core's numberToFloat16 bits on the edge cases", () => {
    expectCoreBits([
      0,
      -0,
      1,
      -1,
      65504,
      65519.99,
      65520,
      -65520,
      1e9,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      Number.NaN,
      2 ** -14,
      2 ** -24,
      2 ** -25,
      2 ** -25 * 1.0000001,
      3 * 2 ** -26,
      1 + 2 ** -11,
      1 + 3 * 2 ** -11,
      1 / 3,
      0.1,
      1e-8,
      2049,
      2051,
    ]);
  });

  it("gives core's numberToFloat16 bits for any double and any float32", () => {
    fc.assert(
      fc.property(fc.array(fc.double(), { maxLength: 64 }), (values) => expectCoreBits(values)),
      { seed: 16, numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(fc.float(), { maxLength: 64 }), (values) => expectCoreBits(values)),
      { seed: 32, numRuns: 300 },
    );
  });
});
