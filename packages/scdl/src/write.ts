import {
  concatBytes,
  FormatError,
  MemoryDirectory,
  maxUnsigned,
  encodeFloat16,
  numberToFloat16,
  throwIfAborted,
} from '@binscope/core';
import type { ProgressCallback } from '@binscope/core';
import { featureTableParquet } from './feature-parquet.js';
import {
  ARRAY_FILES,
  FORMAT,
  HEADER_FILE,
  type HeaderContent,
  ITEM_SIZE,
  PACKAGE_VERSION,
  type ScdlNumericDType,
  serializeHeader,
} from './header.js';
import { featureTableFile } from './features.js';
import { int64Npy, unicodeScalarNpy } from './npy.js';

/** Data element types a writer can store (C10: float32 unless asked otherwise). */
export type ScdlDataDType = ScdlNumericDType;
export type ScdlIndexDType = 'uint8' | 'uint16' | 'uint32' | 'uint64';

/** Integers as JS numbers, or 64-bit typed arrays (int64 indptr from HDF5). */
export type IntegerArrayLike = ArrayLike<number> | BigInt64Array | BigUint64Array;
/** Matrix values: any numeric array; bigint arrays for 64-bit integer data. */
export type NumericArrayLike = ArrayLike<number> | BigInt64Array | BigUint64Array;

/**
 * Rows in CSR form. `indptr` has one entry more than there are rows; it may be a slice of
 * a larger indptr (start at any value): only differences count. `indices` and `data` hold
 * exactly `indptr[last] - indptr[0]` entries.
 */
export interface CsrChunk {
  indptr: IntegerArrayLike;
  indices: IntegerArrayLike;
  data: NumericArrayLike;
  /**
   * The largest value in `indices` (−1 when empty), for a caller that has already checked
   * every index is a non-negative integer, as the .h5ad converter does while narrowing
   * them: the writer then checks this bound against numCols instead of scanning the
   * indices again. It must be exact; a wrong value makes an invalid archive.
   */
  maxIndex?: number;
}

export interface CsrMatrix extends CsrChunk {
  /** The matrix's column count (shape[1]); decides col_ptr's dtype (C10). */
  numCols?: number;
}

/** Arrow's names for the parquet column types pyarrow writes from numpy dtypes (C11). */
export type FeatureColumnType =
  | 'string'
  | 'bool'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'float16'
  | 'float32'
  | 'float64';

export type FeatureValues =
  | readonly (string | null)[]
  | readonly (number | null)[]
  | readonly (boolean | null)[]
  | readonly (bigint | null)[]
  | Int8Array
  | Int16Array
  | Int32Array
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** One named column of a feature table, stored as a parquet column. */
export interface FeatureColumn {
  name: string;
  values: FeatureValues;
  /**
   * Parquet type. Inferred when absent: a typed array keeps its element type (Uint32Array →
   * uint32, BigUint64Array → uint64, ...: numpy's dtype, as pyarrow stores it); strings →
   * string, booleans → bool, bigints → int64, plain numbers → int64 when all are integers,
   * else float64 (pandas' defaults). Give it explicitly to be exact.
   */
  type?: FeatureColumnType;
}

/**
 * One block of a feature index (C6, C11): the input it came from (`label`, listed in
 * labels.json), how many matrix rows it covers, and its table. For `var`, the table has
 * one row per feature (gene) of those rows' column space; for `obs`, one row per cell.
 */
export interface FeatureBlock {
  label: string;
  rows: number;
  columns: FeatureColumn[];
}

/** Neighbor graph in CSR form (C13), written as neighbor_indptr/indices/values.npy, not in the header. */
export interface NeighborGraph {
  indptr: IntegerArrayLike;
  indices: IntegerArrayLike;
  values: NumericArrayLike;
}

export interface FeatureIndices {
  /** Gene (variable) blocks; each covers a run of rows, in order. */
  var?: FeatureBlock[];
  /** Cell (observation) blocks; each covers a run of rows, in order. */
  obs?: FeatureBlock[];
  neighbors?: NeighborGraph;
}

