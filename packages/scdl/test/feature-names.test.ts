import { MemoryDirectory } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { featureTableFile } from '../src/features.js';
import { type FeatureBlock, openScdl, serializeHeader, writeScdlToMemory } from '../src/index.js';

const VAR_BLOCKS = 11;

/**
 * A ragged archive: block b covers b % 3 + 1 rows and has b + 2 genes of its own; each row
 * stores a few of its block's columns. Obs is one block per var block too (different column
 * sets keep upstream from merging them).
 */
function raggedArchive() {
  const varBlocks: FeatureBlock[] = [];
  const obsBlocks: FeatureBlock[] = [];
  const indptr = [0];
  const indices: number[] = [];
  const data: number[] = [];
  const expected: Array<{ block: number; indices: number[]; values: number[] }> = [];
  for (let b = 0; b < VAR_BLOCKS; b++) {
    const genes = b + 2;
    const rows = (b % 3) + 1;
    varBlocks.push({
      label: `input_${b}.h5ad`,
      rows,
      columns: [{ name: 'gene', values: Array.from({ length: genes }, (_, g) => `b${b}_g${g}`) }],
    });
    obsBlocks.push({
      label: `input_${b}.h5ad`,
      rows,
      columns: [{ name: `cell_${b}`, values: Array.from({ length: rows }, (_, r) => `b${b}_c${r}`) }],
    });
    for (let r = 0; r < rows; r++) {
      const cols = [r % genes, genes - 1].filter((c, k, all) => all.indexOf(c) === k).sort((x, y) => x - y);
      const values = cols.map((c) => b * 100 + r * 10 + c + 1);
      indices.push(...cols);
      data.push(...values);
      indptr.push(indices.length);
      expected.push({ block: b, indices: cols, values });
    }
  }
  return { varBlocks, obsBlocks, indptr, indices, data, expected };
}

describe('feature-index parquet file names (C9: upstream FeatureIndex.save)', () => {
  it('pads the block index to the digits of the block count', () => {
    expect(featureTableFile('var_features', 0, 1)).toBe('var_features/dataframe_0.parquet');
    expect(featureTableFile('var_features', 8, 9)).toBe('var_features/dataframe_8.parquet');
    expect(featureTableFile('var_features', 0, 10)).toBe('var_features/dataframe_00.parquet');
    expect(featureTableFile('var_features', 9, 10)).toBe('var_features/dataframe_09.parquet');
    expect(featureTableFile('var_features', 10, 11)).toBe('var_features/dataframe_10.parquet');
    expect(featureTableFile('obs_features', 7, 100)).toBe('obs_features/dataframe_007.parquet');
  });

  it(`writes ${VAR_BLOCKS} ragged var blocks as dataframe_00 … dataframe_10 and reads each row's own block back`, async () => {
    const m = raggedArchive();
    const { directory, result } = await writeScdlToMemory(
      { indptr: m.indptr, indices: m.indices, data: Float32Array.from(m.data) },
      { var: m.varBlocks, obs: m.obsBlocks, numCols: VAR_BLOCKS + 1 },
    );
    const names = Array.from(
      { length: VAR_BLOCKS },
      (_, b) => `dataframe_${String(b).padStart(2, '0')}.parquet`,
    );
    const paths = await directory.list();
    const parquet = (dir: string) => paths.filter((p) => p.startsWith(`${dir}/`) && p.endsWith('.parquet'));
    expect(parquet('var_features')).toEqual(names.map((n) => `var_features/${n}`));
    expect(parquet('obs_features')).toEqual(names.map((n) => `obs_features/${n}`));
    expect(result.files).toContain('var_features/dataframe_10.parquet');
    expect(result.files).not.toContain('var_features/dataframe_1.parquet');

    const reader = await openScdl(directory);
    // The header lists the same names, in block order, after the three fixed files (as upstream's _write_header).
    const varDescriptor = reader.header.featureIndices.find((f) => f.name === 'var_features');
    expect(varDescriptor?.files).toEqual([
      'var_features/cumulative_sum_index.npy',
      'var_features/labels.json',
      'var_features/version.npy',
      ...names.map((n) => `var_features/${n}`),
    ]);
    expect(reader.warnings).toEqual([]);
    await expectRowsMapToTheirBlocks(reader, m);
  });

  it('maps unpadded names (dataframe_0 … dataframe_10) by their number, not by string order', async () => {
    const m = raggedArchive();
    const { directory } = await writeScdlToMemory(
      { indptr: m.indptr, indices: m.indices, data: Float32Array.from(m.data) },
      { var: m.varBlocks, obs: m.obsBlocks, numCols: VAR_BLOCKS + 1 },
    );
    // An archive as earlier binscope writers named it: unpadded, header listing the same names.
    const unpadded = (file: string) => file.replace(/dataframe_0*(\d)/, 'dataframe_$1');
    const files = new Map<string, Uint8Array>();
    for (const path of await directory.list())
      if (path !== 'header.sch') files.set(unpadded(path), directory.get(path)!);
    const original = await openScdl(directory);
    files.set(
      'header.sch',
      serializeHeader({
        arrays: original.header.arrays.map((a) => ({ name: a.name, length: a.length, dtype: a.dtype })),
        featureIndices: original.header.featureIndices.map((f) => ({
          name: f.name,
          length: f.length,
          dtype: f.dtype,
          files: f.files.map(unpadded),
        })),
      }),
    );
    expect([...files.keys()].filter((f) => f.startsWith('var_features/dataframe_')).sort()).toContain(
      'var_features/dataframe_2.parquet',
    );
    const reader = await openScdl(new MemoryDirectory(files, 'unpadded'));
    expect(reader.varIndex?.block(2).file).toBe('var_features/dataframe_2.parquet');
    expect(reader.varIndex?.block(10).file).toBe('var_features/dataframe_10.parquet');
    await expectRowsMapToTheirBlocks(reader, m);
  });
});

