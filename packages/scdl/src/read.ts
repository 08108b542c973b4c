import {
  type ByteSource,
  checkRange,
  type DirectorySource,
  FormatError,
  type FormatReader,
  type NumericArray,
  type OpenOptions,
  type ReadOptions,
  readExact,
  SourceError,
  toTypedArray,
} from '@binscope/core';
import {
  type FeatureIndex as FeatureIndexType,
  FeatureIndex,
  type FeatureValue,
  openRequired,
} from './features.js';
import {
  arrayFile,
  type ArrayDescriptor,
  CORE_DTYPE,
  FORMAT,
  HEADER_FILE,
  ITEM_SIZE,
  isNumericDType,
  isUnsignedDType,
  parseHeader,
  type ScdlHeader,
  type ScdlNumericDType,
} from './header.js';

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
  /** Called on close (the Node opener releases its file descriptors). */
  onClose?: () => Promise<void>;
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

export interface NeighborGraphReader {
  rows: number;
  nnz: number;
  /** Neighbor indices (u32) and weights (f32) of one row. */
  row(i: number, options?: ReadOptions): Promise<{ indices: Uint32Array; values: Float32Array }>;
}

/** Fills our own aligned buffers straight from a file: NodeFileSource offers this (no copy, no view per read). */
interface ReadIntoSource extends ByteSource {
  readInto(target: Uint8Array, offset: number): Uint8Array;
  readAt(target: Uint8Array, targetOffset: number, length: number, position: number): number;
}

function hasReadInto(source: ByteSource): source is ReadIntoSource {
  const candidate = source as Partial<ReadIntoSource>;
  return typeof candidate.readInto === 'function' && typeof candidate.readAt === 'function';
}

const TYPED: Record<ScdlNumericDType, new (n: number) => NumericArray> = {
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
  uint64: BigUint64Array,
  float16: Uint16Array,
  float32: Float32Array,
  float64: Float64Array,
};

const DEFAULT_ROW_PTR_CACHE = 64 * 1024 * 1024;

const SLAB_BYTES = 1 << 20;
const SLAB_MAX_REQUEST = 64 * 1024;

/**
 * Hands out 8-aligned regions of shared 1 MiB buffers for small row reads: a fresh
 * ArrayBuffer per row costs more than the read itself. A slab lives as long as any row
 * viewing it, so memory stays a small multiple of what the caller keeps.
 */
class Slab {
  /** The buffer the last `take` carved from (read it right after `take`). */
  buffer = new ArrayBuffer(SLAB_BYTES);
  /** A byte view of `buffer`, kept so reads need no view object of their own. */
  bytes = new Uint8Array(this.buffer);
  private used = 0;
  /** Offset of `bytes` fresh bytes in `this.buffer` (no object per call: this is the row hot path). */
  take(bytes: number): number {
    if (bytes > SLAB_MAX_REQUEST) {
      this.buffer = new ArrayBuffer(bytes);
      this.bytes = new Uint8Array(this.buffer);
      this.used = SLAB_BYTES; // the next small request starts a new slab
      return 0;
    }
    let offset = (this.used + 7) & ~7;
    if (offset + bytes > SLAB_BYTES) {
      this.buffer = new ArrayBuffer(SLAB_BYTES);
      this.bytes = new Uint8Array(this.buffer);
      offset = 0;
    }
    this.used = offset + bytes;
    return offset;
  }
}

/** A buffer that reusing reads fill and grow; `bytes` caches its byte view. */
interface ReuseBuffer {
  buffer: ArrayBuffer;
  bytes?: Uint8Array;
}

type ViewCtor = new (buffer: ArrayBuffer, offset: number, length: number) => NumericArray;

