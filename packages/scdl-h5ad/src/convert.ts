import {
  FormatError,
  float16ToNumber,
  maxUnsigned,
  type ProgressCallback,
  throwIfAborted,
} from '@binscope/core';
import {
  type CsrChunk,
  type FeatureBlock,
  type FeatureColumn,
  type FeatureIndices,
  type NeighborGraph,
  type ScdlIndexDType,
  type ScdlWriteOptions,
  type ScdlWriteResult,
  smallestUnsignedDType,
} from '@binscope/scdl';
import type {
  AnnDataFile,
  Column,
  ColumnType,
  DataFrame,
  DenseMatrix,
  Matrix,
  SparseMatrix,
} from './anndata.js';
import {
  castElements,
  countChanged,
  DATA_DTYPES,
  type DataDtype,
  OUTPUT_SIZE,
  OUTPUT_TYPE,
  type OutputType,
} from './cast.js';
import { ELEMENT_SIZE, type ElementType } from './h5.js';
import { CastGuard } from './cast-guard.js';
import { promoteColumnTypes, valueAs } from './column-types.js';

/** Upstream's defaults (bionemo-scdl SingleCellMemMapDataset). */
export const DEFAULT_NEIGHBOR_KEY = 'next_cell_ids';
const VAR_INDEX_COLUMN = 'var_feature_id';
const OBS_INDEX_COLUMN = 'obs_feature_id';
/** Non-zeros per chunk when streaming: bounds memory (≈ 16 bytes per entry in flight). */
export const DEFAULT_CHUNK_NNZ = 1 << 21;
const ROW_WINDOW = 1 << 16;

export interface ConvertOptions {
  /** Element type of data.npy (C10). Default float32; values are cast as numpy's astype does. */
  dataDtype?: DataDtype;
  /** Read `X` instead of `raw.X` (C10). `X` is also used, with a warning, when a file has no `raw`. */
  useX?: boolean;
  /**
   * Write neighbor files from `obsp[key]` (C13): a key, or `true` for upstream's default
   * key `next_cell_ids`. A file without the key is skipped with a warning, as upstream does.
   */
  neighbors?: string | boolean;
  onProgress?: ProgressCallback;
  /** Non-fatal findings: a missing raw or neighbor key, values the cast changed. */
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
  /** Largest number of non-zeros read and cast at once (memory bound). */
  chunkNnz?: number;
  /** Tolerance for the "cast changed values" warning (upstream's data_dtype_tolerance). */
  tolerance?: number;
  /**
   * Cast values `dataDtype` cannot hold (NaN, ±inf, fractions or out-of-range numbers for an
   * unsigned dtype, overflow to infinity for float16/32) as numpy does, instead of refusing
   * them with `InvalidValue` (C10, the default).
   */
  lossyCast?: boolean;
}

/**
 * One input: the label its feature blocks carry (labels.json lists the paths as given) and
 * how to open it. Inputs are opened one at a time (twice: to plan, then to stream), so a
 * folder of thousands of files never holds thousands of handles.
 */
export interface ConversionInput {
  label: string;
  open(): AnnDataFile | Promise<AnnDataFile>;
}

export interface ConversionResult extends ScdlWriteResult {
  /** Per input: its label, the matrix used, rows and stored entries. */
  inputs: {
    label: string;
    matrix: string;
    layout: 'csr' | 'csc' | 'dense';
    rows: number;
    cols: number;
    nnz: number;
  }[];
  warnings: string[];
}

/** What `convertAnnData` writes into: `ScdlWriter` (any sink) or the Node atomic archive writer. */
export interface ArchiveWriterLike {
  appendRows(chunk: CsrChunk): Promise<void>;
  finish(features?: FeatureIndices): Promise<ScdlWriteResult>;
  abort(): Promise<void>;
  /**
   * True when a chunk's arrays are fully consumed (written or copied) once `appendRows`
   * resolves, so the converter may reuse their buffers for the next chunk (fewer
   * allocations and page faults). The Node archive writer and MemoryArchiveSink qualify.
   */
  readonly reusesChunkBuffers?: boolean;
}

