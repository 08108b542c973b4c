import * as fs from 'node:fs';
import * as path from 'node:path';
import { isBinscopeError } from '@binscope/core';
import { openScdlArchive } from '@binscope/scdl/node';
import { tempDir } from '@binscope/testkit';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { castElements } from '../src/cast.js';
import { type ConvertOptions, convertH5adToScdl, describeH5ad } from '../src/node.js';
import { type AnnDataSpec, compress, type MatrixSpec, randomCounts, writeH5ad } from './fixture.js';
import { parquetContent } from './parquet.js';

const temps: { remove: () => void }[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});

function scratch(): string {
  const t = tempDir('scdl-h5ad-fx-');
  temps.push(t);
  return t.dir;
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

function spec(matrix: MatrixSpec, extra: Partial<AnnDataSpec> = {}): AnnDataSpec {
  const rows = matrix.values.length;
  const cols = rows ? matrix.values[0].length : 0;
  return { X: matrix, obs: { index: names('cell', rows) }, var: { index: names('gene', cols) }, ...extra };
}

async function convert(dir: string, s: AnnDataSpec | AnnDataSpec[], options: ConvertOptions = {}) {
  const specs = Array.isArray(s) ? s : [s];
  const inputs = specs.map((one, i) => {
    const file = path.join(dir, `in${i}.h5ad`);
    writeH5ad(file, one);
    return { path: file, label: `in${i}.h5ad` };
  });
  const out = path.join(dir, 'out');
  const warnings: string[] = [];
  const result = await convertH5adToScdl(inputs, out, { ...options, onWarning: (w) => warnings.push(w) });
  return { out, result, warnings };
}

/** Every row of an archive, read back through @binscope/scdl. */
async function readRows(out: string): Promise<{ indices: number[]; values: number[] }[]> {
  const reader = await openScdlArchive(out);
  try {
    const rows = [];
    for (let i = 0; i < reader.numRows; i++) {
      const row = await reader.row(i);
      rows.push({
        indices: Array.from(row.indices),
        values: Array.from(row.values as ArrayLike<number | bigint>, Number),
      });
    }
    return rows;
  } finally {
    await reader.close();
  }
}

/** The CSR rows scipy would give for a dense matrix (explicit zeros kept where asked). */
function expectedRows(values: number[][], explicitZeros: [number, number][] = []) {
  const { data, indices, indptr } = compress(values, 'csr', explicitZeros);
  return values.map((_, r) => ({
    indices: indices.slice(indptr[r], indptr[r + 1]),
    values: data.slice(indptr[r], indptr[r + 1]),
  }));
}

const read = (out: string, rel: string) => new Uint8Array(fs.readFileSync(path.join(out, rel)));

describe('matrix layouts', () => {
  it('CSC X (float64, explicit zero kept) without raw: X is used with a warning, rows come out in CSR order', async () => {
    const values = randomCounts(9, 300, 0.1, 1);
    const { out, result, warnings } = await convert(
      scratch(),
      spec({ layout: 'csc', values, dtype: '<f8', explicitZeros: [[2, 5]] }),
    );
    expect(warnings.some((w) => w.includes('no raw.X'))).toBe(true);
    expect(result.colPtrDType).toBe('uint16');
    expect(await readRows(out)).toEqual(expectedRows(values, [[2, 5]]));
  });

  it('dense X: zeros and -0 dropped, NaN kept (scipy.sparse.csr_matrix semantics)', async () => {
    const values = [
      [0, 1.5, -0, Number.NaN],
      [0, 0, 0, 0],
      [2, 0, 0, -3],
    ];
    const { out, result } = await convert(scratch(), spec({ layout: 'dense', values, dtype: '<f4' }), {
      useX: true,
    });
    expect(result.nnz).toBe(4);
    const rows = await readRows(out);
    expect(rows[0].indices).toEqual([1, 3]);
    expect(rows[0].values[0]).toBe(1.5);
    expect(Number.isNaN(rows[0].values[1])).toBe(true);
    expect(rows[1]).toEqual({ indices: [], values: [] });
    expect(rows[2]).toEqual({ indices: [0, 3], values: [2, -3] });
  });

  it('the same matrix stored as CSR, CSC or dense gives identical arrays, whatever the chunk size', async () => {
    const values = randomCounts(41, 37, 0.2, 5);
    const bytes = async (layout: MatrixSpec['layout'], chunkNnz?: number) => {
      const { out } = await convert(scratch(), spec({ layout, values }), { useX: true, chunkNnz });
      return ['data.npy', 'row_ptr.npy', 'col_ptr.npy', 'header.sch'].map((f) =>
        Buffer.from(read(out, f)).toString('hex'),
      );
    };
    const reference = await bytes('csr');
    for (const layout of ['csr', 'csc', 'dense'] as const) {
      for (const chunk of [1, 5, 64, undefined])
        expect(await bytes(layout, chunk), `${layout} chunk ${chunk}`).toEqual(reference);
    }
  });

  it('gzip-compressed, chunked datasets (write_h5ad(compression="gzip")) convert like plain ones', async () => {
    const values = randomCounts(30, 20, 0.3, 17);
    const plain = await convert(scratch(), spec({ layout: 'csr', values }), { useX: true });
    const gzip = await convert(scratch(), spec({ layout: 'csr', values, gzip: 6 }), {
      useX: true,
      chunkNnz: 7,
    });
    for (const f of ['data.npy', 'row_ptr.npy', 'col_ptr.npy', 'header.sch']) {
      expect(Buffer.from(read(gzip.out, f)).equals(Buffer.from(read(plain.out, f))), f).toBe(true);
    }
  });

  it('raw.X is the default and X is used on request (C10)', async () => {
    const rawValues = randomCounts(6, 10, 0.4, 2);
    const xValues = rawValues.map((row) => row.map((v) => (v ? Math.log1p(v) : 0)));
    const s = spec({ layout: 'csr', values: xValues }, { raw: { layout: 'csr', values: rawValues } });
    const raw = await convert(scratch(), s);
    expect(raw.result.inputs[0].matrix).toBe('/raw/X');
    expect(await readRows(raw.out)).toEqual(expectedRows(rawValues));
    const x = await convert(scratch(), s, { useX: true });
    expect(x.result.inputs[0].matrix).toBe('/X');
    expect((await readRows(x.out)).map((r) => r.values)).toEqual(
      expectedRows(xValues).map((r) => r.values.map(Math.fround)),
    );
  });

  it('int64 indptr and integer data cast to every data dtype as numpy astype does (lossyCast)', async () => {
    const values = [
      [0, 70000, 3],
      [255, 0, 256],
    ];
    for (const dataDtype of [
      'uint8',
      'uint16',
      'uint32',
      'uint64',
      'float16',
      'float32',
      'float64',
    ] as const) {
      const { out, result, warnings } = await convert(
        scratch(),
        spec({ layout: 'csr', values, dtype: '<i8', indptrDtype: '<i8' }),
        { useX: true, dataDtype, lossyCast: true },
      );
      expect(result.dataDType).toBe(dataDtype);
      const source = new Uint8Array(BigInt64Array.from([70000n, 3n, 255n, 256n]).buffer);
      const outType = {
        uint8: 'u8',
        uint16: 'u16',
        uint32: 'u32',
        uint64: 'u64',
        float16: 'f16',
        float32: 'f32',
        float64: 'f64',
      } as const;
      expect(
        Buffer.from(read(out, 'data.npy')).equals(
          Buffer.from(castElements(source, 'i64', outType[dataDtype])),
        ),
        dataDtype,
      ).toBe(true);
      expect(
        warnings.some((w) => w.includes('changed')),
        dataDtype,
      ).toBe(dataDtype === 'uint8' || dataDtype === 'uint16' || dataDtype === 'float16');
    }
  });

  it('property: random matrices in any layout and dtype read back as written', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 9 }),
        fc.double({ min: 0, max: 0.9, noNaN: true }),
        fc.constantFrom<MatrixSpec['layout']>('csr', 'csc', 'dense'),
        fc.constantFrom('<f4', '<f8', '<i4', '<u2'),
        fc.integer({ min: 1, max: 1000 }),
        async (rows, cols, density, layout, dtype, seed) => {
          const values = randomCounts(rows, cols, density, seed);
          const { out } = await convert(scratch(), spec({ layout, values, dtype }), {
            useX: true,
            chunkNnz: 3,
          });
          expect(await readRows(out)).toEqual(expectedRows(values));
        },
      ),
      { seed: 42, numRuns: 25 },
    );
  });
});

