import type {
  ByteSource,
  DataRecord,
  Field,
  FormatReader,
  LogicalType,
  Problem,
  RecordOptions,
  Schema,
  TableInfo,
  Value,
} from '@binscope/core';
import { toTypedArray } from '@binscope/core/binary';
import type { AnnDataFile, ColumnType, DataFrame, Matrix, SparseMatrix } from './anndata.js';
import { ELEMENT_SIZE, type ElementType } from './h5.js';
import { h5adError } from './h5ad-error.js';
import { type ChunkSink, isZero, streamCsc } from './matrix-stream.js';
import { pulled } from './pulled.js';

/** Rows read per step (CSR row pointers, dense row blocks). */
const ROW_WINDOW = 1024;
/** Entries a CSC band holds at most (CSC rows are gathered column by column). */
const CSC_BAND = 1 << 20;

/** The logical type of one element of a matrix or column. */
function elementLogical(type: ElementType | ColumnType): LogicalType {
  switch (type) {
    case 'bool':
      return { kind: 'bool' };
    case 'string':
      return { kind: 'string' };
    case 'f16':
    case 'float16':
      return { kind: 'float', bits: 16 };
    case 'f32':
    case 'float32':
      return { kind: 'float', bits: 32 };
    case 'f64':
    case 'float64':
      return { kind: 'float', bits: 64 };
    default: {
      const match = /^(u|i|uint|int)(\d+)$/.exec(type);
      const bits = Number(match?.[2] ?? 64) as 8 | 16 | 32 | 64;
      return { kind: 'int', bits, signed: match?.[1] === 'i' || match?.[1] === 'int' };
    }
  }
}

/** The rows of a matrix as SCDL prints its rows: `{row, indices, values}`. */
function matrixSchema(matrix: Matrix): Schema {
  const indices: LogicalType =
    matrix.kind === 'sparse' && matrix.layout === 'csr'
      ? elementLogical(matrix.indicesType)
      : { kind: 'int', bits: 32, signed: false };
  return {
    fields: [
      {
        name: 'row',
        type: { kind: 'int', bits: 64, signed: false },
        description: `row (cell) of ${matrix.path}`,
      },
      {
        name: 'indices',
        type: { kind: 'list', items: indices },
        description: 'columns of the stored values',
      },
      {
        name: 'values',
        type: { kind: 'list', items: elementLogical(matrix.dtype) },
        description: `stored values (zeros of a dense matrix left out), ${matrix.dtype}`,
        metadata: { type: `${matrix.dtype} list` },
      },
    ],
  };
}

/** A dataframe's records: its index, then its columns in column-order (types read, not values). */
function frameSchema(
  columns: readonly { name: string; type: ColumnType | 'unknown' }[],
  index: string,
): Schema {
  const fields: Field[] = [{ name: index, type: { kind: 'string' } }];
  for (const column of columns)
    fields.push({
      name: column.name,
      // A column whose type cannot be told without decoding it fails when its values are read.
      type: elementLogical(column.type === 'unknown' ? 'string' : column.type),
      nullable: true,
      metadata: { type: column.type },
    });
  return { fields, key: index };
}

/** Element values of raw little-endian bytes, as plain values (bools as booleans). */
function decode(bytes: Uint8Array, type: ElementType): Value[] {
  if (type === 'bool') return Array.from(bytes, (b) => b !== 0);
  return Array.from(toTypedArray(bytes.slice(), type, true) as ArrayLike<number | bigint>);
}

/**
 * An opened `.h5ad`, read-only: its matrix rows (`X`, else `raw.X`) as records shaped like an
 * SCDL archive's, and the obs and var dataframes as tables. It owns the HDF5 file it opened
 * (inside wasm), never the target's source.
 */
export class H5adReader implements FormatReader {
  readonly format = 'h5ad';
  readonly schema: Schema;
  readonly tables: readonly TableInfo[];
  readonly warnings: readonly Problem[] = [];
  /** The matrix the default records are the rows of. */
  readonly matrix: Matrix;
  private readonly frames = new Map<string, DataFrame>();