/** One raw little-endian array file (C4), read positionally. */
class RawArray {
  readonly itemSize: number;
  /** Positional reads into our own memory, when the source offers them and no f16 decoding is needed. */
  private readonly into: ReadIntoSource | undefined;
  private readonly View: ViewCtor;
  constructor(
    readonly descriptor: ArrayDescriptor,
    readonly dtype: ScdlNumericDType,
    readonly file: string,
    readonly source: ByteSource,
    private readonly slab: Slab = new Slab(),
  ) {
    this.itemSize = ITEM_SIZE[dtype];
    this.into = dtype !== 'float16' && hasReadInto(source) ? source : undefined;
    this.View = TYPED[dtype] as unknown as ViewCtor;
  }
  get length(): number {
    return this.descriptor.length;
  }
  /** Whether `sliceSync` can read (the source offers `readInto` or `readSync`). */
  get canReadSync(): boolean {
    return this.into !== undefined || typeof this.source.readSync === 'function';
  }

  private checkSlice(start: number, end: number): void {
    if (!(start >= 0 && end >= start && end <= this.length)) {
      throw new FormatError(
        'OutOfBounds',
        `${this.file}: elements [${start}, ${end}) lie outside its ${this.length} entries`,
        {
          file: this.file,
          offset: start * this.itemSize,
          format: FORMAT,
        },
      );
    }
  }

  /**
   * The synchronous path, shared by `slice`: straight into our memory for positional
   * sources (Node files), else through `readSync` (memory sources, f16), with the same
   * checks and errors as the awaited read. Undefined when the source has no sync read.
   */
  sliceSync(start: number, end: number, into?: ReuseBuffer): NumericArray | undefined {
    const source = this.into;
    if (source === undefined) return this.readSyncSlice(start, end);
    if (!(start >= 0 && end >= start && end <= this.descriptor.length)) this.checkSlice(start, end);
    const n = end - start;
    const offset = start * this.itemSize;
    const bytes = n * this.itemSize;
    if (offset + bytes > this.source.size) {
      throw new FormatError(
        'Truncated',
        `${this.file} ends at ${this.source.size}, ${bytes} bytes at ${offset} needed`,
        {
          file: this.file,
          offset,
          format: FORMAT,
        },
      );
    }
    let buffer: ArrayBuffer;
    let view: Uint8Array;
    let at = 0;
    if (into) {
      if (into.buffer.byteLength < bytes)
        into.buffer = new ArrayBuffer(Math.max(bytes, into.buffer.byteLength * 2));
      buffer = into.buffer;
      if (into.bytes?.buffer !== buffer) into.bytes = new Uint8Array(buffer);
      view = into.bytes;
    } else {
      at = this.slab.take(bytes);
      buffer = this.slab.buffer;
      view = this.slab.bytes;
    }
    if (bytes > 0 && source.readAt(view, at, bytes, offset) !== bytes) {
      throw new FormatError('Truncated', `${this.file} ended while reading ${bytes} bytes at ${offset}`, {
        file: this.file,
        offset,
        format: FORMAT,
      });
    }
    return new this.View(buffer, at, n);
  }

  /** sliceSync for sources with `readSync` but no `readInto`: the checks and copy of `slice`. */
  private readSyncSlice(start: number, end: number): NumericArray | undefined {
    if (typeof this.source.readSync !== 'function') return undefined;
    this.checkSlice(start, end);
    const offset = start * this.itemSize;
    const bytes = (end - start) * this.itemSize;
    checkRange(this.source, offset, bytes, { format: FORMAT, what: this.file });
    const raw = bytes === 0 ? new Uint8Array(0) : this.source.readSync(offset, bytes);
    if (raw.byteLength !== bytes) {
      // readExact's message, so sync and async reads fail alike.
      throw new FormatError('Truncated', `${this.file} ends early: got ${raw.byteLength} of ${bytes} bytes`, {
        offset,
        file: this.source.name,
        format: FORMAT,
      });
    }
    // Copy: a source may hand out views of its own cache.
    return toTypedArray(new Uint8Array(raw), CORE_DTYPE[this.dtype], true);
  }