describe('feature indices (C11)', () => {
  const obsColumns: AnnDataSpec['obs']['columns'] = [
    { name: 'cell_type', kind: 'categorical', categories: ['B', 'T'], codes: [1, 0, -1] },
    { name: 'n_genes', kind: 'int64', values: [5n, 7n, 9n] },
    { name: 'score', kind: 'numeric', values: [0.5, Number.NaN, 2], dtype: '<f8' },
    { name: 'small', kind: 'numeric', values: [-1, 2, 3], dtype: '<i1' },
    { name: 'cluster', kind: 'categorical', categories: [10, 20], codes: [0, 1, 1], categoryDtype: '<i8' },
    { name: 'maybe', kind: 'nullable-integer', values: [1, 0, 3], mask: [false, true, false] },
    { name: 'flag', kind: 'nullable-boolean', values: [true, false, true], mask: [false, false, true] },
    { name: 'donor', kind: 'string', values: ['d1', 'd2', 'd1'] },
  ];
  const values = [
    [1, 0],
    [0, 2],
    [3, 4],
  ];

  it('obs columns in column-order, categoricals as plain values, missing as null; var without columns stores its index', async () => {
    const s = spec({ layout: 'csr', values }, { obs: { index: names('c', 3), columns: obsColumns } });
    const { out } = await convert(scratch(), s, { useX: true });
    const obs = await parquetContent(read(out, 'obs_features/dataframe_0.parquet'));
    expect(obs.columns).toEqual(obsColumns.map((c) => c.name));
    expect(obs.values).toEqual({
      cell_type: ['T', 'B', null],
      n_genes: [5, 7, 9],
      score: [0.5, null, 2],
      small: [-1, 2, 3],
      cluster: [10, 20, 20],
      maybe: [1, null, 3],
      flag: [true, false, null],
      donor: ['d1', 'd2', 'd1'],
    });
    const v = await parquetContent(read(out, 'var_features/dataframe_0.parquet'));
    expect(v).toEqual({ columns: ['var_feature_id'], values: { var_feature_id: ['gene0', 'gene1'] } });
    expect(JSON.parse(new TextDecoder().decode(read(out, 'var_features/labels.json')))).toEqual(['in0.h5ad']);

    const reader = await openScdlArchive(out);
    try {
      const record = await reader.obs(1);
      expect(record?.columns).toEqual(obsColumns.map((c) => c.name));
      expect(record?.label).toBe('in0.h5ad');
      const features = await reader.features(2);
      expect(features?.count).toBe(2);
    } finally {
      await reader.close();
    }
  });

  it('UTF-8 strings (vlen) decode exactly: accents, CJK, emoji, empty', async () => {
    const genes = ['ÉCHO1', '基因', '🧬-7', ''];
    const s = spec(
      { layout: 'csr', values: [[1, 0, 2, 0]] },
      {
        obs: {
          index: ['c0'],
          columns: [{ name: 'tissue', kind: 'categorical', categories: ['cœur', 'rein'], codes: [0] }],
        },
        var: { index: names('g', 4), columns: [{ name: 'symbol', kind: 'string', values: genes }] },
      },
    );
    const { out } = await convert(scratch(), s, { useX: true });
    expect((await parquetContent(read(out, 'var_features/dataframe_0.parquet'))).values.symbol).toEqual(
      genes,
    );
    expect((await parquetContent(read(out, 'obs_features/dataframe_0.parquet'))).values.tissue).toEqual([
      'cœur',
    ]);
  });

  it('anndata 0.7 layout: h5sparse attributes, categories by object reference, raw.X at the root', async () => {
    const raw = randomCounts(3, 4, 0.5, 9);
    const s: AnnDataSpec = {
      X: { layout: 'csr', values: raw.map((r) => r.map((x) => x / 2)), legacy: true },
      raw: { layout: 'csr', values: raw, legacy: true },
      rawAtRoot: true,
      obs: {
        index: names('c', 3),
        legacy: true,
        columns: [{ name: 'kind', kind: 'categorical', categories: ['x', 'y'], codes: [1, 1, 0] }],
      },
      var: { index: names('g', 4), legacy: true },
    };
    const { out, result } = await convert(scratch(), s);
    expect(result.inputs[0].matrix).toBe('/raw.X');
    expect(await readRows(out)).toEqual(expectedRows(raw));
    const obs = await parquetContent(read(out, 'obs_features/dataframe_0.parquet'));
    expect(obs.values.kind).toEqual(['y', 'y', 'x']);
  });

  it('describeH5ad summarises without converting', async () => {
    const dir = scratch();
    const file = path.join(dir, 'x.h5ad');
    writeH5ad(
      file,
      spec(
        { layout: 'csc', values },
        {
          obs: { index: names('c', 3), columns: obsColumns },
          obsp: {
            knn: {
              layout: 'csr',
              values: [
                [0, 1, 0],
                [1, 0, 0],
                [0, 0, 0],
              ],
            },
          },
        },
      ),
    );
    const summary = await describeH5ad(file);
    expect(summary).toMatchObject({
      obs: 3,
      vars: 2,
      x: { layout: 'csc', rows: 3, cols: 2, nnz: 4, dtype: 'f32' },
      obsp: ['knn'],
    });
    expect(summary.rawX).toBeUndefined();
    expect(summary.obsColumns.map((c) => c.type)).toEqual([
      'string',
      'int64',
      'float64',
      'int8',
      'int64',
      'float64',
      'bool',
      'string',
    ]);
  });
});

