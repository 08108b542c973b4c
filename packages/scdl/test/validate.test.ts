import {
  type ByteSource,
  CountingSource,
  type DirectorySource,
  directoryTarget,
  isBinscopeError,
  type MemoryDirectory,
  type ProgressEvent,
} from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { expectProgressToEnd } from '@binscope/testkit';
import { openScdl, scdlPlugin, validateScdl, writeScdlToMemory } from '../src/index.js';
import { int64Npy } from '../src/npy.js';
import { raggedArchive, withChanges } from './helpers.js';

function patched(bytes: Uint8Array, at: number, values: number[]): Uint8Array {
  const out = bytes.slice();
  out.set(values, at);
  return out;
}

async function firstError(dir: DirectorySource) {
  const report = await validateScdl(directoryTarget(dir));
  return report;
}

/** Opening and reading every row and lookup must fail with the same class (or succeed). */
async function readEverything(dir: DirectorySource): Promise<unknown> {
  try {
    const reader = await openScdl(dir);
    for await (const _ of scdlPlugin.records(reader)) {
      // all rows
    }
    for (let i = 0; i < reader.numRows; i++) {
      await reader.rowPadded(i);
      await reader.features(i);
      await reader.obs(i);
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('validate: one defect each, reported first with its class', () => {
  it('accepts the writer-made fixture', async () => {
    const report = await firstError(await raggedArchive());
    expect(report.errors).toEqual([]);
    expect(report.valid).toBe(true);
  });

  const header = async (dir: MemoryDirectory) => dir.get('header.sch')!;
  const cases: Array<
    [string, (dir: MemoryDirectory) => Promise<Record<string, Uint8Array | null>>, string, RegExp?]
  > = [
    ['missing header.sch', async () => ({ 'header.sch': null }), 'Truncated', /missing file header\.sch/],
    [
      'bad magic',
      async (d) => ({ 'header.sch': patched(await header(d), 0, [0x53, 0x43, 0x44, 0x58]) }),
      'BadMagic',
    ],
    [
      'header shorter than the core header',
      async (d) => ({ 'header.sch': (await header(d)).slice(0, 10) }),
      'Truncated',
    ],
    [
      'major version 1',
      async (d) => ({ 'header.sch': patched(await header(d), 4, [1]) }),
      'UnsupportedVersion',
    ],
    ['endianness 0', async (d) => ({ 'header.sch': patched(await header(d), 7, [0]) }), 'InvalidValue'],
    ['backend 2', async (d) => ({ 'header.sch': patched(await header(d), 8, [0, 0, 0, 2]) }), 'InvalidValue'],
    [
      'array count 2^31',
      async (d) => ({ 'header.sch': patched(await header(d), 12, [0x80, 0, 0, 0]) }),
      'Truncated',
    ],
    // DATA descriptor: name_len(4) "DATA"(4) length(8) → dtype at 16+16 = 32.
    [
      'dtype 10',
      async (d) => ({ 'header.sch': patched(await header(d), 32, [0, 0, 0, 10]) }),
      'InvalidValue',
    ],
    [
      'DATA as strings',
      async (d) => ({ 'header.sch': patched(await header(d), 32, [0, 0, 0, 8]) }),
      'UnsupportedFeature',
    ],
    ['has_shape 2', async (d) => ({ 'header.sch': patched(await header(d), 36, [2]) }), 'InvalidValue'],
    [
      'header cut inside a descriptor',
      async (d) => ({ 'header.sch': (await header(d)).slice(0, 30) }),
      'Truncated',
    ],
    ['missing data.npy', async () => ({ 'data.npy': null }), 'Truncated', /missing file data\.npy/],
    ['missing col_ptr.npy', async () => ({ 'col_ptr.npy': null }), 'Truncated', /missing file col_ptr\.npy/],
    ['data.npy 4 bytes short', async (d) => ({ 'data.npy': d.get('data.npy')!.slice(0, -4) }), 'Truncated'],
    [
      'data.npy 4 bytes long',
      async (d) => ({ 'data.npy': new Uint8Array([...d.get('data.npy')!, 0, 0, 0, 0]) }),
      'CountMismatch',
    ],
    [
      'row_ptr decreasing',
      async (d) => ({ 'row_ptr.npy': patched(d.get('row_ptr.npy')!, 2, [1]) }),
      'InvalidValue',
    ],
    [
      'row_ptr not starting at 0',
      async (d) => ({ 'row_ptr.npy': patched(d.get('row_ptr.npy')!, 0, [1]) }),
      'InvalidValue',
    ],
    [
      'row_ptr ending before nnz',
      async (d) => ({ 'row_ptr.npy': patched(d.get('row_ptr.npy')!, 6, [6]) }),
      'CountMismatch',
    ],
    // Row 4 is in block 1 (3 genes): column 3 is past it, though inside block 0's 4.
    [
      'column index past its own block',
      async (d) => ({ 'col_ptr.npy': patched(d.get('col_ptr.npy')!, 5, [3]) }),
      'OutOfBounds',
    ],
    [
      'missing dataframe',
      async () => ({ 'var_features/dataframe_1.parquet': null }),
      'Truncated',
      /missing file var_features\/dataframe_1\.parquet/,
    ],
    [
      'missing labels.json',
      async () => ({ 'obs_features/labels.json': null }),
      'Truncated',
      /missing file obs_features\/labels\.json/,
    ],
    [
      'cumulative index not covering the rows',
      async () => ({ 'var_features/cumulative_sum_index.npy': int64Npy([-1, 4, 5]) }),
      'CountMismatch',
    ],
    [
      'cumulative index decreasing',
      async () => ({ 'var_features/cumulative_sum_index.npy': int64Npy([-1, 4, 2]) }),
      'InvalidValue',
    ],
    [
      'cumulative index not a .npy',
      async () => ({ 'obs_features/cumulative_sum_index.npy': new Uint8Array(16) }),
      'InvalidValue',
    ],
    [
      'parquet garbage',
      async () => ({ 'obs_features/dataframe_0.parquet': new TextEncoder().encode('PAR1 not really PAR1') }),
      'InvalidValue',
    ],
    [
      'obs table shorter than its block',
      async () => {
        const { directory } = await writeScdlToMemory(
          { indptr: [0, 0], indices: [], data: [] },
          { obs: [{ label: 'x', rows: 1, columns: [{ name: 'cell', values: ['c'] }] }] },
        );
        return { 'obs_features/dataframe_0.parquet': directory.get('obs_features/dataframe_0.parquet')! };
      },
      'CountMismatch',
    ],
    [
      'neighbor files incomplete',
      async () => ({ 'neighbor_indptr.npy': new Uint8Array(56) }),
      'Truncated',
      /missing file neighbor_indices\.npy/,
    ],
  ];

  for (const [name, change, code, message] of cases) {
    it(`${name} → ${code}`, async () => {
      const base = await raggedArchive();
      const dir = await withChanges(base, await change(base));
      const report = await firstError(dir);
      expect(report.valid).toBe(false);
      expect(report.errors[0]?.code, JSON.stringify(report.errors)).toBe(code);
      if (message) expect(report.errors[0].message).toMatch(message);
      expect(report.errors[0].file).toBeTypeOf('string');
      const error = await readEverything(dir);
      if (error !== undefined) {
        expect(isBinscopeError(error, 'FormatError'), String(error)).toBe(true);
        // Readers defer feature checks the header does not force (counts across files) to validate.
        if (
          ![
            'cumulative index not covering the rows',
            'obs table shorter than its block',
            'neighbor files incomplete',
            'column index past its own block',
          ].includes(name)
        ) {
          expect((error as { code: string }).code).toBe(code);
        }
      } else {
        expect([
          'cumulative index not covering the rows',
          'obs table shorter than its block',
          'neighbor files incomplete',
        ]).toContain(name);
      }
    });
  }

  it('a newer minor version and stale metadata.json are warnings, not errors', async () => {
    const base = await raggedArchive();
    const dir = await withChanges(base, {
      'header.sch': patched(base.get('header.sch')!, 5, [2]),
      'metadata.json': new TextEncoder().encode('{"num_rows": 2}'),
    });
    const report = await firstError(dir);
    expect(report.errors).toEqual([]);
    expect(report.warnings.map((w) => w.message).join('\n')).toMatch(/newer[\s\S]*num_rows 2/);
  });
});

describe('older layouts never crash the reader (C6)', () => {
  it('labels.npy instead of labels.json, and no feature-index header entries', async () => {
    const base = await raggedArchive();
    const header = base.get('header.sch')!;
    // Cut the header after the arrays (an archive from before feature indices).
    const arraysEnd = 16 + (4 + 4 + 8 + 4 + 1) + (4 + 6 + 8 + 4 + 1) + (4 + 6 + 8 + 4 + 1);
    const npyLabels = (() => {
      const head = new TextEncoder().encode("{'descr': '<U6', 'fortran_order': False, 'shape': (2,), }");
      const out = new Uint8Array(10 + 118 + 2 * 24);
      out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, 118, 0]);
      out.fill(0x20, 10, 128);
      out.set(head, 10);
      out[127] = 0x0a;
      const view = new DataView(out.buffer);
      const text = 'a.h5adb.h5ad';
      for (let k = 0; k < text.length; k++) view.setUint32(128 + k * 4, text.charCodeAt(k), true);
      return out;
    })();
    const dir = await withChanges(base, {
      'header.sch': header.slice(0, arraysEnd),
      'var_features/labels.json': null,
      'var_features/labels.npy': npyLabels,
    });
    const reader = await openScdl(dir);
    expect(reader.varIndex?.labels).toEqual(['a.h5ad', 'b.h5ad']);
    expect(reader.warnings.map((w) => w.message).join('\n')).toMatch(/labels\.npy/);
    expect((await reader.features(5))?.values[0]).toEqual(['h0', 'h1', 'h2']);
    const report = await validateScdl(directoryTarget(dir));
    expect(report.errors).toEqual([]);
  });

  it('a features/ folder is read as the var index; a broken one only warns', async () => {
    const base = await raggedArchive();
    const changes: Record<string, Uint8Array | null> = {};
    for (const file of await base.list()) {
      if (file.startsWith('var_features/')) {
        changes[file] = null;
        changes[file.replace('var_features/', 'features/')] = base.get(file)!;
      }
    }
    const header = base.get('header.sch')!;
    const arraysEnd = 16 + 21 + 23 + 23;
    const noFeatureHeader = new Uint8Array([...header.slice(0, arraysEnd), 0, 0, 0, 0]);
    const moved = await withChanges(base, {
      ...changes,
      'header.sch': noFeatureHeader,
      'obs_features/labels.json': null,
    });
    const reader = await openScdl(moved);
    expect(reader.varIndex?.name).toBe('features');
    expect((await reader.features(0))?.values[0]).toEqual(['g0', 'g1', 'g2', 'g3']);
    const broken = await withChanges(moved, { 'features/cumulative_sum_index.npy': new Uint8Array(3) });
    const brokenReader = await openScdl(broken);
    expect(brokenReader.varIndex).toBeUndefined();
    expect(brokenReader.warnings.map((w) => w.message).join('\n')).toMatch(/features\/ is unreadable/);
  });
});

describe('lazy reads', () => {
  it("row(i) reads only that row's slices of col_ptr.npy and data.npy", async () => {
    const n = 2000;
    const indptr = Array.from({ length: n + 1 }, (_, i) => i * 10);
    const indices = Array.from({ length: n * 10 }, (_, k) => k % 10);
    const { directory } = await writeScdlToMemory({
      indptr,
      indices,
      data: new Float32Array(n * 10).fill(2),
      numCols: 10,
    });
    const counters = new Map<string, CountingSource>();
    const counting: DirectorySource = {
      name: 'counting',
      list: () => directory.list(),
      has: (p) => directory.has(p),
      async open(p): Promise<ByteSource> {
        const existing = counters.get(p);
        if (existing) return existing;
        const source = new CountingSource(await directory.open(p));
        counters.set(p, source);
        return source;
      },
    };
    const reader = await openScdl(counting, { rowPtrCacheBytes: 0 });
    const before = { data: counters.get('data.npy')!.bytesRead, col: counters.get('col_ptr.npy')!.bytesRead };
    const row = await reader.row(1234);
    expect(row.values.length).toBe(10);
    expect(counters.get('data.npy')!.bytesRead - before.data).toBe(40);
    expect(counters.get('col_ptr.npy')!.bytesRead - before.col).toBe(10);
    expect(counters.get('data.npy')!.size).toBe(80_000);
  });
});

describe('row(i, { reuse: true })', () => {
  it('returns the same rows as row(i), in shared buffers', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { writeScdlArchive, openScdlArchive } = await import('../src/node.js');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scdl-reuse-'));
    try {
      const target = path.join(dir, 'a');
      await writeScdlArchive(target, {
        indptr: [0, 2, 2, 5],
        indices: [0, 4, 1, 2, 3],
        data: [1, 2, 3, 4, 5],
        numCols: 5,
      });
      const reader = await openScdlArchive(target);
      await reader.rows(0, 1); // loads the row_ptr cache: the positional hot path
      for (const i of [2, 0, 1, 2]) {
        const plain = await reader.row(i);
        const shared = await reader.row(i, { reuse: true });
        expect(Array.from(shared.values as Float32Array)).toEqual(Array.from(plain.values as Float32Array));
        expect(Array.from(shared.indices)).toEqual(Array.from(plain.indices));
      }
      const a = await reader.row(2, { reuse: true });
      const b = await reader.row(0, { reuse: true });
      expect(a.values.buffer).toBe(b.values.buffer);
      await reader.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('validate reports progress', () => {
  it('counts the row_ptr and column-index entries scanned up to 100 %', async () => {
    const events: ProgressEvent[] = [];
    const report = await validateScdl(directoryTarget(await raggedArchive()), {
      onProgress: (e) => events.push(e),
    });
    expect(report.errors).toEqual([]);
    expectProgressToEnd(events);
    // 7 row_ptr entries and 7 stored values.
    expect(events[0].total).toBe(14);
  });
});
