/**
 * The read-only `.h5ad` plugin `h5adFormat.load()` gives: what apps show of an AnnData file
 * before converting it (summary, HDF5 tree, X's rows, obs and var), and validate reporting
 * what the converter would refuse.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  createRegistry,
  fileTarget,
  isBinscopeError,
  MemorySource,
  recordToJson,
  type RecordOptions,
  walk,
} from '@binscope/core';
import { openPath } from '@binscope/core/node';
import { scdlPlugin } from '@binscope/scdl';
import { openScdlArchive } from '@binscope/scdl/node';
import { tempDir } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { h5adFormat } from '../src/magic.js';
import { convertH5adToScdl } from '../src/node.js';
import { h5adPlugin } from '../src/plugin.js';
import { type AnnDataSpec, h5wasm, randomCounts, writeH5ad } from './fixture.js';

const t = tempDir('scdl-h5ad-plugin-');
afterAll(() => t.remove());

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const counts = randomCounts(40, 15, 0.3, 9);

function spec(layout: 'csr' | 'csc' | 'dense', extra: Partial<AnnDataSpec> = {}): AnnDataSpec {
  return {
    X: { layout, values: counts },
    obs: {
      index: names('cell', 40),
      columns: [
        {
          name: 'kind',
          kind: 'categorical',
          categories: ['a', 'b', 'c'],
          codes: counts.map((_, i) => i % 3),
        },
        {
          name: 'depth',
          kind: 'numeric',
          values: counts.map((r) => r.reduce((a, b) => a + b, 0)),
          dtype: '<i4',
        },
      ],
    },
    var: { index: names('gene', 15) },
    ...extra,
  };
}

function written(name: string, s: AnnDataSpec): string {
  const file = path.join(t.dir, name);
  writeH5ad(file, s);
  return file;
}

async function jsonRecords(file: string, options: RecordOptions = {}) {
  const reader = await h5adPlugin.open(openPath(file));
  try {
    const table = reader.tables?.find((tb) => tb.name === options.table);
    const out = [];
    for await (const record of h5adPlugin.records(reader, options))
      out.push(await recordToJson(table?.schema ?? reader.schema, record));
    return out;
  } finally {
    await reader.close?.();
  }
}

describe('records', () => {
  for (const layout of ['csr', 'csc', 'dense'] as const) {
    it(`${layout} X: every row as the SCDL archive converted from it prints it`, async () => {
      const file = written(`${layout}.h5ad`, spec(layout));
      const out = path.join(t.dir, `${layout}.scdl`);
      await convertH5adToScdl(file, out, { useX: true });
      const archive = await openScdlArchive(out);
      const expected = [];
      try {
        // The matrix fields: the archive's records carry its obs columns after them, the .h5ad's do not.
        for await (const record of scdlPlugin.records(archive, { columns: ['row', 'indices', 'values'] }))
          expected.push(await recordToJson(archive.schema, record));
      } finally {
        await archive.close();
      }
      expect(await jsonRecords(file)).toEqual(expected);
      // A window reads the same rows.
      expect(await jsonRecords(file, { offset: 7, limit: 5 })).toEqual(expected.slice(7, 12));
    });
  }

  it('obs and var are tables: the index, then the columns; raw.X too when X is there', async () => {
    const file = written(
      'tables.h5ad',
      spec('csr', { raw: { layout: 'csc', values: counts, dtype: '<i4' } }),
    );
    const reader = await h5adPlugin.open(openPath(file));
    expect(reader.tables?.map((tb) => [tb.name, tb.count])).toEqual([
      ['raw.X', 40],
      ['obs', 40],
      ['var', 15],
    ]);
    expect(reader.tables?.[1].schema.fields.map((f) => f.name)).toEqual(['_index', 'kind', 'depth']);
    await reader.close?.();
    const obs = await jsonRecords(file, { table: 'obs', limit: 2 });
    expect(obs).toEqual([
      { _index: 'cell0', kind: 'a', depth: counts[0].reduce((a, b) => a + b, 0) },
      { _index: 'cell1', kind: 'b', depth: counts[1].reduce((a, b) => a + b, 0) },
    ]);
    expect(await jsonRecords(file, { table: 'var', offset: 14 })).toEqual([{ _index: 'gene14' }]);
    const raw = await jsonRecords(file, { table: 'raw.X', limit: 1 });
    expect(raw).toEqual((await jsonRecords(file, { limit: 1 })).map((r) => ({ ...r })));
  });
});

describe('info and inspect', () => {
  it('summarises the file and draws its HDF5 groups and datasets', async () => {
    const file = written('shown.h5ad', spec('csr'));
    const target = openPath(file);
    const reader = await h5adPlugin.open(target);
    const summary = await h5adPlugin.info(reader);
    expect(summary.counts).toEqual({ obs: 40, vars: 15, nnz: counts.flat().filter((v) => v !== 0).length });
    const tree = await h5adPlugin.inspect(reader);
    await reader.close?.();
    expect(tree).toMatchObject({ kind: 'hdf5 file', offset: 0, length: fs.statSync(file).size });
    expect(tree.children?.[0]).toMatchObject({ name: 'signature', offset: 0, length: 8 });
    const x = tree.children?.find((c) => c.name === 'X');
    expect(x?.value).toMatch(/^csr_matrix, 3 entries/);
    expect(x?.children?.map((c) => c.name).sort()).toEqual(['data', 'indices', 'indptr']);
    // Inspect mode draws the same tree.
    const inspected = await h5adPlugin.inspectTarget(target);
    expect(inspected.valid).toBe(true);
    // The converter's warning (no raw.X) is marked on it; the structure is the same.
    const { problems, ...unmarked } = inspected.root;
    expect(problems?.map((p) => p.code)).toEqual(['Conversion']);
    expect(unmarked).toEqual(tree);
  });
});

describe('validate: what the converter would refuse', () => {
  it('a convertible file is valid; a missing raw.X is the converter warning', async () => {
    const report = await h5adPlugin.validate(openPath(written('fine.h5ad', spec('dense'))), { deep: true });
    expect(report).toMatchObject({ valid: true, errors: [] });
    expect(report.warnings.map((w) => w.message)).toEqual(['fine.h5ad: no raw.X, converting X']);
  });

  it('obs of another length than the matrix: CountMismatch', async () => {
    const file = written('mismatch.h5ad', spec('csr', { obs: { index: names('c', 3) } }));
    const report = await h5adPlugin.validate(openPath(file));
    expect(report.errors.map((e) => e.code)).toEqual(['CountMismatch']);
    const inspected = await h5adPlugin.inspectTarget(openPath(file));
    expect(inspected.errors).toEqual(report.errors);
    expect(inspected.located[0]?.path).toBe('');
  });

  it('a column index outside the matrix: OutOfBounds, found by a deep check (a scan of every row)', async () => {
    const file = written('outside.h5ad', spec('csr'));
    const f = new h5wasm.File(file, 'a');
    (f.get('X/indices') as unknown as { write_slice(r: number[][], d: Int32Array): void }).write_slice(
      [[1, 2]],
      Int32Array.from([99]),
    );
    f.close();
    expect((await h5adPlugin.validate(openPath(file))).valid).toBe(true);
    const deep = await h5adPlugin.validate(openPath(file), { deep: true });
    expect(deep.errors.map((e) => e.code)).toEqual(['OutOfBounds']);
    // Reading its rows says so too.
    await expect(jsonRecords(file)).rejects.toSatisfy((e: unknown) => isBinscopeError(e, 'FormatError'));
  });

  it('no matrix: InvalidValue on open and in validate', async () => {
    const file = written('empty.h5ad', { obs: { index: names('c', 2) }, var: { index: names('g', 2) } });
    const error = await h5adPlugin.open(openPath(file)).catch((e: unknown) => e);
    expect(isBinscopeError(error, 'InvalidValue')).toBe(true);
    expect((await h5adPlugin.validate(openPath(file))).errors.map((e) => e.code)).toEqual(['InvalidValue']);
  });

  it('not HDF5: BadMagic, Truncated when too short; a remote file is refused, not loaded whole', async () => {
    const text = fileTarget(new MemorySource(new TextEncoder().encode('just some text'), 'x.h5ad'));
    expect((await h5adPlugin.validate(text)).errors[0]).toMatchObject({ code: 'BadMagic', offset: 0 });
    const tiny = fileTarget(new MemorySource(new Uint8Array(3), 'y.h5ad'));
    expect((await h5adPlugin.validate(tiny)).errors[0]).toMatchObject({ code: 'Truncated' });
    const bytes = new Uint8Array(fs.readFileSync(written('remote.h5ad', spec('csr'))));
    const inner = new MemorySource(bytes, 'remote.h5ad');
    const remote = fileTarget({
      size: inner.size,
      name: inner.name,
      read: async (o, l, r) => inner.read(o, l, r),
    });
    const refused = await h5adPlugin.open(remote).catch((e: unknown) => e);
    expect(isBinscopeError(refused, 'UnsupportedFeature')).toBe(true);
    // In memory it reads like the file.
    expect((await h5adPlugin.validate(fileTarget(inner))).valid).toBe(true);
  });
});

describe('detection', () => {
  it('the HDF5 signature, at 0 or after a user block, is an .h5ad: convertible, with a plugin', async () => {
    const registry = createRegistry([h5adFormat]);
    const bytes = new Uint8Array(fs.readFileSync(written('detected.h5ad', spec('csr'))));
    const at0 = await registry.detect(fileTarget(new MemorySource(bytes, 'detected.h5ad')));
    expect(at0).toMatchObject({ format: 'h5ad', role: 'convertible' });
    const shifted = new Uint8Array(512 + bytes.byteLength);
    shifted.set(bytes, 512);
    expect((await registry.detect(fileTarget(new MemorySource(shifted, 'user-block.h5')))).format).toBe(
      'h5ad',
    );
    expect(
      (await registry.detect(fileTarget(new MemorySource(new Uint8Array(1024), 'zeros.bin')))).format,
    ).toBeNull();
    expect((await registry.load('h5ad')).id).toBe('h5ad');
    let nodes = 0;
    walk(
      await (await registry.load('h5ad'))
        .inspectTarget(openPath(path.join(t.dir, 'detected.h5ad')))
        .then((r) => r.root),
      () => {
        nodes++;
        return undefined;
      },
    );
    expect(nodes).toBeGreaterThan(5);
  });
});
