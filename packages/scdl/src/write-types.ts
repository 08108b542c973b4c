import type { ProgressCallback, Scratch } from '@binscope/core';
import type { ScdlNumericDType } from './header.js';

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
  /**
   * Where row_ptr / col_ptr go while their final dtypes are unknown (neither `nnz` nor
   * `numCols` given), to be narrowed at `finish`: Node's `fileScratch` beside the output, or
   * memory (the default, `memoryScratch()`). Never the archive's sink.
   */
  scratch?: Scratch;
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