describe('several inputs (C12)', () => {
  it('sorted order, var blocks merged when identical, obs blocks merged by column names with the first label, true num_rows', async () => {
    const dir = scratch();
    const folder = path.join(dir, 'h5ads');
    fs.mkdirSync(path.join(folder, 'sub'), { recursive: true });
    const varShared = {
      index: names('g', 5),
      columns: [{ name: 'gene_id', kind: 'string' as const, values: names('ENSG', 5) }],
    };
    const obs = (n: number, batch: number[], dtype: string) => ({
      index: names('c', n),
      columns: [
        { name: 'batch', kind: 'numeric' as const, values: batch, dtype },
        { name: 'sample', kind: 'categorical' as const, categories: ['s'], codes: batch.map(() => 0) },
      ],
    });
    const a = randomCounts(3, 5, 0.5, 11);
    const b = randomCounts(2, 5, 0.5, 12);
    const c = randomCounts(4, 7, 0.5, 13);
    // Written out of order: b first, then the sub-folder, then a.
    writeH5ad(path.join(folder, 'b.h5ad'), {
      X: { layout: 'csr', values: b },
      obs: obs(2, [7, 8], '<i8'),
      var: varShared,
    });
    writeH5ad(path.join(folder, 'sub', 'c.h5ad'), {
      X: { layout: 'csc', values: c },
      obs: obs(4, [0.5, 1, 2, 3], '<f8'),
      var: {
        index: names('h', 7),
        columns: [{ name: 'gene_id', kind: 'string', values: names('OTHER', 7) }],
      },
    });
    writeH5ad(path.join(folder, 'a.h5ad'), {
      X: { layout: 'csr', values: a },
      obs: obs(3, [1, 2, 3], '<i4'),
      var: varShared,
    });
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'not an input');
    const out = path.join(dir, 'archive');
    const cwd = process.cwd();
    let result: Awaited<ReturnType<typeof convertH5adToScdl>>;
    try {
      process.chdir(dir);
      result = await convertH5adToScdl('h5ads', out, { useX: true });
    } finally {
      process.chdir(cwd);
    }
    expect(result.inputs.map((i) => i.label)).toEqual(['h5ads/a.h5ad', 'h5ads/b.h5ad', 'h5ads/sub/c.h5ad']);
    expect(await readRows(out)).toEqual([...expectedRows(a), ...expectedRows(b), ...expectedRows(c)]);
    const text = (rel: string) => new TextDecoder().decode(read(out, rel));
    expect(text('var_features/labels.json')).toBe('["h5ads/a.h5ad", "h5ads/sub/c.h5ad"]');
    expect(text('obs_features/labels.json')).toBe('["h5ads/a.h5ad"]');
    expect(text('metadata.json')).toBe('{"num_rows": 9}');
    expect(result.colPtrDType).toBe('uint8');
    const obsTable = await parquetContent(read(out, 'obs_features/dataframe_0.parquet'));
    expect(obsTable.values).toEqual({
      batch: [1, 2, 3, 7, 8, 0.5, 1, 2, 3],
      sample: ['s', 's', 's', 's', 's', 's', 's', 's', 's'],
    });
    const reader = await openScdlArchive(out);
    try {
      expect((await reader.features(4))?.values[0]).toEqual(names('ENSG', 5));
      expect((await reader.features(5))?.values[0]).toEqual(names('OTHER', 7));
      expect((await reader.features(5))?.label).toBe('h5ads/sub/c.h5ad');
    } finally {
      await reader.close();
    }
  });
});