export interface ScdlWriteOptions extends FeatureIndices {
  /** Element type of data.npy; values are cast like numpy's astype. Default float32. */
  dataDType?: ScdlDataDType;
  /**
   * The column count (shape[1], or the widest block for ragged input). Lets col_ptr be
   * written in its final dtype as rows stream in; otherwise it is taken from the var blocks
   * or the largest index at finish.
   */
  numCols?: number;
  /** Total non-zeros, when known up front: row_ptr is then written in its final dtype directly. */
  nnz?: number;
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
}

export interface ScdlWriteResult {
  rows: number;
  nnz: number;
  numCols: number;
  dataDType: ScdlDataDType;
  rowPtrDType: ScdlIndexDType;
  colPtrDType: ScdlIndexDType;
  /** Every file written, relative to the archive root. */
  files: string[];
  header: Uint8Array;
}

/** An open appendable file in an archive being written. */
export interface ArchiveStream {
  write(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where the writer puts an archive's files: memory (browsers, tests), a Node temp folder
 * renamed into place on success (`@binscope/scdl/node`), or anything else (a zip, the File
 * System Access API). Paths are relative POSIX paths.
 */
export interface ArchiveSink {
  /** Writes a whole small file (header, JSON, parquet, .npy). */
  writeFile(path: string, bytes: Uint8Array): Promise<void>;
  /** Creates (or truncates) a file to append a large array to. */
  createStream(path: string): Promise<ArchiveStream>;
  /** Reads back part of a file this sink wrote and closed (a wide temp array narrowed at finish). */
  readBack(path: string, offset: number, length: number): Promise<Uint8Array>;
  /** Deletes a file this sink wrote (the wide temps). */
  remove(path: string): Promise<void>;
}

/** Keeps an archive in memory; `directory()` gives it to `openScdl` without touching a disk. */
export class MemoryArchiveSink implements ArchiveSink {
  private readonly files = new Map<string, Uint8Array[]>();

  async writeFile(path: string, bytes: Uint8Array): Promise<void> {
    this.files.set(path, [new Uint8Array(bytes)]);
  }
  async createStream(path: string): Promise<ArchiveStream> {
    const chunks: Uint8Array[] = [];
    this.files.set(path, chunks);
    return {
      write: async (bytes) => {
        chunks.push(new Uint8Array(bytes));
      },
      close: async () => {},
    };
  }
  async readBack(path: string, offset: number, length: number): Promise<Uint8Array> {
    return this.file(path).subarray(offset, offset + length);
  }
  async remove(path: string): Promise<void> {
    this.files.delete(path);
  }
  /** One file's bytes (joined once, then kept joined). */
  file(path: string): Uint8Array {
    const chunks = this.files.get(path);
    if (!chunks) throw new Error(`${path}: not written`);
    if (chunks.length !== 1) chunks.splice(0, chunks.length, concatBytes(chunks));
    return chunks[0];
  }
  paths(): string[] {
    return [...this.files.keys()].sort();
  }
  /** The archive as a directory source for `openScdl`. */
  directory(name = 'memory'): MemoryDirectory {
    return new MemoryDirectory(new Map(this.paths().map((p) => [p, this.file(p)])), name);
  }
}

/** The smallest unsigned dtype holding `max`, as upstream picks for row_ptr (nnz) and col_ptr (n_cols − 1) (C10). */
export function smallestUnsignedDType(max: number): ScdlIndexDType {
  if (max <= 0xff) return 'uint8';
  if (max <= 0xffff) return 'uint16';
  if (max <= 0xffffffff) return 'uint32';
  return 'uint64';
}

function writerError(code: 'InvalidValue' | 'CountMismatch' | 'OutOfBounds', message: string): FormatError {
  return new FormatError(code, message, { format: FORMAT });
}

const WIDE_ROW_PTR = `${ARRAY_FILES.ROWPTR}.wide-tmp`;
const WIDE_COL_PTR = `${ARRAY_FILES.COLPTR}.wide-tmp`;
/** Entries converted per step when narrowing a wide temp (bounded memory). */
const NARROW_CHUNK = 1 << 20;

/**
 * Writes an SCDL archive row chunk by row chunk, in bounded memory: `appendRows` as often
 * as needed, then `finish`. The matrix arrays stream straight to their files; when the
 * final index dtypes are not known up front (`nnz`, `numCols`), row_ptr / col_ptr stream to
 * wide temps that `finish` narrows.
 */
export class ScdlWriter {
  readonly dataDType: ScdlDataDType;
  private rowCount = 0;
  private nnzCount = 0;
  private maxIndex = -1;
  private readonly declaredCols: number | undefined;
  private readonly rowPtrFinal: ScdlIndexDType | undefined;
  private readonly colPtrFinal: ScdlIndexDType | undefined;
  private streams: { data: ArchiveStream; rowPtr: ArchiveStream; colPtr: ArchiveStream } | undefined;
  private state: 'open' | 'finished' | 'aborted' = 'open';
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: ArchiveSink,
    private readonly options: ScdlWriteOptions = {},
  ) {
    this.dataDType = options.dataDType ?? 'float32';
    if (!(this.dataDType in ITEM_SIZE))
      throw writerError(
        'InvalidValue',
        `data dtype ${String(this.dataDType)} is not one of ${Object.keys(ITEM_SIZE).join(', ')}`,
      );
    const varCols = options.var?.length ? Math.max(...options.var.map(blockLength)) : undefined;
    this.declaredCols = options.numCols ?? varCols;
    if (
      this.declaredCols !== undefined &&
      !(Number.isSafeInteger(this.declaredCols) && this.declaredCols >= 0)
    ) {
      throw writerError('InvalidValue', `numCols ${this.declaredCols} is not a count`);
    }
    if (options.nnz !== undefined && !(Number.isSafeInteger(options.nnz) && options.nnz >= 0)) {
      throw writerError('InvalidValue', `nnz ${options.nnz} is not a count`);
    }
    this.rowPtrFinal = options.nnz === undefined ? undefined : smallestUnsignedDType(options.nnz);
    this.colPtrFinal =
      this.declaredCols === undefined ? undefined : smallestUnsignedDType(Math.max(0, this.declaredCols - 1));
  }

  get rows(): number {
    return this.rowCount;
  }
  get nnz(): number {
    return this.nnzCount;
  }

  private async open(): Promise<NonNullable<ScdlWriter['streams']>> {
    if (this.streams) return this.streams;
    const data = await this.sink.createStream(ARRAY_FILES.DATA);
    const rowPtr = await this.sink.createStream(this.rowPtrFinal ? ARRAY_FILES.ROWPTR : WIDE_ROW_PTR);
    const colPtr = await this.sink.createStream(this.colPtrFinal ? ARRAY_FILES.COLPTR : WIDE_COL_PTR);
    this.streams = { data, rowPtr, colPtr };
    await rowPtr.write(encodeUnsigned([0], this.rowPtrFinal ?? 'uint64'));
    return this.streams;
  }

  /** Appends rows (calls are serialised, so it is safe not to await each one before the next). */
  appendRows(chunk: CsrChunk): Promise<void> {
    const run = this.pending.then(() => this.append(chunk));
    this.pending = run.catch(() => {});
    return run;
  }

  private async append(chunk: CsrChunk): Promise<void> {
    if (this.state !== 'open')
      throw writerError('InvalidValue', `appendRows after ${this.state === 'finished' ? 'finish' : 'abort'}`);
    throwIfAborted(this.options.signal);
    const { indptr, indices, data } = chunk;
    const rows = indptr.length - 1;
    if (rows < 0) throw writerError('CountMismatch', 'indptr must have at least one entry (rows + 1)');
    const base = toNumber(indptr[0]);
    const rowPtr = new Float64Array(rows);
    let prev = base;
    for (let r = 0; r < rows; r++) {
      const v = toNumber(indptr[r + 1]);
      if (!(v >= prev))
        throw writerError('InvalidValue', `indptr decreases at row ${this.rowCount + r} (${prev} → ${v})`);
      rowPtr[r] = this.nnzCount + (v - base);
      prev = v;
    }
    const chunkNnz = prev - base;
    if (indices.length !== chunkNnz || data.length !== chunkNnz) {
      throw writerError(
        'CountMismatch',
        `indptr says ${chunkNnz} non-zeros but indices has ${indices.length} and data ${data.length}`,
      );
    }
    const total = this.nnzCount + chunkNnz;
    if (this.options.nnz !== undefined && total > this.options.nnz) {
      throw writerError('CountMismatch', `more non-zeros than the declared nnz ${this.options.nnz}`);
    }
    const maxIndex =
      chunk.maxIndex === undefined
        ? checkIndices(indices, this.declaredCols, this.rowCount)
        : checkMaxIndex(chunk.maxIndex, chunkNnz, this.declaredCols, this.rowCount);
    if (maxIndex > this.maxIndex) this.maxIndex = maxIndex;
    if (this.colPtrFinal === undefined && maxIndex > 0xffffffff) {
      throw writerError('OutOfBounds', `column index ${maxIndex} needs numCols to be given up front`);
    }
    const streams = await this.open();
    if (chunkNnz > 0) {
      await streams.data.write(encodeData(data, this.dataDType));
      await streams.colPtr.write(encodeUnsigned(indices, this.colPtrFinal ?? 'uint32'));
    }
    if (rows > 0) await streams.rowPtr.write(encodeUnsigned(rowPtr, this.rowPtrFinal ?? 'uint64'));
    this.rowCount += rows;
    this.nnzCount = total;
    this.options.onProgress?.({ phase: 'rows', done: this.rowCount, unit: 'items' });
  }

  /** Dense rows (each row an array of numCols values); zeros are dropped, NaN kept (as scipy does). */
  appendDenseRows(rows: ArrayLike<ArrayLike<number>>): Promise<void> {
    return this.appendRows(denseToCsr(rows));
  }

  /**
   * Writes row_ptr/col_ptr in their final dtypes, the feature indices, metadata.json,
   * version.json and header.sch. Blocks given here replace those given to the constructor.
   */
  async finish(features: FeatureIndices = {}): Promise<ScdlWriteResult> {
    await this.pending;
    if (this.state !== 'open')
      throw writerError('InvalidValue', `finish after ${this.state === 'finished' ? 'finish' : 'abort'}`);
    throwIfAborted(this.options.signal);
    const streams = await this.open();
    await streams.data.close();
    await streams.rowPtr.close();
    await streams.colPtr.close();
    this.state = 'finished';
    const sink = this.sink;
    const nnz = this.nnzCount;
    const rows = this.rowCount;
    if (this.options.nnz !== undefined && nnz !== this.options.nnz) {
      throw writerError(
        'CountMismatch',
        `declared nnz ${this.options.nnz} but ${nnz} non-zeros were written`,
      );
    }
    const varBlocks = features.var ?? this.options.var;
    const obsBlocks = features.obs ?? this.options.obs;
    const varCols = varBlocks?.length ? Math.max(...varBlocks.map(blockLength)) : undefined;
    const numCols = this.declaredCols ?? varCols ?? this.maxIndex + 1;
    if (this.maxIndex >= numCols) {
      throw writerError(
        'OutOfBounds',
        `column index ${this.maxIndex} is not below the column count ${numCols}`,
      );
    }
    const rowPtrDType = this.rowPtrFinal ?? smallestUnsignedDType(nnz);
    const colPtrDType = this.colPtrFinal ?? smallestUnsignedDType(Math.max(0, numCols - 1));
    if (!this.rowPtrFinal)
      await narrow(sink, WIDE_ROW_PTR, 'uint64', ARRAY_FILES.ROWPTR, rowPtrDType, rows + 1);
    if (!this.colPtrFinal) await narrow(sink, WIDE_COL_PTR, 'uint32', ARRAY_FILES.COLPTR, colPtrDType, nnz);

    const files = [ARRAY_FILES.DATA, ARRAY_FILES.ROWPTR, ARRAY_FILES.COLPTR];
    const header: HeaderContent = {
      arrays: [
        { name: 'DATA', length: nnz, dtype: this.dataDType },
        { name: 'ROWPTR', length: rows + 1, dtype: rowPtrDType },
        { name: 'COLPTR', length: nnz, dtype: colPtrDType },
      ],
      featureIndices: [],
    };
    for (const [dir, blocks] of [
      ['var_features', varBlocks],
      ['obs_features', obsBlocks],
    ] as const) {
      if (!blocks) continue;
      const written = await writeFeatureIndex(sink, dir, blocks, rows, dir === 'obs_features');
      files.push(...written);
      header.featureIndices.push({ name: dir, length: rows, dtype: 'string', files: written });
    }
    const neighbors = features.neighbors ?? this.options.neighbors;
    if (neighbors) files.push(...(await writeNeighbors(sink, neighbors, rows)));
    const encoder = new TextEncoder();
    await sink.writeFile('metadata.json', encoder.encode(`{"num_rows": ${rows}}`));
    await sink.writeFile('version.json', encoder.encode(JSON.stringify(PACKAGE_VERSION)));
    const headerBytes = serializeHeader(header);
    await sink.writeFile(HEADER_FILE, headerBytes);
    files.push('metadata.json', 'version.json', HEADER_FILE);
    return {
      rows,
      nnz,
      numCols,
      dataDType: this.dataDType,
      rowPtrDType,
      colPtrDType,
      files: files.sort(),
      header: headerBytes,
    };
  }

  /** Stops writing; the sink's owner discards what was written (the Node writer deletes its temp folder). */
  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    await this.pending;
    if (this.streams) {
      await this.streams.data.close().catch(() => {});
      await this.streams.rowPtr.close().catch(() => {});
      await this.streams.colPtr.close().catch(() => {});
    }
  }
}

