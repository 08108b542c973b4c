import * as fs from 'node:fs';
import * as path from 'node:path';
import { isFormatError } from '@binscope/core';
import { describeWith, tempDir } from '@binscope/testkit';
import { parquetMetadata } from 'hyparquet';
import { afterEach, expect, it } from 'vitest';
import { convertH5adToScdl } from '../src/node.js';
import { type ColumnSpec, type ElementSpec, H5PY_NEEDED, writeH5adWithH5py } from './h5py-fixture.js';
import { parquetContent } from './parquet.js';

/**
 * Every encoding anndata ≥ 0.10 writes for an obs/var column, as h5py lays it out, converted
 * to SCDL. Expected types and values are what upstream gets: `np.array(df[col].values)` of
 * the column anndata reads, then `pa.array(..., from_pandas=True)` (bionemo-scdl's
 * `_extract_features` and `_to_arrow_array`), checked with pandas 3.0 and pyarrow 25: a
 * missing value is null; a nullable or categorical integer column with a missing value is
 * float64; categories are never null (pandas refuses such a categorical).
 */

const temps: { remove: () => void }[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});

const ROWS = ['a', 'b', 'c'];

async function convert(columns: ColumnSpec[], index: ElementSpec = { kind: 'string-array', values: ROWS }) {
  const t = tempDir('scdl-h5ad-encodings-');
  temps.push(t);
  const file = path.join(t.dir, 'in.h5ad');
  writeH5adWithH5py(file, {
    X: [[1], [0], [2]],
    obs: { index, columns },
    var: { index: { kind: 'string-array', values: ['g'] } },
  });
  const out = path.join(t.dir, 'out');
  await convertH5adToScdl([{ path: file, label: 'in.h5ad' }], out, { useX: true });
  return parquetColumns(path.join(out, 'obs_features/dataframe_0.parquet'));
}

/** Each column's parquet type (physical/converted) and its values, nulls included. */
async function parquetColumns(file: string) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const types = Object.fromEntries(
    parquetMetadata(buffer)
      .schema.slice(1)
      .map((s) => [s.name, [s.type, s.converted_type ?? null].filter(Boolean).join('/')]),
  );
  return { types, values: (await parquetContent(bytes)).values };
}