describe('two names for one block', () => {
  it('prefers the upstream-padded name and warns', async () => {
    const blocks: FeatureBlock[] = [0, 1].map((b) => ({
      label: `f${b}`,
      rows: 1,
      columns: [{ name: 'gene', values: [`b${b}_g0`, `b${b}_g1`] }],
    }));
    const { directory } = await writeScdlToMemory(
      { indptr: [0, 1, 2], indices: [0, 1], data: Float32Array.of(1, 2) },
      { var: blocks, numCols: 2 },
    );
    const original = await openScdl(directory);
    const files = new Map((await directory.list()).map((p) => [p, directory.get(p)!]));
    // A stray copy of block 0's table under an unpadded-looking alias of block 1.
    files.set('var_features/dataframe_01.parquet', directory.get('var_features/dataframe_0.parquet')!);
    files.set(
      'header.sch',
      serializeHeader({
        arrays: original.header.arrays.map((a) => ({ name: a.name, length: a.length, dtype: a.dtype })),
        featureIndices: original.header.featureIndices.map((f) => ({
          name: f.name,
          length: f.length,
          dtype: f.dtype,
          files: [...f.files, 'var_features/dataframe_01.parquet'],
        })),
      }),
    );
    const reader = await openScdl(new MemoryDirectory(files, 'duplicate'));
    expect(reader.varIndex?.block(1).file).toBe('var_features/dataframe_1.parquet');
    expect((await reader.features(1))?.values[0]).toEqual(['b1_g0', 'b1_g1']);
    expect(reader.warnings.some((w) => /several files for block 1/.test(w.message))).toBe(true);
  });
});

async function expectRowsMapToTheirBlocks(
  reader: Awaited<ReturnType<typeof openScdl>>,
  m: ReturnType<typeof raggedArchive>,
): Promise<void> {
  expect(reader.numRows).toBe(m.expected.length);
  expect(reader.varIndex?.blockCount).toBe(VAR_BLOCKS);
  for (let i = 0; i < m.expected.length; i++) {
    const want = m.expected[i];
    const row = await reader.row(i);
    expect(Array.from(row.indices, Number)).toEqual(want.indices);
    expect(Array.from(row.values as Float32Array)).toEqual(want.values);
    const features = await reader.features(i);
    expect(features?.block).toBe(want.block);
    expect(features?.label).toBe(`input_${want.block}.h5ad`);
    expect(features?.count).toBe(want.block + 2);
    // Every stored column index names a gene of the row's own block.
    expect(want.indices.map((c) => features?.values[0][c])).toEqual(
      want.indices.map((c) => `b${want.block}_g${c}`),
    );
    const obs = await reader.obs(i);
    expect(obs?.block).toBe(want.block);
    expect(obs?.columns).toEqual([`cell_${want.block}`]);
    expect(obs?.values).toEqual([`b${want.block}_c${obs?.rowInBlock}`]);
  }
}