/** Writes a whole CSR matrix (and optional feature indices) to a sink in one call. */
export async function writeScdl(
  sink: ArchiveSink,
  matrix: CsrMatrix,
  options: ScdlWriteOptions = {},
): Promise<ScdlWriteResult> {
  const nnz = toNumber(matrix.indptr[matrix.indptr.length - 1] ?? 0) - toNumber(matrix.indptr[0] ?? 0);
  const writer = new ScdlWriter(sink, {
    ...options,
    numCols: options.numCols ?? matrix.numCols,
    nnz: options.nnz ?? (matrix.indptr.length > 0 ? nnz : undefined),
  });
  try {
    if (matrix.indptr.length > 0) await writer.appendRows(matrix);
    return await writer.finish();
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/** Writes an archive into memory: browsers (then zip or save it) and tests. */
export async function writeScdlToMemory(
  matrix: CsrMatrix,
  options: ScdlWriteOptions = {},
): Promise<{ directory: MemoryDirectory; sink: MemoryArchiveSink; result: ScdlWriteResult }> {
  const sink = new MemoryArchiveSink();
  const result = await writeScdl(sink, matrix, options);
  return { directory: sink.directory(), sink, result };
}

/** Dense rows → CSR (zeros dropped, NaN kept, as scipy.sparse.csr_matrix does). */
export function denseToCsr(rows: ArrayLike<ArrayLike<number>>, numCols?: number): CsrMatrix {
  const width = numCols ?? (rows.length ? rows[0].length : 0);
  const indptr = new Float64Array(rows.length + 1);
  const indices: number[] = [];
  const data: number[] = [];
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    if (row.length !== width)
      throw writerError('CountMismatch', `dense row ${r} has ${row.length} values, expected ${width}`);
    for (let c = 0; c < row.length; c++) {
      const v = row[c];
      if (v !== 0) {
        indices.push(c);
        data.push(v);
      }
    }
    indptr[r + 1] = indices.length;
  }
  return { indptr, indices, data: Float64Array.from(data), numCols: width };
}

function blockLength(block: FeatureBlock): number {
  let n: number | undefined;
  for (const column of block.columns) {
    if (n !== undefined && column.values.length !== n) {
      throw writerError(
        'CountMismatch',
        `feature block "${block.label}": column "${column.name}" has ${column.values.length} values, others ${n}`,
      );
    }
    n = column.values.length;
  }
  return n ?? 0;
}

function toNumber(v: number | bigint): number {
  return typeof v === 'bigint' ? Number(v) : v;
}

/**
 * Checks every column index is an integer in [0, numCols) (any non-negative integer when
 * numCols is unknown) and returns the largest, or −1 when there are none. Integer typed
 * arrays are scanned once as unsigned (a negative signed value reads as ≥ 2^(bits−1)), and
 * not at all when their type cannot exceed numCols; then the type's largest value, still
 * below numCols, is returned as the bound.
 */
function checkIndices(indices: IntegerArrayLike, numCols: number | undefined, firstRow: number): number {
  const limit = numCols ?? Number.POSITIVE_INFINITY;
  if (indices.length === 0) return -1;
  const unsigned = unsignedView(indices);
  if (unsigned) {
    const { view, typeMax, signed } = unsigned;
    if (!signed && numCols !== undefined && typeMax < numCols) return typeMax;
    const max = maxUnsigned(view);
    // A signed value read as unsigned is negative from 2^(bits−1) on.
    const bound = signed ? Math.min(limit, (typeMax + 1) / 2) : limit;
    if (max < bound) return max;
    throw badIndex(firstBad(indices as ArrayLike<number>, limit), numCols, firstRow);
  }
  let max = -1;
  if (indices instanceof BigInt64Array || indices instanceof BigUint64Array) {
    for (let i = 0; i < indices.length; i++) {
      const v = Number(indices[i]);
      if (!(v >= 0 && v < limit)) throw badIndex(v, numCols, firstRow);
      if (v > max) max = v;
    }
    return max;
  }
  const arr = indices as ArrayLike<number>;
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    if (!(v >= 0 && v < limit && Math.floor(v) === v)) throw badIndex(v, numCols, firstRow);
    if (v > max) max = v;
  }
  return max;
}