describeWith(H5PY_NEEDED, 'obs/var column encodings as anndata ≥ 0.10 writes them (h5py)', () => {
  it('string-array: variable-length UTF-8 strings', async () => {
    const { types, values } = await convert([{ name: 's', kind: 'string-array', values: ['x', 'é', ''] }]);
    expect(types.s).toBe('BYTE_ARRAY/UTF8');
    expect(values.s).toEqual(['x', 'é', '']);
  });

  it('nullable-string-array: masked entries are null (na-value NA and NaN alike)', async () => {
    const { types, values } = await convert([
      { name: 'na', kind: 'nullable-string-array', values: ['x', null, 'z'] },
      { name: 'nan', kind: 'nullable-string-array', values: [null, 'ü', ''], naValue: 'NaN' },
    ]);
    expect(types).toEqual({ na: 'BYTE_ARRAY/UTF8', nan: 'BYTE_ARRAY/UTF8' });
    expect(values).toEqual({ na: ['x', null, 'z'], nan: [null, 'ü', ''] });
  });

  it('nullable-integer: float64 with nulls when a value is missing, else its own dtype', async () => {
    const { types, values } = await convert([
      { name: 'gaps', kind: 'nullable-integer', dtype: 'int32', values: [1, null, -3] },
      { name: 'full', kind: 'nullable-integer', dtype: 'int32', values: [1, 2, -3] },
      { name: 'small', kind: 'nullable-integer', dtype: 'uint8', values: [0, 200, 255] },
    ]);
    expect(types).toEqual({ gaps: 'DOUBLE', full: 'INT32', small: 'INT32/UINT_8' });
    expect(values).toEqual({ gaps: [1, null, -3], full: [1, 2, -3], small: [0, 200, 255] });
  });

  it("nullable-boolean: h5py's boolean enum, masked entries null", async () => {
    const { types, values } = await convert([
      { name: 'flag', kind: 'nullable-boolean', values: [true, null, false] },
      { name: 'full', kind: 'nullable-boolean', values: [false, true, true] },
    ]);
    expect(types).toEqual({ flag: 'BOOLEAN', full: 'BOOLEAN' });
    expect(values).toEqual({ flag: [true, null, false], full: [false, true, true] });
  });

  const codes = [0, -1, 1];
  const categorical = (
    name: string,
    categories: Extract<ColumnSpec, { kind: 'categorical' }>['categories'],
  ) => ({ name, kind: 'categorical', codes, categories }) as ColumnSpec;

  it('categorical with string-array categories: code -1 is null', async () => {
    const { types, values } = await convert([
      categorical('cat', { kind: 'string-array', values: ['a', 'b'] }),
    ]);
    expect(types.cat).toBe('BYTE_ARRAY/UTF8');
    expect(values.cat).toEqual(['a', null, 'b']);
  });

  it('categorical with nullable-string-array categories (allow_write_nullable_strings, anndata 0.11–0.12)', async () => {
    const { types, values } = await convert([
      categorical('na', { kind: 'nullable-string-array', values: ['a', 'b'] }),
      categorical('nan', { kind: 'nullable-string-array', values: ['é', ''], naValue: 'NaN' }),
    ]);
    expect(types).toEqual({ na: 'BYTE_ARRAY/UTF8', nan: 'BYTE_ARRAY/UTF8' });
    expect(values).toEqual({ na: ['a', null, 'b'], nan: ['é', null, ''] });
  });

  it('categorical with numeric and boolean array categories: numpy take with NaN for code -1', async () => {
    const { types, values } = await convert([
      categorical('i64', { kind: 'array', dtype: 'int64', values: [10, 20] }),
      {
        name: 'u8',
        kind: 'categorical',
        codes: [0, 1, 1],
        categories: { kind: 'array', dtype: 'uint8', values: [7, 255] },
      },
      categorical('f32', { kind: 'array', dtype: 'float32', values: [1.5, -2.5] }),
      categorical('bool', { kind: 'array', dtype: 'bool', values: [true, false] }),
    ]);
    expect(types).toEqual({ i64: 'DOUBLE', u8: 'INT32/UINT_8', f32: 'FLOAT', bool: 'BOOLEAN' });
    expect(values).toEqual({
      i64: [10, null, 20],
      u8: [7, 255, 255],
      f32: [1.5, null, -2.5],
      bool: [true, null, false],
    });
  });

  it('categorical with nullable-integer and nullable-boolean categories', async () => {
    const { types, values } = await convert([
      categorical('int', { kind: 'nullable-integer', dtype: 'int64', values: [10, 20] }),
      {
        name: 'whole',
        kind: 'categorical',
        codes: [1, 0, 1],
        categories: { kind: 'nullable-integer', dtype: 'int16', values: [-5, 6] },
      },
      categorical('bool', { kind: 'nullable-boolean', values: [false, true] }),
    ]);
    expect(types).toEqual({ int: 'DOUBLE', whole: 'INT32/INT_16', bool: 'BOOLEAN' });
    expect(values).toEqual({ int: [10, null, 20], whole: [6, -5, 6], bool: [false, null, true] });
  });

  it('a categorical whose categories have a masked entry is refused (pandas: categories cannot be null)', async () => {
    const error = await convert([
      categorical('cat', { kind: 'nullable-string-array', values: ['a', null] }),
    ]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isFormatError(error), String(error)).toBe(true);
    expect(error).toMatchObject({ code: 'InvalidValue' });
    expect((error as Error).message).toContain('/obs/cat/categories[1]');
  });

  it('a nullable-string-array index (a pandas string index) gives the row count, and is the feature when there are no columns', async () => {
    const index: ElementSpec = { kind: 'nullable-string-array', values: ['c1', 'c2', 'c3'] };
    const withColumn = await convert(
      [{ name: 'n', kind: 'array', dtype: 'int64', values: [1, 2, 3] }],
      index,
    );
    expect(withColumn.values).toEqual({ n: [1, 2, 3] });
    const t = tempDir('scdl-h5ad-encodings-');
    temps.push(t);
    const file = path.join(t.dir, 'in.h5ad');
    writeH5adWithH5py(file, {
      X: [
        [1, 0],
        [0, 2],
        [3, 0],
      ],
      obs: { index },
      var: { index: { kind: 'nullable-string-array', values: ['g1', 'g2'] } },
    });
    const out = path.join(t.dir, 'out');
    await convertH5adToScdl([{ path: file, label: 'in.h5ad' }], out, { useX: true });
    const obs = await parquetColumns(path.join(out, 'obs_features/dataframe_0.parquet'));
    const vars = await parquetColumns(path.join(out, 'var_features/dataframe_0.parquet'));
    expect(obs.values).toEqual({ obs_feature_id: ['c1', 'c2', 'c3'] });
    expect(vars.values).toEqual({ var_feature_id: ['g1', 'g2'] });
  });
});