export type WriterFactory = (options: ScdlWriteOptions) => Promise<ArchiveWriterLike> | ArchiveWriterLike;

function error(
  code: 'InvalidValue' | 'CountMismatch' | 'OutOfBounds' | 'UnsupportedFeature',
  file: string | undefined,
  message: string,
) {
  return new FormatError(code, message, { file, format: 'h5ad' });
}

export function checkDataDtype(dtype: string): DataDtype {
  if (!(DATA_DTYPES as readonly string[]).includes(dtype)) {
    throw error('InvalidValue', undefined, `data dtype "${dtype}" is not one of ${DATA_DTYPES.join(', ')}`);
  }
  return dtype as DataDtype;
}

interface PlannedInput {
  input: ConversionInput;
  rows: number;
  cols: number;
  /** Stored entries (sparse inputs), undefined for dense ones. */
  nnz: number | undefined;
}

async function withFile<T>(input: ConversionInput, use: (file: AnnDataFile) => Promise<T> | T): Promise<T> {
  const file = await input.open();
  try {
    return await use(file);
  } finally {
    file.close();
  }
}

/**
 * Converts AnnData inputs to one SCDL archive, as upstream bionemo-scdl 0.1.3 does
 * (C10–C13): rows concatenated in input order, the matrix streamed in row chunks (bounded
 * memory), feature blocks merged like upstream's feature indices.
 */