/** Integer typed arrays as an unsigned view of the same bytes. */
function unsignedView(
  a: IntegerArrayLike,
): { view: Uint8Array | Uint16Array | Uint32Array; typeMax: number; signed: boolean } | undefined {
  if (a instanceof Uint16Array) return { view: a, typeMax: 0xffff, signed: false };
  if (a instanceof Uint32Array) return { view: a, typeMax: 0xffffffff, signed: false };
  if (a instanceof Uint8Array) return { view: a, typeMax: 0xff, signed: false };
  if (a instanceof Int32Array)
    return { view: new Uint32Array(a.buffer, a.byteOffset, a.length), typeMax: 0xffffffff, signed: true };
  if (a instanceof Int16Array)
    return { view: new Uint16Array(a.buffer, a.byteOffset, a.length), typeMax: 0xffff, signed: true };
  if (a instanceof Int8Array)
    return { view: new Uint8Array(a.buffer, a.byteOffset, a.length), typeMax: 0xff, signed: true };
  return undefined;
}

function firstBad(a: ArrayLike<number>, limit: number): number {
  for (let i = 0; i < a.length; i++) if (!(a[i] >= 0 && a[i] < limit)) return a[i];
  return Number.NaN;
}

/** A caller's `maxIndex`: an integer index below numCols (−1 only for an empty chunk). */
function checkMaxIndex(max: number, nnz: number, numCols: number | undefined, firstRow: number): number {
  const limit = numCols ?? Number.POSITIVE_INFINITY;
  if (nnz === 0 && max === -1) return -1;
  if (!(Number.isSafeInteger(max) && max >= 0 && max < limit)) throw badIndex(max, numCols, firstRow);
  return max;
}