  /** Elements [start, end) as a typed array of the dtype (f16 → Float32Array). Range checked first (A4). */
  async slice(start: number, end: number, options?: ReadOptions): Promise<NumericArray> {
    const fast = this.sliceSync(start, end);
    if (fast) return fast;
    this.checkSlice(start, end);
    const n = end - start;
    const offset = start * this.itemSize;
    const bytes = n * this.itemSize;
    const raw = await readExact(this.source, offset, bytes, { ...options, format: FORMAT, what: this.file });
    // Copy: a source may hand out views of its own cache.
    return toTypedArray(new Uint8Array(raw), CORE_DTYPE[this.dtype], true);
  }

  /** Like slice, but into `into` (grown when too small): the reusing sequential pass. */
  async sliceInto(
    start: number,
    end: number,
    into: ReuseBuffer,
    options?: ReadOptions,
  ): Promise<NumericArray> {
    if (this.dtype === 'float16' || !hasReadInto(this.source)) return this.slice(start, end, options);
    this.checkSlice(start, end);
    const n = end - start;
    const bytes = n * this.itemSize;
    const offset = start * this.itemSize;
    if (into.buffer.byteLength < bytes)
      into.buffer = new ArrayBuffer(Math.max(bytes, into.buffer.byteLength * 2));
    const Ctor = TYPED[this.dtype] as unknown as new (
      buffer: ArrayBuffer,
      offset: number,
      length: number,
    ) => NumericArray;
    if (into.bytes?.buffer !== into.buffer) into.bytes = new Uint8Array(into.buffer);
    if (bytes > 0 && this.source.readAt(into.bytes, 0, bytes, offset) !== bytes) {
      throw new FormatError('Truncated', `${this.file} ended while reading ${bytes} bytes at ${offset}`, {
        file: this.file,
        offset,
        format: FORMAT,
      });
    }
    return new Ctor(into.buffer, 0, n);
  }
}

function indexArray(values: NumericArray): IndexArray {
  if (values instanceof BigUint64Array) return Float64Array.from(values, Number);
  return values as IndexArray;
}