  constructor(
    readonly adata: AnnDataFile,
    readonly source: ByteSource,
    readonly signatureAt: number,
  ) {
    const x = adata.matrix('X');
    const rawX = adata.matrix('raw.X');
    const main = x ?? rawX;
    if (!main) throw h5adError('InvalidValue', adata.name, 'neither X nor raw.X holds a matrix');
    this.matrix = main;
    this.schema = matrixSchema(main);
    const tables: TableInfo[] = [];
    if (x && rawX)
      tables.push({ name: 'raw.X', title: 'raw.X rows', schema: matrixSchema(rawX), count: rawX.rows });
    const summary = adata.summary();
    for (const name of ['obs', 'var'] as const) {
      const columns = name === 'obs' ? summary.obsColumns : summary.varColumns;
      tables.push({
        name,
        title: `${name} dataframe`,
        schema: frameSchema(columns, adata.indexName(name)),
        count: name === 'obs' ? summary.obs : summary.vars,
      });
    }
    this.tables = tables;
  }

  /** A dataframe, decoded on first use (every column: anndata stores them whole). */
  private frame(name: 'obs' | 'var'): DataFrame {
    let frame = this.frames.get(name);
    if (!frame) this.frames.set(name, (frame = this.adata.dataframe(name)));
    return frame;
  }

  /** Records of the default matrix, `raw.X`, or the obs / var dataframe (`options.table`). */
  async *records(options: RecordOptions = {}): AsyncGenerator<DataRecord> {
    const table = options.table;
    if (table === 'obs' || table === 'var') {
      yield* this.frameRecords(this.frame(table), options);
      return;
    }
    if (table !== undefined && table !== 'raw.X')
      throw new RangeError(`${this.adata.name}: no table "${table}" (raw.X, obs, var)`);
    const matrix = table === 'raw.X' ? this.adata.matrix('raw.X') : this.matrix;
    if (!matrix) throw new RangeError(`${this.adata.name}: no raw.X`);
    const start = Math.max(0, options.offset ?? 0);
    const end = Math.min(matrix.rows, options.limit === undefined ? matrix.rows : start + options.limit);
    const wanted = options.columns ?? ['row', 'indices', 'values'];
    for await (const row of this.rows(matrix, start, end, options.signal)) {
      const values: Record<string, Value> = {};
      for (const name of wanted) {
        if (name === 'row') values.row = row.row;
        else if (name === 'indices') values.indices = row.indices;
        else if (name === 'values') values.values = row.values;
      }
      yield { index: row.row, values };
    }
  }

  private async *frameRecords(frame: DataFrame, options: RecordOptions): AsyncGenerator<DataRecord> {
    const index = frame.index();
    const start = Math.max(0, options.offset ?? 0);
    const end = Math.min(frame.rows, options.limit === undefined ? frame.rows : start + options.limit);
    const names = options.columns ?? [index.name, ...frame.columns.map((c) => c.name)];
    const byName = new Map([index, ...frame.columns].map((c) => [c.name, c]));
    for (let i = start; i < end; i++) {
      options.signal?.throwIfAborted();
      const values: Record<string, Value> = {};
      for (const name of names) {
        const column = byName.get(name);
        if (column) values[name] = column.values[i] as Value;
      }
      yield { index: i, values };
    }
  }

  /** Rows [start, end) of a matrix, each as its column indices and stored values. */
  private rows(matrix: Matrix, start: number, end: number, signal?: AbortSignal) {
    if (matrix.kind === 'dense') return this.denseRows(matrix, start, end, signal);
    if (matrix.layout === 'csr') return this.csrRows(matrix, start, end, signal);
    return this.cscRows(matrix, start, end, signal);
  }