function badIndex(v: number, numCols: number | undefined, firstRow: number): FormatError {
  return writerError(
    'OutOfBounds',
    `column index ${v} (in the chunk starting at row ${firstRow}) is not an integer in [0, ${numCols ?? '∞'})`,
  );
}

const UNSIGNED_CTOR = {
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
} as const;

function bytesOf(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** Validated non-negative integers → little-endian bytes of an unsigned dtype. */
function encodeUnsigned(values: IntegerArrayLike | Float64Array, dtype: ScdlIndexDType): Uint8Array {
  const n = values.length;
  if (dtype === 'uint64') {
    const out = new BigUint64Array(n);
    if (values instanceof BigInt64Array || values instanceof BigUint64Array) out.set(values);
    else {
      const view = new DataView(out.buffer);
      const arr = values as ArrayLike<number>;
      for (let i = 0; i < n; i++) {
        const v = arr[i];
        view.setUint32(i * 8, v % 0x100000000, true);
        view.setUint32(i * 8 + 4, Math.floor(v / 0x100000000), true);
      }
    }
    return bytesOf(out);
  }
  const Ctor = UNSIGNED_CTOR[dtype];
  if (values instanceof Ctor) return bytesOf(values);
  const out = new Ctor(n);
  if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
    for (let i = 0; i < n; i++) out[i] = Number(values[i]);
  } else out.set(values as ArrayLike<number>);
  return bytesOf(out);
}