function makeBatch(start: number, indptr: Float64Array, indices: IndexArray, values: NumericArray): RowBatch {
  return {
    start,
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

/**
 * A lazily opened SCDL archive. Opening reads header.sch, checks the array files' sizes
 * (C5) and the ends of row_ptr, and loads the feature indices' small metadata; rows,
 * parquet tables and neighbors are read on demand.
 */
export class ScdlReader implements FormatReader {
  readonly format = FORMAT;
  private rowPtrCache: Float64Array | undefined;
  private rowPtrCacheTried = false;
  private maxColumnCache: number | undefined;
  private syncCapable: boolean | undefined;
  private reuseBuffers: { indices: ReuseBuffer; values: ReuseBuffer } | undefined;

  private constructor(
    readonly directory: DirectorySource,
    readonly header: ScdlHeader,
    readonly headerSize: number,
    /** Every file of the archive, relative paths, sorted. */
    readonly files: readonly string[],
    readonly data: RawArray,
    readonly rowPtr: RawArray,
    readonly colPtr: RawArray,
    /** Gene (variable) feature index, when the archive has one (`var_features/`, or the older `features/`). */
    readonly varIndex: FeatureIndexType | undefined,
    /** Cell (observation) feature index. */
    readonly obsIndex: FeatureIndexType | undefined,
    /** Things that did not stop reading: newer minor version, stale metadata.json, old layouts. */
    readonly warnings: string[],
    private readonly options: ScdlOpenOptions,
  ) {}

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

  static async open(directory: DirectorySource, options: ScdlOpenOptions = {}): Promise<ScdlReader> {
    const headerSource = await openRequired(directory, HEADER_FILE, options);
    const headerBytes = await readExact(headerSource, 0, Math.min(headerSource.size, 16 * 1024 * 1024), {
      ...options,
      format: FORMAT,
      what: HEADER_FILE,
    });
    if (headerSource.size > 16 * 1024 * 1024) {
      throw new FormatError(
        'InvalidValue',
        `header.sch is ${headerSource.size} bytes, more than any header needs`,
        { file: HEADER_FILE, offset: 0, format: FORMAT },
      );
    }
    const header = parseHeader(new Uint8Array(headerBytes));
    const warnings = [...header.warnings];
    const arrays = await openMatrixArrays(directory, header, options);
    await checkRowPtrEnds(arrays.rowPtr, arrays.data.length, options);
    const files = await directory.list();

    const varDescriptor = header.featureIndices.find((f) => f.name === 'var_features');
    const obsDescriptor = header.featureIndices.find((f) => f.name === 'obs_features');
    let varIndex: FeatureIndexType | undefined;
    let obsIndex: FeatureIndexType | undefined;
    if (varDescriptor || files.some((f) => f.startsWith('var_features/'))) {
      varIndex = await FeatureIndex.load(directory, 'var_features', varDescriptor, files, options);
    } else if (files.some((f) => f.startsWith('features/'))) {
      // Archives from before the var/obs split kept one feature index in features/.
      varIndex = await FeatureIndex.load(directory, 'features', undefined, files, options).catch((error) => {
        warnings.push(`features/ is unreadable: ${(error as Error).message}`);
        return undefined;
      });
      if (varIndex) warnings.push('features/ is an older layout; read as the var feature index');
    }
    if (obsDescriptor || files.some((f) => f.startsWith('obs_features/'))) {
      obsIndex = await FeatureIndex.load(directory, 'obs_features', obsDescriptor, files, options);
    }
    for (const index of [varIndex, obsIndex]) if (index) warnings.push(...index.warnings);
    const rows = arrays.rowPtr.length - 1;
    const metadataRows = await readMetadataRows(directory, files, options);
    if (metadataRows !== undefined && metadataRows !== rows) {
      warnings.push(
        `metadata.json says num_rows ${metadataRows}, row_ptr has ${rows} rows (C7: row_ptr wins)`,
      );
    }
    return new ScdlReader(
      directory,
      header,
      headerSource.size,
      files,
      arrays.data,
      arrays.rowPtr,
      arrays.colPtr,
      varIndex,
      obsIndex,
      warnings,
      options,
    );
  }

  /** row_ptr[i], row_ptr[i+1] of row i, from the cache or two on-demand entries. */
  async rowExtent(i: number, options?: ReadOptions): Promise<[number, number]> {
    this.checkRow(i);
    const cache = this.rowPtrCache ?? (await this.loadRowPtr(options));
    if (cache) return [cache[i], cache[i + 1]];
    const pair = await this.rowPtr.slice(i, i + 2, options);
    const a = Number(pair[0]);
    const b = Number(pair[1]);
    this.checkExtent(i, a, b);
    return [a, b];
  }

  private checkRow(i: number): void {
    if (!(Number.isSafeInteger(i) && i >= 0 && i < this.numRows)) {
      throw new FormatError('OutOfBounds', `row ${i} does not exist (the archive has ${this.numRows} rows)`, {
        format: FORMAT,
      });
    }
  }

  private checkExtent(i: number, a: number, b: number): void {
    if (b < a) {
      throw new FormatError('InvalidValue', `row_ptr decreases at row ${i} (${a} → ${b})`, {
        file: this.rowPtr.file,
        offset: (i + 1) * this.rowPtr.itemSize,
        format: FORMAT,
      });
    }
    if (b > this.nnz) {
      throw new FormatError('OutOfBounds', `row_ptr[${i + 1}] = ${b} is past nnz ${this.nnz}`, {
        file: this.rowPtr.file,
        offset: (i + 1) * this.rowPtr.itemSize,
        format: FORMAT,
      });
    }
  }

  /** Loads row_ptr whole when it fits the cache budget, checking it is non-decreasing. */
  private async loadRowPtr(options?: ReadOptions): Promise<Float64Array | undefined> {
    if (this.rowPtrCacheTried) return this.rowPtrCache;
    this.rowPtrCacheTried = true;
    const budget = this.options.rowPtrCacheBytes ?? DEFAULT_ROW_PTR_CACHE;
    if (this.rowPtr.length * 8 > budget) return undefined;
    return this.cacheRowPtr(await this.rowPtr.slice(0, this.rowPtr.length, options));
  }

  /** loadRowPtr without an await: undefined when row_ptr is over the budget (or cannot be read synchronously). */
  private loadRowPtrSync(): Float64Array | undefined {
    if (this.rowPtrCacheTried) return this.rowPtrCache;
    const budget = this.options.rowPtrCacheBytes ?? DEFAULT_ROW_PTR_CACHE;
    if (this.rowPtr.length * 8 > budget) {
      this.rowPtrCacheTried = true;
      return undefined;
    }
    const raw = this.rowPtr.sliceSync(0, this.rowPtr.length);
    if (!raw) return undefined;
    this.rowPtrCacheTried = true;
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
   * data.npy. With `reuse: true` the row is read into two buffers shared by every reusing
   * call (no new memory per row, the fastest random access): its arrays are then valid
   * only until the next `row(…, { reuse: true })`, so copy what you keep.
   */
  async row(i: number, options?: ReadOptions & { reuse?: boolean }): Promise<SparseRow> {
    // Sources with a synchronous read (Node files, memory) take the shared sync path.
    const fast = this.readRowSync(i, options?.reuse);
    if (fast) return fast;
    const [a, b] = await this.rowExtent(i, options);
    const indices = indexArray(await this.colPtr.slice(a, b, options));
    const values = await this.data.slice(a, b, options);
    return { indices, values };
  }

  /**
   * `row(i)` without a promise, for sources with a synchronous read (local files through
   * the Node opener, in-memory archives): the same checks, results and FormatErrors, less
   * per-call overhead in tight loops. `reuse` as for `row`. Throws SourceError when the
   * archive's sources offer no synchronous read (browser files, HTTP): use `row` there.
   */
  rowSync(i: number, options?: { reuse?: boolean }): SparseRow {
    const row = this.readRowSync(i, options?.reuse);
    if (row) return row;
    throw new SourceError(
      `${this.directory.name}: the archive's sources offer no synchronous read; use row() instead`,
      this.directory.name,
    );
  }

  /** Whether `rowSync` can be used (every matrix array's source reads synchronously). */
  get canReadSync(): boolean {
    this.syncCapable ??= this.rowPtr.canReadSync && this.colPtr.canReadSync && this.data.canReadSync;
    return this.syncCapable;
  }

  /** The row read with no awaits, shared by row and rowSync; undefined when a source cannot read synchronously. */
  private readRowSync(i: number, reuseOption: boolean | undefined): SparseRow | undefined {
    if (!(this.syncCapable ?? this.canReadSync)) return undefined;
    this.checkRow(i);
    const cache = this.rowPtrCache ?? this.loadRowPtrSync();
    let a: number;
    let b: number;
    if (cache) {
      a = cache[i];
      b = cache[i + 1];
    } else {
      const pair = this.rowPtr.sliceSync(i, i + 2) as NumericArray;
      a = Number(pair[0]);
      b = Number(pair[1]);
      this.checkExtent(i, a, b);
    }
    const reuse = reuseOption
      ? (this.reuseBuffers ??= {
          indices: { buffer: new ArrayBuffer(0) },
          values: { buffer: new ArrayBuffer(0) },
        })
      : undefined;
    const indices = this.colPtr.sliceSync(a, b, reuse?.indices) as NumericArray;
    const values = this.data.sliceSync(a, b, reuse?.values) as NumericArray;
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
      throw new FormatError('OutOfBounds', `rows [${i0}, ${i1}) are not inside the ${this.numRows} rows`, {
        format: FORMAT,
      });
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
    const indices = indexArray(
      reuse
        ? await this.colPtr.sliceInto(a, b, reuse.indices, options)
        : await this.colPtr.slice(a, b, options),
    );
    const values = reuse
      ? await this.data.sliceInto(a, b, reuse.values, options)
      : await this.data.slice(a, b, options);
    const rel = new Float64Array(ptr.length);
    for (let k = 0; k < ptr.length; k++) rel[k] = ptr[k] - a;
    return makeBatch(i0, rel, indices, values);
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
        throw new FormatError(
          'OutOfBounds',
          `row ${i} has column index ${c}, its block has ${width} columns`,
          { file: this.colPtr.file, format: FORMAT },
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
    const names = ['neighbor_indptr.npy', 'neighbor_indices.npy', 'neighbor_values.npy'] as const;
    if (!this.files.includes(names[0])) return undefined;
    const [ptrSource, idxSource, valSource] = await Promise.all(
      names.map((n) => openRequired(this.directory, n, options)),
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
        throw new FormatError('CountMismatch', `${file} is ${source.size} bytes, not a multiple of ${item}`, {
          file,
          offset: source.size,
          format: FORMAT,
        });
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
      throw new FormatError(
        'CountMismatch',
        `neighbor_indices has ${idx.length} entries, neighbor_values ${val.length}`,
        { file: names[2], format: FORMAT },
      );
    }
    const rows = Math.max(0, ptr.length - 1);
    return {
      rows,
      nnz: idx.length,
      async row(i, readOptions) {
        if (!(Number.isSafeInteger(i) && i >= 0 && i < rows)) {
          throw new FormatError('OutOfBounds', `neighbor row ${i} does not exist (${rows} rows)`, {
            file: names[0],
            format: FORMAT,
          });
        }
        const pair = (await ptr.slice(i, i + 2, readOptions)) as BigUint64Array;
        const a = Number(pair[0]);
        const b = Number(pair[1]);
        if (b < a)
          throw new FormatError('InvalidValue', `neighbor_indptr decreases at row ${i}`, {
            file: names[0],
            offset: (i + 1) * 8,
            format: FORMAT,
          });
        return {
          indices: (await idx.slice(a, b, readOptions)) as Uint32Array,
          values: (await val.slice(a, b, readOptions)) as Float32Array,
        };
      },
    };
  }

  /** metadata.json parsed (its num_rows can be stale, C7), or undefined when absent or unreadable. */
  async metadataJson(options?: ReadOptions): Promise<unknown> {
    return readSmallJson(this.directory, this.files, 'metadata.json', options);
  }

  /** version.json: the writing package's version ("0.1.3"), not the schema version. */
  async versionJson(options?: ReadOptions): Promise<unknown> {
    return readSmallJson(this.directory, this.files, 'version.json', options);
  }

  async close(): Promise<void> {
    await this.options.onClose?.();
  }
}

async function readSmallJson(
  directory: DirectorySource,
  files: readonly string[],
  file: string,
  options?: ReadOptions,
): Promise<unknown> {
  if (!files.includes(file)) return undefined;
  const source = await directory.open(file);
  if (source.size > 16 * 1024 * 1024) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(await readExact(source, 0, source.size, options)));
  } catch {
    return undefined;
  }
}

/** Opens an archive from any directory source (Node folder, dropped browser folder, memory). */
export function openScdl(directory: DirectorySource, options: ScdlOpenOptions = {}): Promise<ScdlReader> {
  return ScdlReader.open(directory, options);
}

const REQUIRED = ['DATA', 'ROWPTR', 'COLPTR'] as const;

/** Finds DATA/ROWPTR/COLPTR, checks their dtypes and each file's size against length × itemsize (C5). */
export async function openMatrixArrays(
  directory: DirectorySource,
  header: ScdlHeader,
  options?: ReadOptions,
): Promise<{ data: RawArray; rowPtr: RawArray; colPtr: RawArray }> {
  for (const name of REQUIRED) {
    const d = header.arrays.find((a) => a.name === name);
    if (!d)
      throw new FormatError('InvalidValue', `header.sch has no ${name} array`, {
        file: HEADER_FILE,
        offset: 16,
        format: FORMAT,
      });
    if (!isNumericDType(d.dtype)) {
      throw new FormatError(
        'UnsupportedFeature',
        `${name} has dtype ${d.dtype}; only numeric arrays are supported`,
        {
          file: HEADER_FILE,
          offset: d.fields.dtype.offset,
          format: FORMAT,
        },
      );
    }
    if (name !== 'DATA' && !isUnsignedDType(d.dtype)) {
      throw new FormatError(
        'InvalidValue',
        `${name} has dtype ${d.dtype}; index arrays are unsigned integers`,
        {
          file: HEADER_FILE,
          offset: d.fields.dtype.offset,
          format: FORMAT,
        },
      );
    }
  }
  const out: Partial<Record<(typeof REQUIRED)[number], RawArray>> = {};
  const slab = new Slab();
  for (const d of header.arrays) {
    if (!(REQUIRED as readonly string[]).includes(d.name)) continue;
    const file = arrayFile(d.name);
    const source = await openRequired(directory, file, options);
    const dtype = d.dtype as ScdlNumericDType;
    checkArraySize(file, source.size, d.length, ITEM_SIZE[dtype]);
    out[d.name as (typeof REQUIRED)[number]] = new RawArray(d, dtype, file, source, slab);
  }
  const { DATA: data, ROWPTR: rowPtr, COLPTR: colPtr } = out as Record<(typeof REQUIRED)[number], RawArray>;
  if (rowPtr.length < 1) {
    throw new FormatError('CountMismatch', 'ROWPTR has 0 entries; it needs rows + 1 ≥ 1', {
      file: HEADER_FILE,
      offset: rowPtr.descriptor.fields.length.offset,
      format: FORMAT,
    });
  }
  if (colPtr.length !== data.length) {
    throw new FormatError(
      'CountMismatch',
      `COLPTR has ${colPtr.length} entries but DATA has ${data.length}`,
      {
        file: HEADER_FILE,
        offset: colPtr.descriptor.fields.length.offset,
        format: FORMAT,
      },
    );
  }
  return { data, rowPtr, colPtr };
}

/** C5: an array file holds exactly length × itemsize bytes; shorter is Truncated, longer CountMismatch. */
export function checkArraySize(file: string, size: number, length: number, itemSize: number): void {
  const expected = length * itemSize;
  if (size < expected) {
    throw new FormatError(
      'Truncated',
      `${file} is ${size} bytes; ${length} entries of ${itemSize} bytes need ${expected}`,
      { file, offset: size, format: FORMAT },
    );
  }
  if (size > expected) {
    throw new FormatError(
      'CountMismatch',
      `${file} is ${size} bytes, more than ${length} entries of ${itemSize} bytes (${expected})`,
      {
        file,
        offset: expected,
        format: FORMAT,
      },
    );
  }
}

/** row_ptr starts at 0 and ends at nnz (C5): two small reads at open. */
export async function checkRowPtrEnds(rowPtr: RawArray, nnz: number, options?: ReadOptions): Promise<void> {
  const first = Number((await rowPtr.slice(0, 1, options))[0]);
  if (first !== 0) {
    throw new FormatError('InvalidValue', `row_ptr[0] is ${first}, must be 0`, {
      file: rowPtr.file,
      offset: 0,
      format: FORMAT,
    });
  }
  const lastIndex = rowPtr.length - 1;
  const last = Number((await rowPtr.slice(lastIndex, lastIndex + 1, options))[0]);
  if (last !== nnz) {
    throw new FormatError('CountMismatch', `row_ptr ends at ${last}, DATA has ${nnz} entries`, {
      file: rowPtr.file,
      offset: lastIndex * rowPtr.itemSize,
      format: FORMAT,
    });
  }
}

async function readMetadataRows(
  directory: DirectorySource,
  files: readonly string[],
  options?: ReadOptions,
): Promise<number | undefined> {
  const parsed = (await readSmallJson(directory, files, 'metadata.json', options)) as
    | { num_rows?: unknown }
    | undefined;
  return typeof parsed?.num_rows === 'number' ? parsed.num_rows : undefined;
}

export type { RawArray };