describe('neighbors (C13)', () => {
  const graph = [
    [0, 0.5, 0.25],
    [1, 0, 0],
    [0, 0, 0],
  ];
  const values = randomCounts(3, 4, 0.5, 3);

  it('obsp[key] is written as u64 indptr, u32 indices, f32 values; several inputs are joined with shifted rows', async () => {
    const s = spec(
      { layout: 'csr', values },
      { obsp: { next_cell_ids: { layout: 'csr', values: graph, dtype: '<f8' } } },
    );
    const { out, result } = await convert(scratch(), [s, s], { useX: true, neighbors: true });
    expect(result.files).toContain('neighbor_indptr.npy');
    expect(Array.from(new BigUint64Array(read(out, 'neighbor_indptr.npy').slice().buffer))).toEqual([
      0n,
      2n,
      3n,
      3n,
      5n,
      6n,
      6n,
    ]);
    expect(Array.from(new Uint32Array(read(out, 'neighbor_indices.npy').slice().buffer))).toEqual([
      1, 2, 0, 4, 5, 3,
    ]);
    expect(Array.from(new Float32Array(read(out, 'neighbor_values.npy').slice().buffer))).toEqual([
      0.5, 0.25, 1, 0.5, 0.25, 1,
    ]);
    const reader = await openScdlArchive(out);
    try {
      const neighbors = await reader.neighbors();
      expect(neighbors?.rows).toBe(6);
      expect(Array.from((await neighbors!.row(3)).indices)).toEqual([4, 5]);
    } finally {
      await reader.close();
    }
  });

  it('a missing key skips the neighbor files with a warning; a dense obsp matrix is an error', async () => {
    const s = spec({ layout: 'csr', values }, { obsp: { other: { layout: 'csr', values: graph } } });
    const { result, warnings } = await convert(scratch(), s, { useX: true, neighbors: 'knn' });
    expect(result.files.some((f) => f.startsWith('neighbor_'))).toBe(false);
    expect(warnings.some((w) => w.includes("'knn' not found"))).toBe(true);
    const dense = spec({ layout: 'csr', values }, { obsp: { knn: { layout: 'dense', values: graph } } });
    await expect(convert(scratch(), dense, { useX: true, neighbors: 'knn' })).rejects.toSatisfy(
      (e: unknown) => isBinscopeError(e, 'InvalidValue'),
    );
  });
});

