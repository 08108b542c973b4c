import {
  type Awaitable,
  type DirectorySource,
  formatErrors,
  type FormatReader,
  type LogicalType,
  type NumericArray,
  type OpenOptions,
  type Problem,
  plainProblem,
  type ReadOptions,
  type Schema,
} from '@binscope/core';
import { type FeatureIndex as FeatureIndexType, FeatureIndex, type FeatureValue } from './features.js';
import { FORMAT, type ScdlHeader, type ScdlNumericDType } from './header.js';
import { type NeighborGraphReader, openNeighborGraph } from './neighbors.js';
import { type ObsField, obsFields } from './obs-fields.js';
import { type ArchiveParse, readSmallJson, rowExtentError } from './parse.js';
import { type RawArray, type ReuseBuffer, TYPED } from './raw-array.js';

const fail = formatErrors(FORMAT);

export type { NeighborGraphReader };
export { FeatureIndex, type FeatureValue };

/** Column indices of a row: the col_ptr dtype's array (uint64 widened to Float64Array, exact to 2^53). */
export type IndexArray = Uint8Array | Uint16Array | Uint32Array | Float64Array;

export interface SparseRow {
  /** Column indices, relative to the row's own var block (C6). */
  indices: IndexArray;
  /** Values in the header's data dtype (float16 decoded to Float32Array, uint64 as BigUint64Array). */
  values: NumericArray;
}

/** Consecutive rows read with one read per file. */
export interface RowBatch {
  /** First row of the batch. */
  start: number;
  /** Index of the batch's first entry in data.npy and col_ptr.npy (row_ptr[start]). */
  firstEntry: number;
  /** Row k is entries [indptr[k], indptr[k+1]) of `indices` / `values`. */
  indptr: Float64Array;
  indices: IndexArray;
  values: NumericArray;
  /** Row `start + k` as views into the batch (no copy). */
  row(k: number): SparseRow;
}

export interface ScdlOpenOptions extends OpenOptions {
  /**
   * row_ptr is kept in memory when it is at most this many bytes as float64 (default
   * 64 MiB, ~8M rows); larger archives read two entries per row on demand.
   */
  rowPtrCacheBytes?: number;
}

/** What `obs(row)` returns: the cell's annotations from its obs block. */
export interface ObsRecord {
  block: number;
  label: string | undefined;
  /** Row inside the block's table. */
  rowInBlock: number;
  columns: string[];
  values: FeatureValue[];
}

/** What `features(row)` returns: the var (gene) table of the row's block. */
export interface VarFeatures {
  block: number;
  label: string | undefined;
  /** Number of features (the row's column space). */
  count: number;
  columns: string[];
  /** One array per column, `count` entries each. */
  values: FeatureValue[][];
}

const DEFAULT_ROW_PTR_CACHE = 64 * 1024 * 1024;

function indexArray(values: NumericArray): IndexArray {
  if (values instanceof BigUint64Array) return Float64Array.from(values, Number);
  return values as IndexArray;
}

function makeBatch(
  start: number,
  firstEntry: number,
  indptr: Float64Array,
  indices: IndexArray,
  values: NumericArray,
): RowBatch {
  return {
    start,
    firstEntry,
    indptr,
    indices,
    values,
    row(k: number): SparseRow {
      const a = indptr[k];
      const b = indptr[k + 1];
      return { indices: indices.subarray(a, b) as IndexArray, values: values.subarray(a, b) as NumericArray };
    },
  };
}

/** The logical type of one element of a matrix array. */
function elementType(dtype: ScdlNumericDType): LogicalType {
  switch (dtype) {
    case 'float16':
      return { kind: 'float', bits: 16 };
    case 'float32':
      return { kind: 'float', bits: 32 };
    case 'float64':
      return { kind: 'float', bits: 64 };
    default:
      return { kind: 'int', bits: Number(dtype.slice(4)) as 8 | 16 | 32 | 64, signed: false };
  }
}

/** The matrix fields of a record, before the obs feature columns. */
export const MATRIX_FIELDS = ['row', 'indices', 'values'] as const;

/**
 * A record per row: `{row, indices, values}`, the column indices (relative to the row's var
 * block, C6) and the values as lists of the arrays' element types, so JSON shows plain
 * arrays; then the obs feature columns (`obs`), when the archive has obs features.
 */