export async function convertAnnData(
  inputs: readonly ConversionInput[],
  createWriter: WriterFactory,
  options: ConvertOptions = {},
): Promise<ConversionResult> {
  if (inputs.length === 0) throw error('InvalidValue', undefined, 'no .h5ad input to convert');
  const dataDtype = checkDataDtype(options.dataDtype ?? 'float32');
  const outType = OUTPUT_TYPE[dataDtype];
  const chunkNnz = Math.max(1, Math.floor(options.chunkNnz ?? DEFAULT_CHUNK_NNZ));
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    options.onWarning?.(message);
  };

  // Plan: each input's matrix shape and its tables, before writing anything (fail early).
  const planned: PlannedInput[] = [];
  const varBlocks: FeatureBlock[] = [];
  const obsBlocks: FeatureBlock[] = [];
  for (const input of inputs) {
    throwIfAborted(options.signal);
    const { label } = input;
    options.onProgress?.({
      phase: `reading tables of ${label}`,
      done: planned.length,
      total: inputs.length,
      unit: 'items',
    });
    planned.push(
      await withFile(input, (file) => {
        const matrix = pickMatrix(file, label, options.useX === true, warn);
        const varFrame = file.dataframe('var');
        const obsFrame = file.dataframe('obs');
        if (obsFrame.rows !== matrix.rows) {
          throw error(
            'CountMismatch',
            file.name,
            `obs has ${obsFrame.rows} rows but ${matrix.path} has ${matrix.rows}`,
          );
        }
        if (varFrame.rows !== matrix.cols) {
          warn(
            `${label}: var has ${varFrame.rows} rows but ${matrix.path} has ${matrix.cols} columns; var is stored as upstream does`,
          );
        }
        appendVarBlock(varBlocks, featureColumns(varFrame, VAR_INDEX_COLUMN), matrix.rows, label);
        appendObsBlock(obsBlocks, featureColumns(obsFrame, OBS_INDEX_COLUMN), obsFrame.rows, label);
        return {
          input,
          rows: matrix.rows,
          cols: matrix.cols,
          nnz: matrix.kind === 'sparse' ? matrix.nnz : undefined,
        };
      }),
    );
  }

  const totalRows = planned.reduce((n, p) => n + p.rows, 0);
  const numCols = planned.reduce((n, p) => Math.max(n, p.cols), 0);
  const allSparse = planned.every((p) => p.nnz !== undefined);
  const nnz = allSparse ? planned.reduce((n, p) => n + (p.nnz ?? 0), 0) : undefined;
  const neighborKey = options.neighbors === true ? DEFAULT_NEIGHBOR_KEY : options.neighbors || undefined;
  const graphs: GraphPart[] = [];
  let neighborsMissing = false;
  const colType = smallestUnsignedDType(Math.max(0, numCols - 1));

  const writer = await createWriter({ dataDType: dataDtype, numCols, nnz, signal: options.signal });
  const scratch = writer.reusesChunkBuffers ? new Scratch() : undefined;
  let done = 0;
  const progress = () => options.onProgress?.({ phase: 'matrix', done, total: totalRows, unit: 'items' });
  try {
    const summaries: ConversionResult['inputs'] = [];
    for (const plan of planned) {
      const { label } = plan.input;
      await withFile(plan.input, async (file) => {
        const matrix = pickMatrix(file, label, options.useX === true, () => {});
        if (matrix.rows !== plan.rows || matrix.cols !== plan.cols) {
          throw error('CountMismatch', file.name, `${matrix.path} changed shape while converting`);
        }
        let changed = 0;
        let inputNnz = 0;
        const guard = options.lossyCast
          ? undefined
          : new CastGuard(file.name, `${label}: ${matrix.path}`, dataDtype);
        const sink: ChunkSink = {
          prepare: (raw) => {
            const n = raw.indices.byteLength / ELEMENT_SIZE[raw.indicesType];
            const { indices, maxIndex } = columnIndices(
              file.name,
              matrix,
              raw.indices,
              raw.indicesType,
              colType,
              raw.firstRow,
              scratch?.take(0, n * INDEX_SIZE[colType]),
            );
            guard?.inspect(raw.data, raw.dataType, raw.firstRow);
            const cast = castElements(
              raw.data,
              raw.dataType,
              outType,
              scratch?.take(1, n * OUTPUT_SIZE[outType]),
            );
            if (raw.dataType !== outType)
              changed += countChanged(raw.data, raw.dataType, cast, outType, options.tolerance ?? 1e-8);
            return { indices, maxIndex, data: dataView(cast, outType) };
          },
          write: async (indptr, chunk) => {
            guard?.check(indptr, chunk.indices);
            throwIfAborted(options.signal);
            await writer.appendRows({
              indptr,
              indices: chunk.indices,
              data: chunk.data,
              maxIndex: chunk.maxIndex,
            });
            done += indptr.length - 1;
            inputNnz += indptr[indptr.length - 1] - indptr[0];
            progress();
          },
        };
        if (matrix.kind === 'dense') await streamDense(file, matrix, chunkNnz, sink);
        else if (matrix.layout === 'csr') await streamCsr(file, matrix, chunkNnz, sink);
        else await streamCsc(file, matrix, chunkNnz, sink, options.signal);
        if (changed > 0)
          warn(
            `${label}: the cast to ${dataDtype} changed ${changed} value(s) by more than ${options.tolerance ?? 1e-8}`,
          );
        summaries.push({
          label,
          matrix: matrix.path,
          layout: matrix.kind === 'dense' ? 'dense' : matrix.layout,
          rows: matrix.rows,
          cols: matrix.cols,
          nnz: inputNnz,
        });
        if (neighborKey !== undefined && !neighborsMissing) {
          const part = readNeighborPart(file, label, matrix.rows, neighborKey, warn);
          if (part) graphs.push(part);
          else neighborsMissing = true;
        }
      });
    }
    const neighbors = neighborKey === undefined || neighborsMissing ? undefined : joinGraphs(graphs);
    options.onProgress?.({
      phase: 'writing feature indices',
      done: totalRows,
      total: totalRows,
      unit: 'items',
    });
    const result = await writer.finish({ var: varBlocks, obs: obsBlocks, neighbors });
    return { ...result, inputs: summaries, warnings };
  } catch (cause) {
    await writer.abort();
    throw cause;
  }
}

/** C10: raw.X unless X is asked for; X (with a warning) when there is no raw. */
function pickMatrix(file: AnnDataFile, label: string, useX: boolean, warn: (m: string) => void): Matrix {
  if (!useX) {
    const raw = file.matrix('raw.X');
    if (raw) return raw;
    const x = file.matrix('X');
    if (x) {
      warn(`${label}: no raw.X, converting X`);
      return x;
    }
  } else {
    const x = file.matrix('X');
    if (x) return x;
  }
  throw error('InvalidValue', file.name, `${label} has no ${useX ? 'X' : 'raw.X or X'} matrix`);
}

