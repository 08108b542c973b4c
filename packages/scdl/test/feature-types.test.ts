import { isBinscopeError } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { type FeatureColumn, openScdl, writeScdlToMemory } from '../src/index.js';

/** One obs block of three rows holding `columns`, written and opened again. */
async function roundTrip(columns: FeatureColumn[]) {
  const { directory } = await writeScdlToMemory(
    { indptr: [0, 1, 1, 2], indices: [0, 0], data: Float32Array.of(1, 2) },
    { obs: [{ label: 'in.h5ad', rows: 3, columns }], numCols: 1 },
  );
  const reader = await openScdl(directory);
  const index = reader.obsIndex;
  if (!index) throw new Error('no obs index');
  const info = await index.parquetInfo(0);
  const values = await Promise.all([0, 1, 2].map(async (row) => (await reader.obs(row))?.values));
  return { types: Object.fromEntries(info.columns.map((c) => [c.name, c.type])), values };
}

describe('feature column types (C11)', () => {
  it('typed arrays keep numpy’s dtype, as pyarrow stores it (uint64 unsigned, int8 narrow, float16)', async () => {
    const { types, values } = await roundTrip([
      { name: 'u64', values: BigUint64Array.of(2n ** 63n, 2n ** 64n - 1n, 0n) },
      { name: 'u32', values: Uint32Array.of(0, 2 ** 32 - 1, 1) },
      { name: 'i8', values: Int8Array.of(-128, 0, 127) },
      { name: 'u8', values: Uint8Array.of(0, 255, 1) },
      { name: 'i16', values: Int16Array.of(-1, 0, 1) },
      { name: 'u16', values: Uint16Array.of(0, 65535, 1) },
      { name: 'f16', values: [0.5, -2, null], type: 'float16' },
    ]);
    expect(types).toEqual({
      u64: 'uint64',
      u32: 'uint32',
      i8: 'int8',
      u8: 'uint8',
      i16: 'int16',
      u16: 'uint16',
      f16: 'halffloat',
    });
    expect(values).toEqual([
      [2n ** 63n, 0, -128, 0, -1, 0, 0.5],
      [2n ** 64n - 1n, 2 ** 32 - 1, 0, 255, 0, 65535, -2],
      [0n, 1, 127, 1, 1, 1, null],
    ]);
  });

  it('an integer the column type cannot hold is refused with InvalidValue, never wrapped', async () => {
    const cases: FeatureColumn[] = [
      { name: 'big', values: [2n ** 63n, 0n, 1n], type: 'int64' },
      { name: 'neg', values: [1, -1, 2], type: 'uint32' },
      { name: 'wide', values: [1, 2, 300], type: 'uint8' },
      { name: 'frac', values: [1, 2.5, 3], type: 'int32' },
    ];
    for (const column of cases) {
      const failure = await roundTrip([column]).catch((e: unknown) => e);
      expect(isBinscopeError(failure, 'FormatError') && failure.code, column.name).toBe('InvalidValue');
      expect(String((failure as Error).message), column.name).toContain(`"${column.name}"`);
    }
  });
});