export function scdlSchema(
  data: RawArray,
  colPtr: RawArray,
  obs: readonly ObsField[] = [],
  columns?: number,
): Schema {
  return {
    fields: [
      {
        name: 'row',
        type: { kind: 'int', bits: 64, signed: false },
        description: 'row (cell) number',
        metadata: { type: 'row' },
      },
      {
        name: 'indices',
        type: { kind: 'list', items: elementType(colPtr.dtype) },
        description: "column indices of the stored values, relative to the row's var block",
        metadata: { type: `${colPtr.dtype} list` },
      },
      {
        name: 'values',
        type: { kind: 'list', items: elementType(data.dtype) },
        description: 'stored values (an explicitly stored zero is one of them)',
        // Core-read keys: `indices` pairs each value with its column; `columns` is the dense width.
        metadata: {
          type: `${data.dtype} list`,
          indices: 'indices',
          ...(columns === undefined ? {} : { columns: String(columns) }),
        },
      },
      ...obs.map((o) => o.field),
    ],
  };
}

/**
 * A lazily opened SCDL archive. Opening reads header.sch, checks the array files' sizes
 * (C5) and the ends of row_ptr, and loads the feature indices' small metadata; rows,
 * parquet tables and neighbors are read on demand. It closes its directory only when its
 * opener handed it over (`openScdlArchive`): whoever opens a source closes it.
 */
export class ScdlReader implements FormatReader {
  readonly format = FORMAT;
  readonly schema: Schema;
  /** Things that did not stop reading: newer minor version, stale metadata.json, old layouts. */
  readonly warnings: readonly Problem[];
  private rowPtrCache: Float64Array | undefined;
  private rowPtrCacheTried = false;
  private maxColumnCache: number | undefined;
  private reuseBuffers: { indices: ReuseBuffer; values: ReuseBuffer } | undefined;
  private ownsDirectory = false;

  private constructor(
    readonly directory: DirectorySource,
    readonly header: ScdlHeader,
    readonly headerSize: number,
    /** The 16 bytes of the core header (what inspect decodes its fields from). */
    readonly headerHead: Uint8Array,
    /** Every file of the archive, relative paths, sorted. */
    readonly files: readonly string[],
    readonly data: RawArray,
    readonly rowPtr: RawArray,
    readonly colPtr: RawArray,
    /** Gene (variable) feature index, when the archive has one (`var_features/`, or the older `features/`). */
    readonly varIndex: FeatureIndexType | undefined,
    /** Cell (observation) feature index. */
    readonly obsIndex: FeatureIndexType | undefined,
    warnings: readonly Problem[],
    private readonly options: ScdlOpenOptions,
    /** The obs feature columns the records carry after the matrix fields. */
    readonly obsFields: readonly ObsField[] = [],
    /** Genes per row, when every row has the same var block (one var table). */
    columns?: number,
  ) {
    this.warnings = warnings;
    this.schema = scdlSchema(data, colPtr, obsFields, columns);
  }

  /** Rows: len(row_ptr) − 1 (C7), never metadata.json. */
  get numRows(): number {
    return this.rowPtr.length - 1;
  }
  get nnz(): number {
    return this.data.length;
  }
  get dataDType(): ScdlNumericDType {
    return this.data.dtype;
  }
  get version(): string {
    const v = this.header.version;
    return `${v.major}.${v.minor}.${v.point}`;
  }

  /**
   * The reader over a parse that found no error, in any mode (inspect mode builds the same
   * tree as `inspect(open())` from it). Its records carry `obs` after the matrix fields
   * (`withObsFields` reads them from the obs tables' footers). @internal
   */
  static fromParse(
    parsed: ArchiveParse,
    options: ScdlOpenOptions = {},
    obs: readonly ObsField[] = [],
    columns?: number,
  ): ScdlReader {
    const { DATA: data, ROWPTR: rowPtr, COLPTR: colPtr } = parsed.arrays;
    if (!parsed.header || !data || !rowPtr || !colPtr || !parsed.matrixValid) {
      throw new Error('ScdlReader.fromParse needs a parse without errors');
    }
    return new ScdlReader(
      parsed.directory,
      parsed.header,
      parsed.headerSize,
      parsed.headerHead,
      parsed.files,
      data,
      rowPtr,
      colPtr,
      parsed.varIndex,
      parsed.obsIndex,
      parsed.warnings.map(plainProblem),
      options,
      obs,
      columns,
    );
  }