/** C11: a table's columns (categoricals already plain values), or its index as one column. */
function featureColumns(frame: DataFrame, indexName: string): FeatureColumn[] {
  if (frame.columns.length > 0) return frame.columns.map(toFeatureColumn);
  if (frame.rows > 0) return [toFeatureColumn({ ...frame.index(), name: indexName })];
  return [];
}

function toFeatureColumn(column: Column): FeatureColumn {
  return { name: column.name, type: column.type, values: column.values as FeatureColumn['values'] };
}

function blockRows(columns: FeatureColumn[]): number {
  return columns.length === 0 ? 0 : columns[0].values.length;
}

/** Upstream's are_dicts_equal: same column names (any order) and equal values; NaN/None never equal. */
function sameFeatures(a: FeatureColumn[], b: FeatureColumn[]): boolean {
  if (a.length !== b.length) return false;
  const byName = new Map(b.map((c) => [c.name, c]));
  for (const column of a) {
    const other = byName.get(column.name);
    if (!other || other.values.length !== column.values.length) return false;
    const x = column.values as ArrayLike<unknown>;
    const y = other.values as ArrayLike<unknown>;
    for (let i = 0; i < x.length; i++) if (!sameValue(x[i], y[i])) return false;
  }
  return true;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a === typeof b) return a === b;
  const numeric = (v: unknown) => typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';
  return numeric(a) && numeric(b) && Number(a) === Number(b);
}

/** C12 for var: a block identical to the previous one only extends its row range. */
function appendVarBlock(blocks: FeatureBlock[], columns: FeatureColumn[], rows: number, label: string): void {
  const last = blocks[blocks.length - 1];
  if (last && sameFeatures(last.columns, columns)) {
    last.rows += rows;
    return;
  }
  blocks.push({ label, rows, columns });
}

/**
 * C12 for obs: a block with the same column names as the previous one is appended to it
 * (keeping the first label; columns in the newer block's order, as upstream's dict merge).
 * A table with no columns adds no block, as upstream skips empty feature dicts.
 */
function appendObsBlock(blocks: FeatureBlock[], columns: FeatureColumn[], rows: number, label: string): void {
  if (columns.length === 0 || blockRows(columns) === 0) return;
  const last = blocks[blocks.length - 1];
  if (last && last.columns.length === columns.length) {
    const previous = new Map(last.columns.map((c) => [c.name, c]));
    if (columns.every((c) => previous.has(c.name))) {
      last.columns = columns.map((c) => concatColumns(previous.get(c.name)!, c));
      last.rows += rows;
      return;
    }
  }
  blocks.push({ label, rows, columns });
}

/** numpy.concatenate's type promotion, then pyarrow's inference, for two columns. */
function concatColumns(a: FeatureColumn, b: FeatureColumn): FeatureColumn {
  const type = promoteColumnTypes(a.type as ColumnType, b.type as ColumnType);
  const convert = (column: FeatureColumn) => {
    const values = Array.from(column.values as ArrayLike<unknown>);
    return column.type === type ? values : values.map((v) => valueAs(type, v));
  };
  return { name: b.name, type, values: [...convert(a), ...convert(b)] as FeatureColumn['values'] };
}

/** The cast bytes as the typed array the writer stores without re-encoding. */
function dataView(bytes: Uint8Array, type: OutputType): CsrChunk['data'] {
  const buffer = bytes.buffer as ArrayBuffer;
  const n = bytes.byteLength / OUTPUT_SIZE[type];
  switch (type) {
    case 'f32':
      return new Float32Array(buffer, bytes.byteOffset, n);
    case 'f64':
      return new Float64Array(buffer, bytes.byteOffset, n);
    case 'u8':
      return new Uint8Array(buffer, bytes.byteOffset, n);
    case 'u16':
      return new Uint16Array(buffer, bytes.byteOffset, n);
    case 'u32':
      return new Uint32Array(buffer, bytes.byteOffset, n);
    case 'u64':
      return new BigUint64Array(buffer, bytes.byteOffset, n);
    case 'f16': {
      // The writer encodes numbers to float16 itself; half values round-trip exactly.
      const halves = new Uint16Array(buffer, bytes.byteOffset, n);
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = float16ToNumber(halves[i]);
      return out;
    }
  }
}