describe('bad input and atomicity', () => {
  it('a file that is not HDF5 is BadMagic; nothing is written', async () => {
    const dir = scratch();
    fs.writeFileSync(path.join(dir, 'x.h5ad'), 'cell,gene\n1,2\n');
    await expect(convertH5adToScdl(path.join(dir, 'x.h5ad'), path.join(dir, 'out'))).rejects.toSatisfy(
      (e: unknown) => isBinscopeError(e, 'BadMagic'),
    );
    expect(fs.readdirSync(dir)).toEqual(['x.h5ad']);
  });

  it('a truncated .h5ad fails with a FormatError, leaves an existing archive untouched and no temp folder', async () => {
    const dir = scratch();
    const good = path.join(dir, 'good.h5ad');
    writeH5ad(good, spec({ layout: 'csr', values: randomCounts(50, 40, 0.3, 4) }));
    const out = path.join(dir, 'out');
    await convertH5adToScdl(good, out, { useX: true });
    const before = fs.readFileSync(path.join(out, 'data.npy'));
    const bytes = fs.readFileSync(good);
    for (const keep of [100, Math.floor(bytes.length / 2), bytes.length - 200]) {
      fs.writeFileSync(path.join(dir, 'cut.h5ad'), bytes.subarray(0, keep));
      const failure = await convertH5adToScdl(path.join(dir, 'cut.h5ad'), out, { useX: true }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isBinscopeError(failure, 'FormatError'), `cut at ${keep}: ${String(failure)}`).toBe(true);
      expect(fs.readFileSync(path.join(out, 'data.npy')).equals(before)).toBe(true);
      expect(fs.readdirSync(dir).sort()).toEqual(['cut.h5ad', 'good.h5ad', 'out']);
    }
  });

  it('a column index outside the matrix is OutOfBounds; an obs/matrix row mismatch is CountMismatch; no matrix is InvalidValue', async () => {
    const dir = scratch();
    const file = path.join(dir, 'bad.h5ad');
    writeH5ad(
      file,
      spec({
        layout: 'csr',
        values: [
          [1, 0],
          [0, 2],
        ],
      }),
    );
    const { h5wasm } = await import('./fixture.js');
    const f = new h5wasm.File(file, 'a');
    (f.get('X/indices') as unknown as { write_slice(r: number[][], d: Int32Array): void }).write_slice(
      [[1, 2]],
      Int32Array.from([7]),
    );
    f.close();
    await expect(convertH5adToScdl(file, path.join(dir, 'o1'), { useX: true })).rejects.toSatisfy(
      (e: unknown) => isBinscopeError(e, 'OutOfBounds'),
    );
    const g = new h5wasm.File(file, 'a');
    (g.get('X/indices') as unknown as { write_slice(r: number[][], d: Int32Array): void }).write_slice(
      [[1, 2]],
      Int32Array.from([-1]),
    );
    g.close();
    await expect(convertH5adToScdl(file, path.join(dir, 'o1'), { useX: true })).rejects.toSatisfy(
      (e: unknown) => isBinscopeError(e, 'OutOfBounds'),
    );
    const mismatch = spec({ layout: 'csr', values: [[1]] }, { obs: { index: names('c', 2) } });
    await expect(convert(scratch(), mismatch, { useX: true })).rejects.toSatisfy((e: unknown) =>
      isBinscopeError(e, 'CountMismatch'),
    );
    const none: AnnDataSpec = { obs: { index: names('c', 1) }, var: { index: names('g', 1) } };
    await expect(convert(scratch(), none)).rejects.toSatisfy((e: unknown) =>
      isBinscopeError(e, 'InvalidValue'),
    );
    expect(fs.readdirSync(dir)).toEqual(['bad.h5ad']);
  });

  it('progress is reported in rows; an abort stops the conversion and leaves nothing behind', async () => {
    const dir = scratch();
    const file = path.join(dir, 'in.h5ad');
    writeH5ad(file, spec({ layout: 'csr', values: randomCounts(60, 30, 0.3, 21) }));
    const events: { phase?: string; done: number; total?: number }[] = [];
    await convertH5adToScdl(file, path.join(dir, 'ok'), {
      useX: true,
      chunkNnz: 50,
      onProgress: (e) => events.push(e),
    });
    const matrix = events.filter((e) => e.phase === 'matrix');
    expect(matrix.length).toBeGreaterThan(1);
    expect(matrix.every((e, i) => e.total === 60 && (i === 0 || e.done >= matrix[i - 1].done))).toBe(true);
    expect(matrix[matrix.length - 1].done).toBe(60);

    const controller = new AbortController();
    const aborted = convertH5adToScdl(file, path.join(dir, 'stopped'), {
      useX: true,
      chunkNnz: 50,
      signal: controller.signal,
      onProgress: (e) => {
        if (e.phase === 'matrix' && e.done > 10) controller.abort();
      },
    });
    await expect(aborted).rejects.toThrow(/abort/);
    expect(fs.readdirSync(dir).sort()).toEqual(['in.h5ad', 'ok']);
  });

  it('an unknown data dtype is rejected before anything is read', async () => {
    await expect(
      convert(scratch(), spec({ layout: 'csr', values: [[1]] }), { dataDtype: 'int8' as never }),
    ).rejects.toSatisfy((e: unknown) => isBinscopeError(e, 'InvalidValue'));
  });
});