  /** The reader of read mode: fromParse with the obs feature columns as record fields. @internal */
  static async withObsFields(parsed: ArchiveParse, options: ScdlOpenOptions = {}): Promise<ScdlReader> {
    const obs = await obsFields(parsed.obsIndex, MATRIX_FIELDS, options);
    // One var table: every row's column indices count its genes, so the dense width is known.
    // With several blocks an index is relative to its own block, so no single width applies.
    const columns = parsed.varIndex?.blockCount === 1 ? await parsed.varIndex.tableRows(0) : undefined;
    return ScdlReader.fromParse(parsed, options, obs, columns);
  }

  /** row_ptr[i], row_ptr[i+1] of row i, from the cache or two on-demand entries. */
  rowExtent(i: number, options?: ReadOptions): Awaitable<[number, number]> {
    this.checkRow(i);
    const cache = this.rowPtrCache ?? this.loadRowPtr(options);
    if (cache instanceof Promise) return cache.then(() => this.rowExtent(i, options));
    if (cache) return [cache[i], cache[i + 1]];
    const pair = this.rowPtr.slice(i, i + 2, options);
    if (pair instanceof Promise) return pair.then((p) => this.extentOf(i, p));
    return this.extentOf(i, pair);
  }

  private extentOf(i: number, pair: NumericArray): [number, number] {
    const a = Number(pair[0]);
    const b = Number(pair[1]);
    this.checkExtent(i, a, b);
    return [a, b];
  }

  private checkRow(i: number): void {
    if (!(Number.isSafeInteger(i) && i >= 0 && i < this.numRows)) {
      throw fail('OutOfBounds', `row ${i} does not exist (the archive has ${this.numRows} rows)`);
    }
  }

  private checkExtent(i: number, a: number, b: number): void {
    const broken = rowExtentError(this.rowPtr, i, a, b, this.nnz);
    if (broken) throw broken;
  }

  /**
   * row_ptr whole when it fits the cache budget (checked non-decreasing, once); undefined
   * when it is over the budget or failed to load (rows then read their two entries).
   */
  private loadRowPtr(options?: ReadOptions): Awaitable<Float64Array | undefined> {
    if (this.rowPtrCacheTried) return this.rowPtrCache;
    this.rowPtrCacheTried = true;
    const budget = this.options.rowPtrCacheBytes ?? DEFAULT_ROW_PTR_CACHE;
    if (this.rowPtr.length * 8 > budget) return undefined;
    const raw = this.rowPtr.slice(0, this.rowPtr.length, options);
    if (raw instanceof Promise) return raw.then((r) => this.cacheRowPtr(r));
    return this.cacheRowPtr(raw);
  }

  private cacheRowPtr(raw: NumericArray): Float64Array {
    const cache = raw instanceof Float64Array ? raw : new Float64Array(raw.length);
    if (raw instanceof BigUint64Array) for (let k = 0; k < raw.length; k++) cache[k] = Number(raw[k]);
    else if (cache !== raw) cache.set(raw as ArrayLike<number>);
    for (let k = 0; k + 1 < cache.length; k++) this.checkExtent(k, cache[k], cache[k + 1]);
    this.rowPtrCache = cache;
    return cache;
  }

  /**
   * Row i: its column indices and values, reading only its slices of col_ptr.npy and
   * data.npy. Synchronous when the archive's sources are (local files, memory): no promise
   * per row then. With `reuse: true` the row is read into two buffers shared by every
   * reusing call (no new memory per row, the fastest random access): its arrays are then
   * valid only until the next `row(…, { reuse: true })`, so copy what you keep.
   */
  row(i: number, options?: ReadOptions & { reuse?: boolean }): Awaitable<SparseRow> {
    if (!(Number.isSafeInteger(i) && i >= 0 && i < this.rowPtr.length - 1)) this.checkRow(i);
    const cache = this.rowPtrCache ?? this.loadRowPtr(options);
    if (cache instanceof Promise) return cache.then(() => this.row(i, options));
    if (cache) return this.rowAt(cache[i], cache[i + 1], options);
    const pair = this.rowPtr.slice(i, i + 2, options);
    if (pair instanceof Promise)
      return pair.then((p) => {
        const [a, b] = this.extentOf(i, p);
        return this.rowAt(a, b, options);
      });
    const a = Number(pair[0]);
    const b = Number(pair[1]);
    this.checkExtent(i, a, b);
    return this.rowAt(a, b, options);
  }