const INDEX_SIZE: Record<ScdlIndexDType, number> = { uint8: 1, uint16: 2, uint32: 4, uint64: 8 };

/** Reusable buffers, one per slot, grown on demand (chunks vary in size). */
class Scratch {
  private readonly buffers: ArrayBuffer[] = [];
  take(slot: number, bytes: number): ArrayBuffer {
    const current = this.buffers[slot];
    if (current && current.byteLength >= bytes) return current;
    const grown = new ArrayBuffer(Math.max(bytes, Math.ceil((current?.byteLength ?? 0) * 1.5)));
    this.buffers[slot] = grown;
    return grown;
  }
}

function indexSource(
  bytes: Uint8Array,
  type: ElementType,
  n: number,
): Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float64Array {
  const buffer = bytes.buffer as ArrayBuffer;
  const at = bytes.byteOffset;
  switch (type) {
    case 'i32':
      return new Int32Array(buffer, at, n);
    case 'u32':
      return new Uint32Array(buffer, at, n);
    case 'i16':
      return new Int16Array(buffer, at, n);
    case 'u16':
      return new Uint16Array(buffer, at, n);
    case 'i8':
      return new Int8Array(buffer, at, n);
    case 'u8':
      return new Uint8Array(buffer, at, n);
    default: {
      // 64-bit indices: a valid one is < 2^32 here (columns ≤ 2^32), so its high word is 0.
      const words = new Uint32Array(buffer, at, n * 2);
      const low = new Float64Array(n);
      for (let i = 0; i < n; i++) low[i] = words[2 * i + 1] === 0 ? words[2 * i] : -1;
      return low;
    }
  }
}

/** Indices checked and narrowed per step: 256 KiB of int32, well inside L2. */
const CHECK_BLOCK = 1 << 16;

/**
 * Column indices → col_ptr's dtype, each checked to lie in [0, cols) of its own input
 * (upstream would wrap an out-of-range index silently; a corrupt file is an error here).
 * One max pass validates and a native typed-array copy converts; the largest index goes
 * to the writer with the chunk, so it does not scan them again.
 */
function columnIndices(
  file: string,
  matrix: Matrix,
  bytes: Uint8Array,
  type: ElementType,
  colType: ScdlIndexDType,
  firstRow: number,
  into?: ArrayBuffer,
): { indices: CsrChunk['indices']; maxIndex: number } {
  const n = bytes.byteLength / ELEMENT_SIZE[type];
  const source = indexSource(bytes, type, n);
  const bytesOut = n * INDEX_SIZE[colType];
  const buffer = into && into.byteLength >= bytesOut ? into : new ArrayBuffer(bytesOut);
  const out =
    colType === 'uint8'
      ? new Uint8Array(buffer, 0, n)
      : colType === 'uint16'
        ? new Uint16Array(buffer, 0, n)
        : colType === 'uint32'
          ? new Uint32Array(buffer, 0, n)
          : new Float64Array(buffer, 0, n);
  const cols = matrix.cols;
  let maxIndex: number;
  if ((source instanceof Int32Array || source instanceof Uint32Array) && cols <= 0x80000000) {
    // Seen as uint32, a negative int32 is ≥ 2^31 ≥ cols: one max pass checks both bounds,
    // then the typed-array copy (native, several times faster than a JS loop) converts.
    // Block by block, so the copy reads what the check has just brought into cache.
    const unsigned = new Uint32Array(source.buffer, source.byteOffset, n);
    maxIndex = -1;
    for (let start = 0; start < n && maxIndex < cols; start += CHECK_BLOCK) {
      const end = Math.min(n, start + CHECK_BLOCK);
      maxIndex = Math.max(maxIndex, maxUnsigned(unsigned.subarray(start, end)));
      if (maxIndex < cols) out.set(source.subarray(start, end), start);
    }
  } else {
    maxIndex = copyChecked(source, out, cols);
  }
  if (!(maxIndex < cols)) {
    let bad = 0;
    while (source[bad] >= 0 && source[bad] < cols) bad++;
    throw error(
      'OutOfBounds',
      file,
      `${matrix.path}: column index ${source[bad]} (in rows from ${firstRow}) is outside [0, ${cols})`,
    );
  }
  // The writer is told the largest index, so it need not scan them all again.
  return { indices: out, maxIndex };
}