/**
 * Values → little-endian bytes of the data dtype, cast like numpy's astype: floats round to
 * nearest (even), float → unsigned truncates toward zero and wraps modulo 2^bits, NaN → 0.
 */
export function encodeData(values: NumericArrayLike, dtype: ScdlDataDType): Uint8Array {
  const n = values.length;
  const isBig = values instanceof BigInt64Array || values instanceof BigUint64Array;
  switch (dtype) {
    case 'float32':
    case 'float64': {
      const Ctor = dtype === 'float32' ? Float32Array : Float64Array;
      if (values instanceof Ctor) return bytesOf(values);
      const out = new Ctor(n);
      if (isBig) for (let i = 0; i < n; i++) out[i] = Number(values[i]);
      else out.set(values as ArrayLike<number>);
      return bytesOf(out);
    }
    case 'float16': {
      const out = new Uint16Array(n);
      if (isBig) for (let i = 0; i < n; i++) out[i] = numberToFloat16(Number(values[i]));
      else encodeFloat16(values as ArrayLike<number>, out);
      return bytesOf(out);
    }
    case 'uint64': {
      const out = new BigUint64Array(n);
      if (isBig) out.set(values as BigInt64Array);
      else {
        const arr = values as ArrayLike<number>;
        for (let i = 0; i < n; i++) {
          const v = Math.trunc(arr[i]);
          out[i] = Number.isFinite(v) ? BigInt.asUintN(64, BigInt(v)) : 0n;
        }
      }
      return bytesOf(out);
    }
    default: {
      const Ctor = UNSIGNED_CTOR[dtype];
      if (values instanceof Ctor) return bytesOf(values);
      const out = new Ctor(n);
      if (isBig) {
        const bits = BigInt(ITEM_SIZE[dtype] * 8);
        for (let i = 0; i < n; i++) out[i] = Number(BigInt.asUintN(Number(bits), values[i] as bigint));
      } else out.set(values as ArrayLike<number>); // ToUint8/16/32: truncate, wrap, NaN → 0
      return bytesOf(out);
    }
  }
}