  /** Entries [a, b) of col_ptr and data as a row. */
  private rowAt(a: number, b: number, options?: ReadOptions & { reuse?: boolean }): Awaitable<SparseRow> {
    const reuse = options?.reuse
      ? (this.reuseBuffers ??= {
          indices: { buffer: new ArrayBuffer(0) },
          values: { buffer: new ArrayBuffer(0) },
        })
      : undefined;
    const indices = this.colPtr.slice(a, b, options, reuse?.indices);
    const values = this.data.slice(a, b, options, reuse?.values);
    if (indices instanceof Promise || values instanceof Promise)
      return Promise.all([indices, values]).then(([ix, v]) => ({ indices: indexArray(ix), values: v }));
    return { indices: indexArray(indices), values };
  }

  /** Rows [i0, i1) with one read per file. */
  rows(i0: number, i1: number, options?: ReadOptions): Promise<RowBatch> {
    return this.readRows(i0, i1, options);
  }

  private async readRows(
    i0: number,
    i1: number,
    options?: ReadOptions,
    reuse?: { indices: ReuseBuffer; values: ReuseBuffer },
  ): Promise<RowBatch> {
    if (
      !(Number.isSafeInteger(i0) && Number.isSafeInteger(i1) && 0 <= i0 && i0 <= i1 && i1 <= this.numRows)
    ) {
      throw fail('OutOfBounds', `rows [${i0}, ${i1}) are not inside the ${this.numRows} rows`);
    }
    const cache = this.rowPtrCache ?? (await this.loadRowPtr(options));
    let ptr: Float64Array;
    if (cache) ptr = cache.subarray(i0, i1 + 1);
    else {
      const raw = await this.rowPtr.slice(i0, i1 + 1, options);
      ptr = Float64Array.from(raw as ArrayLike<number>, Number);
      for (let k = 0; k + 1 < ptr.length; k++) this.checkExtent(i0 + k, ptr[k], ptr[k + 1]);
    }
    const a = ptr[0];
    const b = ptr[ptr.length - 1];
    const indices = indexArray(await this.colPtr.slice(a, b, options, reuse?.indices));
    const values = await this.data.slice(a, b, options, reuse?.values);
    const rel = new Float64Array(ptr.length);
    for (let k = 0; k < ptr.length; k++) rel[k] = ptr[k] - a;
    return makeBatch(i0, a, rel, indices, values);
  }

  /**
   * Every row from `start` to `end` in batches of about `batchBytes` (default 4 MiB): the
   * fast sequential pass. With `reuse: true` every batch is read into the same two
   * buffers (no new memory per batch, the fastest pass): a batch's arrays are then valid
   * only until the next batch is requested, so copy what you keep.
   */
  async *batches(
    options: ReadOptions & { start?: number; end?: number; batchBytes?: number; reuse?: boolean } = {},
  ): AsyncGenerator<RowBatch> {
    const reuse = options.reuse
      ? { indices: { buffer: new ArrayBuffer(0) }, values: { buffer: new ArrayBuffer(0) } }
      : undefined;
    const end = Math.min(options.end ?? this.numRows, this.numRows);
    const budget = Math.max(
      1,
      Math.floor((options.batchBytes ?? 4 * 1024 * 1024) / (this.data.itemSize + this.colPtr.itemSize)),
    );
    let i = Math.max(0, options.start ?? 0);
    while (i < end) {
      options.signal?.throwIfAborted();
      // Grow the batch while it stays within the byte budget (at least one row).
      let j = i + 1;
      const [first] = await this.rowExtent(i, options);
      let step = 1;
      while (j < end) {
        const k = Math.min(end, j + step);
        const [, last] = await this.rowExtent(k - 1, options);
        if (last - first > budget) {
          if (step === 1) break;
          step = 1;
          continue;
        }
        j = k;
        step *= 2;
      }
      yield await this.readRows(i, j, options, reuse);
      i = j;
    }
  }