/** Copies indices checked to lie in [0, cols); returns the largest (−1 when none, NaN when one is out of range). */
function copyChecked(source: ArrayLike<number>, out: { [i: number]: number }, cols: number): number {
  let max = -1;
  for (let i = 0; i < source.length; i++) {
    const v = source[i];
    if (!(v >= 0 && v < cols)) return Number.NaN;
    if (v > max) max = v;
    out[i] = v;
  }
  return max;
}

/** Raw chunk bytes (possibly views into wasm memory) in the file's element types. */
interface RawChunk {
  indices: Uint8Array;
  indicesType: ElementType;
  data: Uint8Array;
  dataType: ElementType;
  firstRow: number;
}

interface PreparedChunk {
  indices: CsrChunk['indices'];
  /** The largest column index, checked against the input's width. */
  maxIndex: number;
  data: CsrChunk['data'];
}

/**
 * Where streamed rows go: `prepare` turns raw bytes into owned, converted arrays
 * synchronously (while wasm views are alive), `write` hands them to the archive writer.
 */
interface ChunkSink {
  prepare(raw: RawChunk): PreparedChunk;
  write(indptr: Float64Array, chunk: PreparedChunk): Promise<void>;
}

/** CSR: row windows of indptr, each cut into chunks of at most `chunkNnz` entries (≥ 1 row). */
async function streamCsr(
  file: AnnDataFile,
  m: SparseMatrix,
  chunkNnz: number,
  sink: ChunkSink,
): Promise<void> {
  let previous = 0;
  for (let r = 0; r < m.rows; r += ROW_WINDOW) {
    const end = Math.min(m.rows, r + ROW_WINDOW);
    const ptr = file.integers(m.indptr, m.indptrType, r, end + 1);
    for (let i = 0; i < ptr.length; i++) {
      const v = ptr[i];
      if (!(v >= previous && v <= m.nnz)) {
        throw error(
          'InvalidValue',
          file.name,
          `${m.path}/indptr[${r + i}] = ${v} after ${previous} (nnz ${m.nnz}): not a valid row pointer`,
        );
      }
      previous = v;
    }
    let i = 0;
    const rows = end - r;
    while (i < rows) {
      let j = i + 1;
      while (j < rows && ptr[j + 1] - ptr[i] <= chunkNnz) j++;
      const a = ptr[i];
      const b = ptr[j];
      const firstRow = r + i;
      const prepared = file.views(
        [
          { ds: m.indices, start: a, end: b },
          { ds: m.data, start: a, end: b },
        ],
        ([indices, data]) =>
          sink.prepare({ indices, indicesType: m.indicesType, data, dataType: m.dtype, firstRow }),
      );
      await sink.write(ptr.subarray(i, j + 1), prepared);
      i = j;
    }
  }
}

/** Dense: row blocks; zeros dropped, NaN kept (scipy.sparse.csr_matrix semantics). */
async function streamDense(
  file: AnnDataFile,
  m: DenseMatrix,
  chunkNnz: number,
  sink: ChunkSink,
): Promise<void> {
  const size = ELEMENT_SIZE[m.dtype];
  const rowsPerChunk = Math.max(1, Math.floor(chunkNnz / Math.max(1, m.cols)));
  for (let r = 0; r < m.rows; r += rowsPerChunk) {
    const end = Math.min(m.rows, r + rowsPerChunk);
    const rows = end - r;
    const indptr = new Float64Array(rows + 1);
    const prepared = file.views([{ ds: m.dataset, start: r, end }], ([bytes]) => {
      const positions = new Uint32Array(rows * m.cols);
      let count = 0;
      for (let i = 0; i < rows; i++) {
        for (let c = 0; c < m.cols; c++) {
          if (!isZero(bytes, (i * m.cols + c) * size, m.dtype)) positions[count++] = i * m.cols + c;
        }
        indptr[i + 1] = count;
      }
      const data = new Uint8Array(count * size);
      const indices = new Uint32Array(count);
      for (let k = 0; k < count; k++) {
        const p = positions[k];
        data.set(bytes.subarray(p * size, p * size + size), k * size);
        indices[k] = p % m.cols;
      }
      return sink.prepare({
        indices: new Uint8Array(indices.buffer),
        indicesType: 'u32',
        data,
        dataType: m.dtype,
        firstRow: r,
      });
    });
    await sink.write(indptr, prepared);
  }
}