  private async *csrRows(m: SparseMatrix, start: number, end: number, signal?: AbortSignal) {
    const file = this.adata;
    for (let r0 = start; r0 < end; r0 += ROW_WINDOW) {
      signal?.throwIfAborted();
      const r1 = Math.min(end, r0 + ROW_WINDOW);
      const ptr = file.integers(m.indptr, m.indptrType, r0, r1 + 1);
      for (let i = 0; i + 1 < ptr.length; i++) {
        if (!(ptr[i + 1] >= ptr[i] && ptr[i + 1] <= m.nnz))
          throw h5adError(
            'InvalidValue',
            file.name,
            `${m.path}/indptr[${r0 + i + 1}] = ${ptr[i + 1]}: not a valid row pointer`,
          );
      }
      const a = ptr[0];
      const indices = file.integers(m.indices, m.indicesType, a, ptr[ptr.length - 1]);
      for (let k = 0; k < indices.length; k++) {
        if (!(indices[k] >= 0 && indices[k] < m.cols))
          throw h5adError(
            'OutOfBounds',
            file.name,
            `${m.path}/indices[${a + k}] = ${indices[k]}: no such column (${m.cols})`,
          );
      }
      const data = decode(file.raw(m.data, a, ptr[ptr.length - 1]), m.dtype);
      for (let i = 0; i + 1 < ptr.length; i++)
        yield {
          row: r0 + i,
          indices: Array.from(indices.subarray(ptr[i] - a, ptr[i + 1] - a)),
          values: data.slice(ptr[i] - a, ptr[i + 1] - a),
        };
    }
  }

  private async *denseRows(
    m: Extract<Matrix, { kind: 'dense' }>,
    start: number,
    end: number,
    signal?: AbortSignal,
  ) {
    const size = ELEMENT_SIZE[m.dtype];
    // About 64 Ki values per read, at least a row.
    const step = Math.max(1, Math.floor((ROW_WINDOW * 64) / Math.max(1, m.cols)));
    for (let r0 = start; r0 < end; r0 += step) {
      signal?.throwIfAborted();
      const r1 = Math.min(end, r0 + step);
      const bytes = this.adata.raw(m.dataset, r0, r1);
      for (let r = r0; r < r1; r++) {
        const indices: number[] = [];
        const at: number[] = [];
        for (let c = 0; c < m.cols; c++) {
          const p = ((r - r0) * m.cols + c) * size;
          if (!isZero(bytes, p, m.dtype)) {
            indices.push(c);
            at.push(p);
          }
        }
        const picked = new Uint8Array(at.length * size);
        for (let k = 0; k < at.length; k++) picked.set(bytes.subarray(at[k], at[k] + size), k * size);
        yield { row: r, indices, values: decode(picked, m.dtype) };
      }
    }
  }

  /**
   * CSC rows are gathered column by column in bands of rows, as the converter gathers them:
   * a pass over the matrix per band, so reading stops with the band that holds `end`.
   */
  private cscRows(m: SparseMatrix, start: number, end: number, signal?: AbortSignal) {
    const file = this.adata;
    const past = Symbol('past the rows asked for');
    return pulled<{ row: number; indices: number[]; values: Value[] }>(async (emit) => {
      let firstRow = 0;
      let data: Value[] = [];
      const sink: ChunkSink = {
        prepare: (raw) => {
          firstRow = raw.firstRow;
          data = decode(raw.data, m.dtype);
          const indices = new Uint32Array(raw.indices.slice().buffer);
          return { indices, maxIndex: 0, data: new Float64Array(0) };
        },
        write: async (indptr, chunk) => {
          if (firstRow >= end) throw past;
          const indices = chunk.indices as Uint32Array;
          for (let k = 0; k + 1 < indptr.length; k++) {
            const row = firstRow + k;
            if (row < start || row >= end) continue;
            await emit({
              row,
              indices: Array.from(indices.subarray(indptr[k], indptr[k + 1])),
              values: data.slice(indptr[k], indptr[k + 1]),
            });
          }
        },
      };
      await streamCsc(file, m, CSC_BAND, sink, signal).catch((error: unknown) => {
        if (error !== past) throw error;
      });
    });
  }

  async close(): Promise<void> {
    this.adata.close();
  }
}