  /** Features (columns) of the row's block: the var table's length, else the largest column index + 1. */
  async numColumns(i?: number, options?: ReadOptions): Promise<number> {
    if (this.varIndex && this.varIndex.blockCount > 0) {
      const block = i === undefined ? -1 : this.varIndex.blockOf(i);
      if (block >= 0) return this.varIndex.tableRows(block);
      if (i === undefined) {
        let max = 0;
        for (let b = 0; b < this.varIndex.blockCount; b++)
          max = Math.max(max, await this.varIndex.tableRows(b));
        return max;
      }
    }
    if (this.maxColumnCache === undefined) {
      let max = -1;
      for await (const batch of this.batches(options)) {
        for (let k = 0; k < batch.indices.length; k++) if (batch.indices[k] > max) max = batch.indices[k];
      }
      this.maxColumnCache = max + 1;
    }
    return this.maxColumnCache;
  }

  /** Row i as a dense array of its block's width (zeros filled in), in the data dtype. */
  async rowPadded(i: number, options?: ReadOptions & { width?: number }): Promise<NumericArray> {
    const width = options?.width ?? (await this.numColumns(i, options));
    const { indices, values } = await this.row(i, options);
    const out = new TYPED[this.dataDType === 'float16' ? 'float32' : this.dataDType](width);
    for (let k = 0; k < indices.length; k++) {
      const c = indices[k];
      if (c >= width) {
        throw fail(
          'OutOfBounds',
          `row ${i} has column index ${c}, its block has ${width} columns`,
          undefined,
          this.colPtr.file,
        );
      }
      (out as unknown as { [k: number]: number | bigint })[c] = values[k];
    }
    return out;
  }

  /** One value (0 where the row stores none). */
  async value(i: number, column: number, options?: ReadOptions): Promise<number | bigint> {
    const { indices, values } = await this.row(i, options);
    for (let k = 0; k < indices.length; k++) if (indices[k] === column) return values[k];
    return this.dataDType === 'uint64' ? 0n : 0;
  }

  /** The var (gene) features of the row's block: what its column indices refer to. */
  async features(i: number): Promise<VarFeatures | undefined> {
    const index = this.varIndex;
    if (!index) return undefined;
    const block = index.blockOf(i);
    if (block < 0) return undefined;
    const table = await index.table(block);
    return {
      block,
      label: index.block(block).label,
      count: table.numRows,
      columns: table.columns,
      values: table.values,
    };
  }

  /** The obs (cell) annotations of row i. */
  async obs(i: number): Promise<ObsRecord | undefined> {
    const index = this.obsIndex;
    if (!index) return undefined;
    const block = index.blockOf(i);
    if (block < 0) return undefined;
    const rowInBlock = i - index.block(block).start;
    const { columns, values } = await index.tableRow(block, rowInBlock);
    return { block, label: index.block(block).label, rowInBlock, columns, values };
  }

  /** The neighbor graph (C8) when the archive has one. */
  async neighbors(options?: ReadOptions): Promise<NeighborGraphReader | undefined> {
    return openNeighborGraph(this.directory, this.files, options);
  }

  /** metadata.json parsed (its num_rows can be stale, C7), or undefined when absent or unreadable. */
  async metadataJson(options?: ReadOptions): Promise<unknown> {
    return readSmallJson(this.directory, this.files, 'metadata.json', options);
  }

  /** version.json: the writing package's version ("0.1.3"), not the schema version. */
  async versionJson(options?: ReadOptions): Promise<unknown> {
    return readSmallJson(this.directory, this.files, 'version.json', options);
  }

  /**
   * Makes close() close the directory too: for an opener that opens the directory itself and
   * hands the reader on (`openScdlArchive`), so whoever opened it still closes it.
   */
  ownDirectory(): this {
    this.ownsDirectory = true;
    return this;
  }

  /** Closes the directory only if the reader owns it (`ownDirectory`); never a target it was handed. */
  async close(): Promise<void> {
    if (this.ownsDirectory) await (this.directory as { close?(): Promise<void> }).close?.();
  }
}

export type { RawArray };