/** Whether an element's value is zero (+0 or -0 for floats: scipy drops both). */
function isZero(bytes: Uint8Array, at: number, type: ElementType): boolean {
  const size = ELEMENT_SIZE[type];
  if (type === 'f16') return (bytes[at] | (bytes[at + 1] & 0x7f)) === 0;
  if (type === 'f32') return (bytes[at] | bytes[at + 1] | bytes[at + 2] | (bytes[at + 3] & 0x7f)) === 0;
  if (type === 'f64') {
    for (let k = 0; k < 7; k++) if (bytes[at + k] !== 0) return false;
    return (bytes[at + 7] & 0x7f) === 0;
  }
  for (let k = 0; k < size; k++) if (bytes[at + k] !== 0) return false;
  return true;
}

/**
 * CSC → CSR in bounded memory: one pass counts each row's entries, then bands of rows
 * holding at most `chunkNnz` entries are gathered column by column (so each row's columns
 * come out ascending, as scipy's tocsr gives). Each band re-reads indices and data.
 */
async function streamCsc(
  file: AnnDataFile,
  m: SparseMatrix,
  chunkNnz: number,
  sink: ChunkSink,
  signal?: AbortSignal,
): Promise<void> {
  const colPtr = file.integers(m.indptr, m.indptrType, 0, m.cols + 1);
  for (let c = 0; c < m.cols; c++) {
    if (!(colPtr[c + 1] >= colPtr[c]))
      throw error('InvalidValue', file.name, `${m.path}/indptr decreases at column ${c}`);
  }
  const counts = new Float64Array(m.rows);
  const window = Math.max(1, chunkNnz);
  for (let start = 0; start < m.nnz; start += window) {
    const end = Math.min(m.nnz, start + window);
    const rows = file.integers(m.indices, m.indicesType, start, end);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (!(r >= 0 && r < m.rows))
        throw error(
          'OutOfBounds',
          file.name,
          `${m.path}/indices[${start + i}] = ${r}: no such row (${m.rows})`,
        );
      counts[r]++;
    }
  }
  const size = ELEMENT_SIZE[m.dtype];
  let r0 = 0;
  while (r0 < m.rows) {
    throwIfAborted(signal);
    let r1 = r0 + 1;
    let bandNnz = counts[r0];
    while (r1 < m.rows && bandNnz + counts[r1] <= chunkNnz) bandNnz += counts[r1++];
    const indptr = new Float64Array(r1 - r0 + 1);
    for (let r = r0; r < r1; r++) indptr[r - r0 + 1] = indptr[r - r0] + counts[r];
    const fill = indptr.slice(0, r1 - r0);
    const bandCols = new Uint32Array(bandNnz);
    const bandData = new Uint8Array(bandNnz * size);
    let column = 0;
    for (let start = 0; start < m.nnz && bandNnz > 0; start += window) {
      const end = Math.min(m.nnz, start + window);
      const rows = file.integers(m.indices, m.indicesType, start, end);
      file.views([{ ds: m.data, start, end }], ([data]) => {
        for (let i = 0; i < rows.length; i++) {
          const p = start + i;
          while (colPtr[column + 1] <= p) column++;
          const r = rows[i];
          if (r < r0 || r >= r1) continue;
          const at = fill[r - r0]++;
          bandCols[at] = column;
          bandData.set(data.subarray(i * size, i * size + size), at * size);
        }
      });
    }
    const prepared = sink.prepare({
      indices: new Uint8Array(bandCols.buffer),
      indicesType: 'u32',
      data: bandData,
      dataType: m.dtype,
      firstRow: r0,
    });
    await sink.write(indptr, prepared);
    r0 = r1;
  }
}

