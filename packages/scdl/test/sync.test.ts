import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type ByteSource, type DirectorySource, MemoryDirectory, SourceError } from '@binscope/core';
import { describeError } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { openScdl, type ScdlDataDType, type ScdlReader, writeScdlToMemory } from '../src/index.js';
import { openScdlArchive, writeScdlArchive } from '../src/node.js';

/** A small matrix with empty rows (first, middle, last), deterministic values. */
function dense(rows: number, cols: number, dtype: ScdlDataDType): number[][] {
  let x = 12345;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
  return Array.from({ length: rows }, (_, r) =>
    Array.from({ length: cols }, () => {
      if (r === 0 || r === 3 || r === rows - 1 || next() < 0.6) return 0;
      const v = 1 + Math.floor(next() * 200);
      return dtype === 'float16' || dtype === 'float32' || dtype === 'float64' ? v / 4 : v;
    }),
  );
}

function csr(matrix: number[][]) {
  const indptr = [0];
  const indices: number[] = [];
  const data: number[] = [];
  for (const row of matrix) {
    row.forEach((v, c) => {
      if (v !== 0) {
        indices.push(c);
        data.push(v);
      }
    });
    indptr.push(indices.length);
  }
  return { indptr, indices, data, numCols: matrix[0]?.length ?? 0 };
}

/** What a failing call threw, comparable between the two paths. */
function outcome(run: () => unknown): unknown {
  try {
    const value = run();
    return { value: plain(value) };
  } catch (error) {
    return describeError(error);
  }
}
async function outcomeAsync(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: plain(await run()) };
  } catch (error) {
    return describeError(error);
  }
}
/** Typed arrays with their class, so Float32Array vs Float64Array differences show. */
function plain(value: unknown): unknown {
  if (value && typeof value === 'object' && 'indices' in value && 'values' in value) {
    const row = value as { indices: ArrayLike<unknown>; values: ArrayLike<unknown> };
    return {
      indices: [row.indices.constructor.name, Array.from(row.indices, String)],
      values: [row.values.constructor.name, Array.from(row.values, String)],
    };
  }
  return value;
}

/** The same files behind sources that have no readSync (as a browser File or HTTP would be). */
function asyncOnly(directory: DirectorySource): DirectorySource {
  return Object.assign(Object.create(directory) as DirectorySource, {
    open: async (p: string): Promise<ByteSource> => {
      const inner = await directory.open(p);
      return { size: inner.size, name: inner.name, read: async (o, l, opt) => inner.read(o, l, opt) };
    },
  });
}

const BAD_ROWS = [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1e20];

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scdl-sync-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function memoryFiles(directory: MemoryDirectory): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for (const name of await directory.list()) {
    const source = await directory.open(name);
    files.set(name, new Uint8Array(await source.read(0, source.size)));
  }
  return files;
}

describe('rowSync matches row', () => {
  const dtypes: ScdlDataDType[] = ['uint8', 'uint16', 'uint64', 'float16', 'float32', 'float64'];
  for (const dtype of dtypes) {
    it(`${dtype}: memory and Node archives, cached and uncached row_ptr, with and without reuse`, async () => {
      const matrix = csr(dense(23, 40, dtype));
      const { directory } = await writeScdlToMemory(matrix, { dataDType: dtype });
      const target = path.join(tmp, `${dtype}.scdl`);
      await writeScdlArchive(target, matrix, { dataDType: dtype });
      const openers: Array<[string, () => Promise<ScdlReader>]> = [
        ['memory', () => openScdl(directory)],
        ['memory, uncached', () => openScdl(directory, { rowPtrCacheBytes: 0 })],
        ['node', () => openScdlArchive(target)],
        ['node, uncached', () => openScdlArchive(target, { rowPtrCacheBytes: 0 })],
      ];
      for (const [label, open] of openers) {
        const syncReader = await open();
        const asyncReader = await open();
        expect(syncReader.canReadSync, label).toBe(true);
        const n = syncReader.numRows;
        for (const i of [...Array.from({ length: n }, (_, k) => k), n, ...BAD_ROWS]) {
          for (const reuse of [false, true]) {
            const sync = outcome(() => syncReader.rowSync(i, { reuse }));
            const async = await outcomeAsync(() => asyncReader.row(i, { reuse }));
            expect(sync, `${label} row ${i} reuse ${reuse}`).toEqual(async);
          }
        }
        expect(outcome(() => syncReader.rowSync(0))).toEqual(await outcomeAsync(() => asyncReader.row(0)));
        await syncReader.close();
        await asyncReader.close();
      }
    });
  }

  it('a decreasing or overlong row_ptr fails alike', async () => {
    const matrix = csr(dense(12, 30, 'float32'));
    const { directory } = await writeScdlToMemory(matrix, { dataDType: 'float32' });
    const files = await memoryFiles(directory);
    const probe = await openScdl(directory);
    const item = probe.rowPtr.itemSize;
    const nnz = probe.nnz;
    for (const [row, value] of [
      [2, nnz],
      [5, 0],
      [7, nnz + 1],
    ]) {
      const rowPtr = new Uint8Array(files.get('row_ptr.npy')!);
      const view = new DataView(rowPtr.buffer);
      if (item === 1) view.setUint8(row * item, value);
      else if (item === 2) view.setUint16(row * item, value, true);
      else if (item === 4) view.setUint32(row * item, value, true);
      else view.setBigUint64(row * item, BigInt(value), true);
      const broken = new MemoryDirectory(new Map([...files, ['row_ptr.npy', rowPtr]]), 'broken');
      for (const rowPtrCacheBytes of [undefined, 0]) {
        const syncReader = await openScdl(broken, { rowPtrCacheBytes });
        const asyncReader = await openScdl(broken, { rowPtrCacheBytes });
        let failures = 0;
        for (let i = 0; i < syncReader.numRows; i++) {
          const sync = outcome(() => syncReader.rowSync(i));
          const async = await outcomeAsync(() => asyncReader.row(i));
          expect(sync, `row_ptr[${row}] = ${value}, row ${i}, cache ${rowPtrCacheBytes}`).toEqual(async);
          if ((sync as { code?: string }).code) failures++;
        }
        expect(failures).toBeGreaterThan(0);
      }
    }
  });

  it('throws SourceError when the sources have no readSync; row still works', async () => {
    const matrix = csr(dense(9, 20, 'float32'));
    const { directory } = await writeScdlToMemory(matrix, { dataDType: 'float32' });
    const reader = await openScdl(asyncOnly(directory));
    const reference = await openScdl(directory);
    expect(reader.canReadSync).toBe(false);
    expect(() => reader.rowSync(1)).toThrow(SourceError);
    for (let i = 0; i < reader.numRows; i++)
      expect(plain(await reader.row(i))).toEqual(plain(reference.rowSync(i)));
  });
});
