import { type ByteSource, type DirectorySource, formatErrors, type ReadOptions } from '@binscope/core';
import { openRequired } from './features.js';
import { type ArrayDescriptor, FORMAT, type ScdlNumericDType } from './header.js';
import { RawArray } from './raw-array.js';

const fail = formatErrors(FORMAT);

export interface NeighborGraphReader {
  rows: number;
  nnz: number;
  /** Neighbor indices (u32) and weights (f32) of one row. */
  row(i: number, options?: ReadOptions): Promise<{ indices: Uint32Array; values: Float32Array }>;
}

/** The neighbor graph (C8) when the archive has one: three raw arrays, indptr u64, indices u32, weights f32. */
export async function openNeighborGraph(
  directory: DirectorySource,
  files: readonly string[],
  options?: ReadOptions,
): Promise<NeighborGraphReader | undefined> {
  const names = ['neighbor_indptr.npy', 'neighbor_indices.npy', 'neighbor_values.npy'] as const;
  if (!files.includes(names[0])) return undefined;
  const [ptrSource, idxSource, valSource] = await Promise.all(
    names.map((n) => openRequired(directory, n, options)),
  );
  const descriptor = (name: string, length: number, dtype: ScdlNumericDType): ArrayDescriptor => ({
    name,
    length,
    dtype,
    dtypeCode: 0,
    shape: null,
    span: { offset: 0, length: 0 },
    fields: {},
  });
  const sizeCheck = (source: ByteSource, file: string, item: number): number => {
    if (source.size % item !== 0) {
      throw fail(
        'CountMismatch',
        `${file} is ${source.size} bytes, not a multiple of ${item}`,
        source.size,
        file,
      );
    }
    return source.size / item;
  };
  const ptr = new RawArray(
    descriptor('NEIGHBOR_INDICES_PTR', sizeCheck(ptrSource, names[0], 8), 'uint64'),
    'uint64',
    names[0],
    ptrSource,
  );
  const idx = new RawArray(
    descriptor('NEIGHBOR_INDICES', sizeCheck(idxSource, names[1], 4), 'uint32'),
    'uint32',
    names[1],
    idxSource,
  );
  const val = new RawArray(
    descriptor('NEIGHBOR_VALUES', sizeCheck(valSource, names[2], 4), 'float32'),
    'float32',
    names[2],
    valSource,
  );
  if (idx.length !== val.length) {
    throw fail(
      'CountMismatch',
      `neighbor_indices has ${idx.length} entries, neighbor_values ${val.length}`,
      undefined,
      names[2],
    );
  }
  const rows = Math.max(0, ptr.length - 1);
  return {
    rows,
    nnz: idx.length,
    async row(i, readOptions) {
      if (!(Number.isSafeInteger(i) && i >= 0 && i < rows)) {
        throw fail('OutOfBounds', `neighbor row ${i} does not exist (${rows} rows)`, undefined, names[0]);
      }
      const pair = (await ptr.slice(i, i + 2, readOptions)) as BigUint64Array;
      const a = Number(pair[0]);
      const b = Number(pair[1]);
      if (b < a) throw fail('InvalidValue', `neighbor_indptr decreases at row ${i}`, (i + 1) * 8, names[0]);
      return {
        indices: (await idx.slice(a, b, readOptions)) as Uint32Array,
        values: (await val.slice(a, b, readOptions)) as Float32Array,
      };
    },
  };
}