type GraphPart = { rows: number; indptr: Float64Array; indices: Float64Array; values: Float32Array };

/**
 * C13: one input's `obsp[key]`. A missing key skips the neighbor files with a warning, as
 * upstream does; a dense matrix is an error, as upstream raises.
 */
function readNeighborPart(
  file: AnnDataFile,
  label: string,
  rows: number,
  key: string,
  warn: (m: string) => void,
): GraphPart | undefined {
  const graph = file.obsp(key);
  if (!graph) {
    warn(`${label}: neighbor key '${key}' not found in obsp; neighbor files skipped`);
    return undefined;
  }
  if (graph.kind !== 'sparse')
    throw error('InvalidValue', file.name, `${graph.path}: neighbor matrix is not a sparse matrix`);
  if (graph.rows !== rows || graph.cols !== rows) {
    throw error(
      'CountMismatch',
      file.name,
      `${graph.path}: ${graph.rows}×${graph.cols}, expected ${rows}×${rows}`,
    );
  }
  return { rows, ...readGraph(file, graph) };
}

/** Several inputs' graphs as one over the concatenated rows (indices shifted by each input's first row). */
function joinGraphs(parts: GraphPart[]): NeighborGraph {
  if (parts.length === 1)
    return { indptr: parts[0].indptr, indices: parts[0].indices, values: parts[0].values };
  const total = parts.reduce((n, p) => n + p.indices.length, 0);
  const rows = parts.reduce((n, p) => n + p.rows, 0);
  const indptr = new Float64Array(rows + 1);
  const indices = new Float64Array(total);
  const values = new Float32Array(total);
  let rowBase = 0;
  let nnzBase = 0;
  for (const part of parts) {
    for (let i = 1; i <= part.rows; i++) indptr[rowBase + i] = nnzBase + part.indptr[i];
    for (let i = 0; i < part.indices.length; i++) indices[nnzBase + i] = rowBase + part.indices[i];
    values.set(part.values, nnzBase);
    rowBase += part.rows;
    nnzBase += part.indices.length;
  }
  return { indptr, indices, values };
}

function readGraph(
  file: AnnDataFile,
  m: SparseMatrix,
): { indptr: Float64Array; indices: Float64Array; values: Float32Array } {
  const ptr = file.integers(m.indptr, m.indptrType, 0, (m.layout === 'csr' ? m.rows : m.cols) + 1);
  const idx = file.integers(m.indices, m.indicesType, 0, m.nnz);
  const values = new Float32Array(castElements(file.raw(m.data, 0, m.nnz), m.dtype, 'f32').buffer);
  for (let i = 1; i < ptr.length; i++) {
    if (!(ptr[i] >= ptr[i - 1])) throw error('InvalidValue', file.name, `${m.path}/indptr decreases at ${i}`);
  }
  for (let i = 0; i < idx.length; i++) {
    if (!(idx[i] >= 0 && idx[i] < m.rows))
      throw error('OutOfBounds', file.name, `${m.path}/indices[${i}] = ${idx[i]}: no such cell`);
  }
  if (m.layout === 'csr') return { indptr: ptr, indices: idx, values };
  // CSC graph (rare): transpose in memory, rows ascending per column as scipy's tocsr.
  const counts = new Float64Array(m.rows + 1);
  for (let i = 0; i < idx.length; i++) counts[idx[i] + 1]++;
  for (let r = 0; r < m.rows; r++) counts[r + 1] += counts[r];
  const fill = counts.slice(0, m.rows);
  const indices = new Float64Array(idx.length);
  const out = new Float32Array(idx.length);
  for (let c = 0; c < m.cols; c++) {
    for (let p = ptr[c]; p < ptr[c + 1]; p++) {
      const at = fill[idx[p]]++;
      indices[at] = c;
      out[at] = values[p];
    }
  }
  return { indptr: counts, indices, values: out };
}
