import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type ByteSource, type DirectorySource, MemoryDirectory } from '@binscope/core';
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

/**
 * What a call gave, with how it answered: `sync` when it returned a value or threw at once,
 * `promise` when it returned a promise (then what the promise settled to).
 */
async function outcome(run: () => unknown): Promise<{ answer: 'sync' | 'promise'; result: unknown }> {
  let value: unknown;
  try {
    value = run();
  } catch (error) {
    return { answer: 'sync', result: describeError(error) };
  }
  if (!(value instanceof Promise)) return { answer: 'sync', result: { value: plain(value) } };
  try {
    return { answer: 'promise', result: { value: plain(await value) } };
  } catch (error) {
    return { answer: 'promise', result: describeError(error) };
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

/** The same files behind sources that answer with promises (as a browser File or HTTP would). */
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

/**
 * One row path (issue 30: no rowSync twin): over sources that answer synchronously (local
 * files, memory) `row` answers synchronously, over sources that answer with promises it
 * answers with a promise, and both give the same rows and the same errors.
 */
describe('row answers synchronously from synchronous sources, the same as from promised ones', () => {
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
      const promised = (rowPtrCacheBytes?: number) => openScdl(asyncOnly(directory), { rowPtrCacheBytes });
      for (const [label, open] of openers) {
        const syncReader = await open();
        const asyncReader = await promised(label.endsWith('uncached') ? 0 : undefined);
        const n = syncReader.numRows;
        for (const i of [...Array.from({ length: n }, (_, k) => k), n, ...BAD_ROWS]) {
          for (const reuse of [false, true]) {
            const sync = await outcome(() => syncReader.row(i, { reuse }));
            const async = await outcome(() => asyncReader.row(i, { reuse }));
            expect(sync.answer, `${label} row ${i}`).toBe('sync');
            // Promised sources answer with a promise whenever bytes must be read; a row number
            // that is no row is refused before any read, and an empty row needs none once
            // row_ptr is cached.
            const valid = Number.isSafeInteger(i) && i >= 0 && i < n;
            if (!valid) expect(async.answer, `${label} row ${i}`).toBe('sync');
            else if (matrix.indptr[i + 1] > matrix.indptr[i])
              expect(async.answer, `${label} row ${i}`).toBe('promise');
            expect(sync.result, `${label} row ${i} reuse ${reuse}`).toEqual(async.result);
          }
        }
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
        const asyncReader = await openScdl(asyncOnly(broken), { rowPtrCacheBytes });
        let failures = 0;
        for (let i = 0; i < syncReader.numRows; i++) {
          const sync = await outcome(() => syncReader.row(i));
          const async = await outcome(() => asyncReader.row(i));
          expect(sync.answer).toBe('sync');
          expect(sync.result, `row_ptr[${row}] = ${value}, row ${i}, cache ${rowPtrCacheBytes}`).toEqual(
            async.result,
          );
          if ((sync.result as { code?: string }).code) failures++;
        }
        expect(failures).toBeGreaterThan(0);
      }
    }
  });
});
