import * as fs from 'node:fs';
import * as path from 'node:path';
import { openScdlArchive } from '@binscope/scdl/node';
import { tempDir } from '@binscope/testkit';
import { parquetMetadata } from 'hyparquet';
import { afterEach, describe, expect, it } from 'vitest';
import { promoteColumnTypes } from '../src/column-types.js';
import { convertH5adToScdl } from '../src/node.js';
import { type AnnDataSpec, writeH5ad } from './fixture.js';
import { parquetContent } from './parquet.js';

const temps: { remove: () => void }[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});

async function convertObs(columns: NonNullable<AnnDataSpec['obs']['columns']>) {
  const t = tempDir('scdl-h5ad-types-');
  temps.push(t);
  const file = path.join(t.dir, 'in.h5ad');
  writeH5ad(file, {
    X: { layout: 'csr', values: [[1], [0], [2]] },
    obs: { index: ['a', 'b', 'c'], columns },
    var: { index: ['g'] },
  });
  const out = path.join(t.dir, 'out');
  await convertH5adToScdl([{ path: file, label: 'in.h5ad' }], out, { useX: true });
  const bytes = new Uint8Array(fs.readFileSync(path.join(out, 'obs_features/dataframe_0.parquet')));
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const schema = parquetMetadata(buffer).schema.slice(1);
  const types = Object.fromEntries(
    schema.map((s) => [s.name, [s.type, s.converted_type ?? null].filter(Boolean).join('/')]),
  );
  return { out, types, content: await parquetContent(bytes) };
}

describe('feature column types as upstream writes them (C11)', () => {
  it('uint64 values ≥ 2^63 are stored unsigned and read back unchanged', async () => {
    const big = [2n ** 63n, 2n ** 64n - 1n, 5n];
    const { out, types, content } = await convertObs([
      { name: 'ids', kind: 'int64', values: big, unsigned: true },
    ]);
    expect(types.ids).toBe('INT64/UINT_64');
    expect(content.values.ids).toEqual([2n ** 63n, 2n ** 64n - 1n, 5]);
    const reader = await openScdlArchive(out);
    try {
      expect((await reader.obs(1))?.values).toEqual([2n ** 64n - 1n]);
    } finally {
      await reader.close();
    }
  });

  it('small integer dtypes keep their numpy type (pyarrow: int8, uint8, uint16, uint32)', async () => {
    const { types, content } = await convertObs([
      { name: 'i8', kind: 'numeric', values: [-1, 2, 3], dtype: '<i1' },
      { name: 'u8', kind: 'numeric', values: [0, 200, 255], dtype: '<u1' },
      { name: 'i16', kind: 'numeric', values: [-300, 0, 300], dtype: '<i2' },
      { name: 'u16', kind: 'numeric', values: [0, 60000, 1], dtype: '<u2' },
      { name: 'u32', kind: 'numeric', values: [0, 4294967295, 7], dtype: '<u4' },
      { name: 'i32', kind: 'numeric', values: [-5, 0, 5], dtype: '<i4' },
    ]);
    expect(types).toEqual({
      i8: 'INT32/INT_8',
      u8: 'INT32/UINT_8',
      i16: 'INT32/INT_16',
      u16: 'INT32/UINT_16',
      u32: 'INT32/UINT_32',
      i32: 'INT32',
    });
    expect(content.values.u32).toEqual([0, 4294967295, 7]);
    expect(content.values.u8).toEqual([0, 200, 255]);
    expect(content.values.i8).toEqual([-1, 2, 3]);
  });

  it('a nullable integer column with a missing value is double with a null there; without, it keeps its dtype', async () => {
    const { types, content } = await convertObs([
      { name: 'gaps', kind: 'nullable-integer', values: [1, 0, 3], mask: [false, true, false] },
      { name: 'full', kind: 'nullable-integer', values: [1, 2, 3], mask: [false, false, false] },
    ]);
    expect(types).toEqual({ gaps: 'DOUBLE', full: 'INT64' });
    expect(content.values).toEqual({ gaps: [1, null, 3], full: [1, 2, 3] });
  });
});

/** np.concatenate([np.zeros(1, a), np.zeros(1, b)]).dtype, printed by numpy 2.4 for every pair. */
const NUMPY_CONCATENATE: Record<string, string> = {
  'bool+int8': 'int8',
  'bool+int16': 'int16',
  'bool+int32': 'int32',
  'bool+int64': 'int64',
  'bool+uint8': 'uint8',
  'bool+uint16': 'uint16',
  'bool+uint32': 'uint32',
  'bool+uint64': 'uint64',
  'bool+float16': 'float16',
  'bool+float32': 'float32',
  'bool+float64': 'float64',
  'int8+int16': 'int16',
  'int8+int32': 'int32',
  'int8+int64': 'int64',
  'int8+uint8': 'int16',
  'int8+uint16': 'int32',
  'int8+uint32': 'int64',
  'int8+uint64': 'float64',
  'int8+float16': 'float16',
  'int8+float32': 'float32',
  'int8+float64': 'float64',
  'int16+int32': 'int32',
  'int16+int64': 'int64',
  'int16+uint8': 'int16',
  'int16+uint16': 'int32',
  'int16+uint32': 'int64',
  'int16+uint64': 'float64',
  'int16+float16': 'float32',
  'int16+float32': 'float32',
  'int16+float64': 'float64',
  'int32+int64': 'int64',
  'int32+uint8': 'int32',
  'int32+uint16': 'int32',
  'int32+uint32': 'int64',
  'int32+uint64': 'float64',
  'int32+float16': 'float64',
  'int32+float32': 'float64',
  'int32+float64': 'float64',
  'int64+uint8': 'int64',
  'int64+uint16': 'int64',
  'int64+uint32': 'int64',
  'int64+uint64': 'float64',
  'int64+float16': 'float64',
  'int64+float32': 'float64',
  'int64+float64': 'float64',
  'uint8+uint16': 'uint16',
  'uint8+uint32': 'uint32',
  'uint8+uint64': 'uint64',
  'uint8+float16': 'float16',
  'uint8+float32': 'float32',
  'uint8+float64': 'float64',
  'uint16+uint32': 'uint32',
  'uint16+uint64': 'uint64',
  'uint16+float16': 'float32',
  'uint16+float32': 'float32',
  'uint16+float64': 'float64',
  'uint32+uint64': 'uint64',
  'uint32+float16': 'float64',
  'uint32+float32': 'float64',
  'uint32+float64': 'float64',
  'uint64+float16': 'float64',
  'uint64+float32': 'float64',
  'uint64+float64': 'float64',
  'float16+float32': 'float32',
  'float16+float64': 'float64',
  'float32+float64': 'float64',
};

describe('obs blocks merged across inputs (C12) promote as numpy.concatenate does', () => {
  it('every pair of numeric dtypes, both orders', () => {
    for (const [pair, expected] of Object.entries(NUMPY_CONCATENATE)) {
      const [a, b] = pair.split('+') as Parameters<typeof promoteColumnTypes>;
      expect(promoteColumnTypes(a, b), pair).toBe(expected);
      expect(promoteColumnTypes(b, a), pair).toBe(expected);
    }
  });
});