async function narrow(
  sink: ArchiveSink,
  from: string,
  fromDType: 'uint32' | 'uint64',
  to: string,
  toDType: ScdlIndexDType,
  count: number,
): Promise<void> {
  const out = await sink.createStream(to);
  const fromSize = fromDType === 'uint64' ? 8 : 4;
  for (let start = 0; start < count; start += NARROW_CHUNK) {
    const n = Math.min(NARROW_CHUNK, count - start);
    const bytes = await sink.readBack(from, start * fromSize, n * fromSize);
    if (fromDType === toDType) {
      await out.write(bytes);
      continue;
    }
    const aligned = bytes.byteOffset % fromSize === 0 ? bytes : new Uint8Array(bytes);
    const wide =
      fromDType === 'uint64'
        ? new BigUint64Array(aligned.buffer, aligned.byteOffset, n)
        : new Uint32Array(aligned.buffer, aligned.byteOffset, n);
    await out.write(encodeUnsigned(wide instanceof BigUint64Array ? wide : wide, toDType));
  }
  await out.close();
  await sink.remove(from);
}

/** A Python-json-compatible dump of a list of strings (ensure_ascii, ", " separators), as labels.json. */
export function pythonJsonStrings(values: readonly string[]): string {
  const items = values.map((s) =>
    JSON.stringify(s).replace(
      /[\u007f-\uffff]/g,
      (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
    ),
  );
  return `[${items.join(', ')}]`;
}

async function writeFeatureIndex(
  sink: ArchiveSink,
  dir: string,
  blocks: readonly FeatureBlock[],
  rows: number,
  isObs: boolean,
): Promise<string[]> {
  const cumulative: number[] = [-1];
  let covered = 0;
  for (const block of blocks) {
    if (!(Number.isSafeInteger(block.rows) && block.rows >= 0))
      throw writerError('InvalidValue', `${dir} block "${block.label}": rows ${block.rows} is not a count`);
    covered += block.rows;
    cumulative.push(covered);
    const length = blockLength(block);
    if (isObs && block.columns.length > 0 && length !== block.rows) {
      throw writerError(
        'CountMismatch',
        `${dir} block "${block.label}" covers ${block.rows} rows but its table has ${length}`,
      );
    }
  }
  if (covered !== rows)
    throw writerError('CountMismatch', `${dir} blocks cover ${covered} rows but the matrix has ${rows}`);
  const files = [`${dir}/cumulative_sum_index.npy`, `${dir}/labels.json`, `${dir}/version.npy`];
  await sink.writeFile(files[0], int64Npy(cumulative));
  await sink.writeFile(files[1], new TextEncoder().encode(pythonJsonStrings(blocks.map((b) => b.label))));
  await sink.writeFile(files[2], unicodeScalarNpy(PACKAGE_VERSION));
  for (let i = 0; i < blocks.length; i++) {
    const path = featureTableFile(dir, i, blocks.length);
    await sink.writeFile(path, featureTableParquet(blocks[i]));
    files.push(path);
  }
  return files;
}

async function writeNeighbors(sink: ArchiveSink, graph: NeighborGraph, rows: number): Promise<string[]> {
  if (graph.indptr.length !== rows + 1) {
    throw writerError(
      'CountMismatch',
      `neighbor indptr has ${graph.indptr.length} entries, expected rows + 1 = ${rows + 1}`,
    );
  }
  const nnz = toNumber(graph.indptr[graph.indptr.length - 1]) - toNumber(graph.indptr[0]);
  if (graph.indices.length !== nnz || graph.values.length !== nnz) {
    throw writerError(
      'CountMismatch',
      `neighbor indptr says ${nnz} entries but indices has ${graph.indices.length} and values ${graph.values.length}`,
    );
  }
  checkIndices(graph.indices, rows, 0);
  const base = toNumber(graph.indptr[0]);
  const indptr = Float64Array.from(graph.indptr as ArrayLike<number>, (v) => toNumber(v) - base);
  await sink.writeFile(ARRAY_FILES.NEIGHBOR_INDICES_PTR, encodeUnsigned(indptr, 'uint64'));
  await sink.writeFile(ARRAY_FILES.NEIGHBOR_INDICES, encodeUnsigned(graph.indices, 'uint32'));
  await sink.writeFile(ARRAY_FILES.NEIGHBOR_VALUES, encodeData(graph.values, 'float32'));
  return [ARRAY_FILES.NEIGHBOR_INDICES_PTR, ARRAY_FILES.NEIGHBOR_INDICES, ARRAY_FILES.NEIGHBOR_VALUES];
}
