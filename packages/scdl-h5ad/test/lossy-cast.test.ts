import * as fs from 'node:fs';
import * as path from 'node:path';
import { isFormatError } from '@binscope/core';
import { tempDir } from '@binscope/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { firstUnfitValue } from '../src/cast-guard.js';
import type { OutputType } from '../src/cast.js';
import type { ElementType } from '../src/h5.js';
import { type ConvertOptions, convertH5adToScdl } from '../src/node.js';
import { type MatrixSpec, writeH5ad } from './fixture.js';

const temps: { remove: () => void }[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});

const bytesOf = (from: ElementType, values: (number | bigint)[]): Uint8Array => {
  const array =
    from === 'f64'
      ? Float64Array.from(values as number[])
      : from === 'f32'
        ? Float32Array.from(values as number[])
        : from === 'u16'
          ? Uint16Array.from(values as number[])
          : from === 'i32'
            ? Int32Array.from(values as number[])
            : from === 'i64'
              ? BigInt64Array.from(values as bigint[])
              : BigUint64Array.from(values as bigint[]);
  return new Uint8Array(array.buffer);
};

describe('firstUnfitValue: what each data dtype cannot hold (C10)', () => {
  const cases: [ElementType, OutputType, (number | bigint)[], number | undefined, string][] = [
    ['f64', 'u32', [1e10, Number.NaN], 0, 'above the maximum 4294967295'],
    ['f64', 'u32', [3, Number.NaN], 1, 'NaN'],
    ['f32', 'u8', [1, Number.NEGATIVE_INFINITY], 1, 'infinite'],
    ['f32', 'u16', [1, 2.5], 1, 'not a whole number'],
    ['f64', 'u8', [255, 0, -1], 2, 'below 0'],
    ['f64', 'u8', [255, 256], 1, 'above the maximum 255'],
    ['f64', 'u64', [2 ** 64 - 2048, 2 ** 64], 1, 'above the maximum 18446744073709551615'],
    ['i32', 'u16', [65535, -1], 1, 'below 0'],
    ['i64', 'u32', [2n ** 32n - 1n, 2n ** 32n], 1, 'above the maximum 4294967295'],
    ['i64', 'u64', [2n ** 63n - 1n, -1n], 1, 'below 0'],
    ['u64', 'u32', [0n, 2n ** 64n - 1n], 1, 'above the maximum 4294967295'],
    ['f64', 'f16', [65519, 65520], 1, 'too large for float16'],
    ['u16', 'f16', [65504, 65535], 1, 'too large for float16'],
    ['f64', 'f32', [3.4028235e38, 3.4028235677973366e38], 1, 'too large for float32'],
    // Values a dtype holds: NaN and ±inf in floats, whole numbers in range, −0.
    ['f64', 'f32', [Number.NaN, Number.POSITIVE_INFINITY, 1e-50], undefined, ''],
    ['f32', 'f16', [Number.NaN, Number.NEGATIVE_INFINITY, 65504], undefined, ''],
    ['f64', 'u32', [0, -0, 4294967295], undefined, ''],
    ['f64', 'u64', [2 ** 64 - 2048], undefined, ''],
    ['i64', 'u64', [2n ** 63n - 1n], undefined, ''],
    ['u64', 'u64', [2n ** 64n - 1n], undefined, ''],
  ];
  for (const [from, to, values, index, reason] of cases) {
    it(`${from} ${values.map(String).join(', ')} → ${to}`, () => {
      const unfit = firstUnfitValue(bytesOf(from, values), from, to);
      expect(unfit?.index).toBe(index);
      if (index !== undefined) {
        expect(unfit?.reason).toContain(reason);
        expect(unfit?.value).toEqual(values[index]);
      }
    });
  }
});

async function convert(matrix: MatrixSpec, options: ConvertOptions) {
  const t = tempDir('scdl-h5ad-cast-');
  temps.push(t);
  const file = path.join(t.dir, 'in.h5ad');
  const rows = matrix.values.length;
  const cols = matrix.values[0].length;
  writeH5ad(file, {
    X: matrix,
    obs: { index: Array.from({ length: rows }, (_, i) => `c${i}`) },
    var: { index: Array.from({ length: cols }, (_, i) => `g${i}`) },
  });
  const out = path.join(t.dir, 'out');
  const run = convertH5adToScdl([{ path: file, label: 'in.h5ad' }], out, { useX: true, ...options });
  return { out, dir: t.dir, run };
}

describe('converting values the data dtype cannot hold (C10)', () => {
  it('[1e10, NaN] → uint32 is refused with InvalidValue naming row, column and value; no archive appears', async () => {
    const { out, dir, run } = await convert(
      {
        layout: 'csr',
        values: [
          [0, 1e10],
          [Number.NaN, 0],
        ],
        dtype: '<f8',
      },
      { dataDtype: 'uint32' },
    );
    const failure = await run.catch((e: unknown) => e);
    expect(isFormatError(failure) && failure.code).toBe('InvalidValue');
    expect((failure as Error).message).toContain('row 0, column 1: value 10000000000');
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(dir)).toEqual(['in.h5ad']);
  });

  for (const layout of ['csr', 'csc', 'dense'] as const) {
    it(`${layout}: the row and column named are the value's own, in any chunk`, async () => {
      const values = Array.from({ length: 7 }, (_, r) => [r + 1, 0, r % 2 ? 2 : 0]);
      values[4][1] = 0.5;
      // Chunks of rows 3–5 in every layout: the value sits in the chunk's second row.
      const chunkNnz = layout === 'dense' ? 9 : 5;
      const { run } = await convert({ layout, values, dtype: '<f4' }, { dataDtype: 'uint8', chunkNnz });
      const failure = await run.catch((e: unknown) => e);
      expect(isFormatError(failure) && failure.code).toBe('InvalidValue');
      expect((failure as Error).message).toMatch(
        /row 4, column 1: value 0\.5 cannot be stored as uint8 \(not a whole number\)/,
      );
    });
  }

  it("lossyCast casts each value as numpy's scalar loop does: [1e10, NaN] → uint32 gives [1410065408, 0]", async () => {
    const { out, run } = await convert(
      { layout: 'csr', values: [[1e10, Number.NaN]], dtype: '<f8' },
      { dataDtype: 'uint32', lossyCast: true },
    );
    const result = await run;
    expect(result.warnings.some((w) => w.includes('changed 2 value(s)'))).toBe(true);
    const data = fs.readFileSync(path.join(out, 'data.npy'));
    expect(Array.from(new Uint32Array(data.buffer, data.byteOffset + data.byteLength - 8, 2))).toEqual([
      1410065408, 0,
    ]);
  });

  it('values every dtype holds convert without the option (whole counts to uint16, NaN to float32)', async () => {
    const counts = await convert(
      { layout: 'csr', values: [[65535, 0, 3]], dtype: '<f4' },
      { dataDtype: 'uint16' },
    );
    expect((await counts.run).nnz).toBe(2);
    const floats = await convert({ layout: 'csr', values: [[Number.NaN, 1e-50]], dtype: '<f8' }, {});
    expect((await floats.run).nnz).toBe(2);
  });
});
