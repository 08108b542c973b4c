import { isBinscopeError, type MemoryDirectory } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { openScdl, writeScdlToMemory } from '../src/index.js';
import { withChanges } from './helpers.js';

/**
 * The reader's own copy of C5's "a row lies inside DATA" check (validate.ts has another):
 * a row_ptr entry past nnz names row_ptr.npy and the entry's offset, on every read path.
 */
async function archiveWithRowPtr(entry: number, value: number): Promise<MemoryDirectory> {
  const { directory } = await writeScdlToMemory({
    indptr: [0, 2, 3, 3, 5, 6, 7],
    indices: [0, 3, 2, 1, 2, 0, 2],
    data: [1, 2, 3, 4, 5, 6, 7],
    numCols: 4,
  });
  const itemSize = (await openScdl(directory)).rowPtr.itemSize;
  const rowPtr = directory.get('row_ptr.npy')!.slice();
  // Little-endian: the low byte carries small values; the entry's other bytes stay 0.
  rowPtr[entry * itemSize] = value;
  return withChanges(directory, { 'row_ptr.npy': rowPtr });
}

/** What a read threw, synchronously (a local source) or by rejecting. */
async function failure(read: () => unknown): Promise<unknown> {
  try {
    await read();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('row_ptr past nnz (reader)', () => {
  // nnz is 7; row 0 would end at 9.
  const cases: Array<[string, { rowPtrCacheBytes?: number }]> = [
    ['row_ptr cached whole', {}],
    ['row_ptr read per row', { rowPtrCacheBytes: 0 }],
  ];
  for (const [name, options] of cases) {
    it(`row(0) is OutOfBounds at row_ptr[1] (${name})`, async () => {
      const directory = await archiveWithRowPtr(1, 9);
      const reader = await openScdl(directory, options);
      for (const read of [() => reader.row(0), () => reader.rows(0, 1), () => reader.rowExtent(0)]) {
        const error = await failure(read);
        expect(isBinscopeError(error, 'OutOfBounds'), String(error)).toBe(true);
        expect(error).toMatchObject({ file: 'row_ptr.npy', offset: reader.rowPtr.itemSize, format: 'scdl' });
      }
    });
  }
});

describe('a file that shrank after open (the source returns fewer bytes than its size)', () => {
  for (const answer of ['synchronously', 'with a promise'] as const) {
    it(`row(i) is Truncated naming data.npy, answered ${answer}`, async () => {
      const { directory } = await writeScdlToMemory({
        indptr: [0, 2, 3],
        indices: [0, 1, 1],
        data: [1, 2, 3],
      });
      const shrunk = Object.assign(Object.create(directory) as MemoryDirectory, {
        open: async (p: string) => {
          const inner = await directory.open(p);
          if (p !== 'data.npy') return inner;
          const short = (o: number, l: number) =>
            (inner.read(o, l) as Uint8Array).slice(0, Math.max(0, l - 1));
          return {
            size: inner.size,
            name: inner.name,
            read: answer === 'synchronously' ? short : async (o: number, l: number) => short(o, l),
          };
        },
      });
      const reader = await openScdl(shrunk);
      const error = await failure(() => reader.row(0));
      expect(isBinscopeError(error, 'Truncated'), String(error)).toBe(true);
      expect(error).toMatchObject({ file: 'data.npy', offset: 0 });
      expect((error as Error).message).toMatch(/data\.npy ends early: got 7 of 8 bytes/);
    });
  }
});
