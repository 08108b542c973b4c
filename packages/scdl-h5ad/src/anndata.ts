import type { FeatureColumnType } from '@binscope/scdl';
import { numericColumnType } from './column-types.js';
import {
  child,
  type ElementType,
  elementType,
  type H5Dataset,
  type H5File,
  type H5Group,
  type H5Lib,
  isDataset,
  isGroup,
  isStringType,
  length,
  readAttr,
  type RowRange,
  readRawRows,
  readShapeAttr,
  readStringAttr,
  readStringListAttr,
  withRawRows,
} from './h5.js';
import { elementLength, readColumn } from './anndata-columns.js';
import { h5adError } from './h5ad-error.js';

/** A sparse matrix stored as data / indices / indptr (CSR: rows are major; CSC: columns). */
export interface SparseMatrix {
  kind: 'sparse';
  layout: 'csr' | 'csc';
  /** HDF5 path, e.g. "/raw/X". */
  path: string;
  rows: number;
  cols: number;
  nnz: number;
  dtype: ElementType;
  data: H5Dataset;
  indices: H5Dataset;
  indptr: H5Dataset;
  indicesType: ElementType;
  indptrType: ElementType;
}

/** A dense 2-D matrix dataset (rows × cols). */
export interface DenseMatrix {
  kind: 'dense';
  path: string;
  rows: number;
  cols: number;
  dtype: ElementType;
  dataset: H5Dataset;
}

export type Matrix = SparseMatrix | DenseMatrix;

/** Parquet-level column types (what pyarrow infers from the pandas column upstream reads). */
/** Arrow's type names, as upstream's parquet columns carry them (C11). */
export type ColumnType = FeatureColumnType;

/** One dataframe column, decoded: categoricals resolved to their values, missing values as null. */
export interface Column {
  name: string;
  type: ColumnType;
  /** Strings, numbers, booleans, or bigints for int64; null where a value is missing. */
  values: (string | number | boolean | bigint | null)[];
}

export interface DataFrame {
  /** Number of rows (the index length). */
  rows: number;
  /** Columns in `column-order`. */
  columns: Column[];
  /** Reads the index (cell or gene names), decoded like any column; only read when asked for. */
  index(): Column;
}

/** A short description of a `.h5ad` for people (the web page's summary, the CLI's info). */
export interface H5adSummary {
  name: string;
  /** anndata's encoding version of the file ("0.1.0"), when present. */
  encodingVersion?: string;
  obs: number;
  vars: number;
  x?: MatrixSummary;
  rawX?: MatrixSummary;
  obsColumns: { name: string; type: ColumnType | 'unknown' }[];
  varColumns: { name: string; type: ColumnType | 'unknown' }[];
  obsp: string[];
  obsm: string[];
  layers: string[];
}

export interface MatrixSummary {
  layout: 'csr' | 'csc' | 'dense';
  rows: number;
  cols: number;
  /** Stored entries (sparse) or rows × cols (dense). */
  nnz: number;
  dtype: ElementType;
}

/**
 * An opened `.h5ad` (AnnData on HDF5). Reads lazily: attributes and shapes on demand, arrays
 * in windows. Understands anndata ≥ 0.8 encodings (encoding-type attributes) and the 0.7
 * layout (h5sparse_format, categories as object references, `raw.X` at the root).
 */
export class AnnDataFile {
  constructor(
    readonly lib: H5Lib,
    readonly file: H5File,
    /** The name errors and labels use (the path as given). */
    readonly name: string,
    /** Runs after the HDF5 file is closed (browsers: unmount the file from wasm's FS). */
    private readonly release?: () => void,
  ) {}

  close(): void {
    try {
      this.file.close();
    } catch {
      // Already closed.
    }
    this.release?.();
  }

  private entity(path: string): H5Group | H5Dataset | undefined {
    let node: H5Group | H5Dataset | undefined = this.file;
    for (const part of path.split('/').filter(Boolean)) {
      if (!isGroup(node)) return undefined;
      node = child(node, part);
    }
    return node;
  }

  has(path: string): boolean {
    return this.entity(path) !== undefined;
  }

  /** `X`, or `raw.X` (raw/X since anndata 0.7, `raw.X` at the root before). */
  matrix(which: 'X' | 'raw.X'): Matrix | undefined {
    if (which === 'X') {
      const x = this.entity('X');
      return x === undefined ? undefined : this.readMatrix(x, '/X');
    }
    const raw = this.entity('raw/X');
    if (raw !== undefined) return this.readMatrix(raw, '/raw/X');
    const legacy = this.entity('raw.X');
    return legacy === undefined ? undefined : this.readMatrix(legacy, '/raw.X');
  }

  /** An `obsp` (cell × cell) matrix, e.g. a neighbor graph. */
  obsp(key: string): Matrix | undefined {
    const entity = this.entity(`obsp/${key}`);
    return entity === undefined ? undefined : this.readMatrix(entity, `/obsp/${key}`);
  }

  keysOf(group: string): string[] {
    const entity = this.entity(group);
    return isGroup(entity) ? entity.keys() : [];
  }

  readMatrix(entity: H5Group | H5Dataset, path: string): Matrix {
    if (isDataset(entity)) {
      const shape = entity.shape ?? [];
      const dtype = elementType(entity.metadata);
      if (shape.length !== 2 || dtype === undefined) {
        throw h5adError(
          'UnsupportedFeature',
          this.name,
          `${path}: a ${shape.length}-D ${entity.dtype} dataset is not a matrix`,
        );
      }
      return { kind: 'dense', path, rows: shape[0], cols: shape[1], dtype, dataset: entity };
    }
    const encoding = readStringAttr(entity, 'encoding-type') ?? readStringAttr(entity, 'h5sparse_format');
    const layout =
      encoding === 'csr_matrix' || encoding === 'csr'
        ? 'csr'
        : encoding === 'csc_matrix' || encoding === 'csc'
          ? 'csc'
          : undefined;
    if (!layout) {
      throw h5adError(
        'UnsupportedFeature',
        this.name,
        `${path}: matrix encoding "${encoding ?? 'none'}" is not csr_matrix, csc_matrix or dense`,
      );
    }
    const shape = readShapeAttr(entity, 'shape') ?? readShapeAttr(entity, 'h5sparse_shape');
    if (shape?.length !== 2)
      throw h5adError('InvalidValue', this.name, `${path}: missing or bad shape attribute`);
    const part = (name: string) => {
      const ds = child(entity, name);
      if (!isDataset(ds)) throw h5adError('InvalidValue', this.name, `${path}/${name}: missing`);
      const type = elementType(ds.metadata);
      if (type === undefined || (ds.shape ?? []).length !== 1) {
        throw h5adError('UnsupportedFeature', this.name, `${path}/${name}: not a 1-D numeric array`);
      }
      return { ds, type };
    };
    const data = part('data');
    const indices = part('indices');
    const indptr = part('indptr');
    for (const [what, t] of [
      ['indices', indices.type],
      ['indptr', indptr.type],
    ] as const) {
      if (t === 'f16' || t === 'f32' || t === 'f64' || t === 'bool') {
        throw h5adError('InvalidValue', this.name, `${path}/${what}: integer array expected, found ${t}`);
      }
    }
    const [rows, cols] = shape;
    const major = layout === 'csr' ? rows : cols;
    if (length(indptr.ds) !== major + 1) {
      throw h5adError(
        'CountMismatch',
        this.name,
        `${path}/indptr: ${length(indptr.ds)} entries, expected ${major + 1} for shape ${rows}×${cols}`,
      );
    }
    const nnz = length(data.ds);
    if (length(indices.ds) !== nnz) {
      throw h5adError(
        'CountMismatch',
        this.name,
        `${path}: indices has ${length(indices.ds)} entries but data has ${nnz}`,
      );
    }
    const first = this.integers(indptr.ds, indptr.type, 0, 1)[0] ?? 0;
    const last = this.integers(indptr.ds, indptr.type, major, major + 1)[0] ?? 0;
    if (first !== 0) throw h5adError('InvalidValue', this.name, `${path}/indptr starts at ${first}, not 0`);
    if (last !== nnz)
      throw h5adError(
        'CountMismatch',
        this.name,
        `${path}/indptr ends at ${last} but data has ${nnz} entries`,
      );
    return {
      kind: 'sparse',
      layout,
      path,
      rows,
      cols,
      nnz,
      dtype: data.type,
      data: data.ds,
      indices: indices.ds,
      indptr: indptr.ds,
      indicesType: indices.type,
      indptrType: indptr.type,
    };
  }

  /** Elements [start, end) of a 1-D dataset as raw little-endian bytes. */
  raw(ds: H5Dataset, start: number, end: number): Uint8Array {
    return readRawRows(this.lib, this.name, ds, start, end);
  }

  /** Views of rows of datasets in wasm memory, valid only during `use` (which must not await). */
  views<T>(ranges: readonly RowRange[], use: (views: Uint8Array[]) => T): T {
    return withRawRows(this.lib, this.name, ranges, use);
  }

  /** Integer elements [start, end) as exact numbers (64-bit values above 2^53 are rejected). */
  integers(ds: H5Dataset, type: ElementType, start: number, end: number): Float64Array {
    return this.views([{ ds, start, end }], ([bytes]) => {
      const count = end - start;
      const out = new Float64Array(count);
      const buffer = bytes.buffer as ArrayBuffer;
      switch (type) {
        case 'i64':
        case 'u64': {
          const words = new Uint32Array(buffer, bytes.byteOffset, count * 2);
          const signed = type === 'i64';
          for (let i = 0; i < count; i++) {
            const hi = signed ? words[2 * i + 1] | 0 : words[2 * i + 1];
            if (hi > 0x1fffff || hi < -0x200000) {
              throw h5adError('OutOfBounds', this.name, `${ds.path}[${start + i}]: value beyond 2^53`);
            }
            out[i] = hi * 4294967296 + words[2 * i];
          }
          return out;
        }
        case 'i32':
          out.set(new Int32Array(buffer, bytes.byteOffset, count));
          return out;
        case 'u32':
          out.set(new Uint32Array(buffer, bytes.byteOffset, count));
          return out;
        case 'i16':
          out.set(new Int16Array(buffer, bytes.byteOffset, count));
          return out;
        case 'u16':
          out.set(new Uint16Array(buffer, bytes.byteOffset, count));
          return out;
        case 'i8':
          out.set(new Int8Array(buffer, bytes.byteOffset, count));
          return out;
        default:
          out.set(new Uint8Array(buffer, bytes.byteOffset, count));
          return out;
      }
    });
  }

  /** `obs` or `var` (anndata's dataframe encoding, or the 0.7 layout). */
  dataframe(name: 'obs' | 'var'): DataFrame {
    const entity = this.entity(name);
    if (entity === undefined) throw h5adError('InvalidValue', this.name, `/${name}: missing`);
    if (!isGroup(entity)) {
      throw h5adError(
        'UnsupportedFeature',
        this.name,
        `/${name}: a compound-dataset dataframe (anndata < 0.7) is not supported`,
      );
    }
    const indexName =
      readStringAttr(entity, '_index') ?? (entity.keys().includes('_index') ? '_index' : 'index');
    const indexEntity = child(entity, indexName);
    // A string-array dataset, or a nullable-string-array group (a pandas string index, anndata ≥ 0.11).
    const rows = indexEntity === undefined ? undefined : elementLength(indexEntity);
    if (rows === undefined)
      throw h5adError('InvalidValue', this.name, `/${name}/${indexName}: index missing`);
    const order =
      readStringListAttr(entity, 'column-order') ??
      entity
        .keys()
        .filter((k) => k !== indexName && k !== '__categories')
        .sort();
    const columns = order.map((col) => {
      const column = readColumn(this, entity, col, `/${name}`);
      if (column.values.length !== rows) {
        throw h5adError(
          'CountMismatch',
          this.name,
          `/${name}/${col}: ${column.values.length} values, index has ${rows}`,
        );
      }
      return column;
    });
    return { rows, columns, index: () => readColumn(this, entity, indexName, `/${name}`) };
  }

  /** The name of a dataframe's index column (`_index` unless its `_index` attribute says otherwise). */
  indexName(name: 'obs' | 'var'): string {
    const entity = this.entity(name);
    return (isGroup(entity) ? readStringAttr(entity, '_index') : undefined) ?? '_index';
  }

  /** Column names and types without reading values (for summaries). */
  columnTypes(name: 'obs' | 'var'): { name: string; type: ColumnType | 'unknown' }[] {
    const entity = this.entity(name);
    if (!isGroup(entity)) return [];
    const indexName = readStringAttr(entity, '_index') ?? '_index';
    const order =
      readStringListAttr(entity, 'column-order') ??
      entity.keys().filter((k) => k !== indexName && k !== '__categories');
    return order.map((col) => {
      try {
        return { name: col, type: this.columnType(entity, col) };
      } catch {
        return { name: col, type: 'unknown' as const };
      }
    });
  }

  private columnType(group: H5Group, name: string): ColumnType {
    const entity = child(group, name);
    // Encoded columns (categorical, nullable): their type depends on the values (a missing
    // integer makes the column float64), so decode them as the conversion does.
    if (isGroup(entity)) return readColumn(this, group, name, name).type;
    if (!isDataset(entity)) throw new Error('unknown');
    if (readAttr(entity, 'categories') !== undefined) return 'string';
    if (isStringType(entity.metadata)) return 'string';
    const t = elementType(entity.metadata);
    if (t === undefined) throw new Error('unknown');
    return numericColumnType(t);
  }

  summary(): H5adSummary {
    const describe = (m: Matrix | undefined): MatrixSummary | undefined =>
      m === undefined
        ? undefined
        : {
            layout: m.kind === 'dense' ? 'dense' : m.layout,
            rows: m.rows,
            cols: m.cols,
            nnz: m.kind === 'dense' ? m.rows * m.cols : m.nnz,
            dtype: m.dtype,
          };
    const safe = <T>(f: () => T): T | undefined => {
      try {
        return f();
      } catch {
        return undefined;
      }
    };
    const x = safe(() => this.matrix('X'));
    const rawX = safe(() => this.matrix('raw.X'));
    const indexLength = (group: 'obs' | 'var') => {
      const entity = this.entity(group);
      if (!isGroup(entity)) return undefined;
      const idx = child(entity, readStringAttr(entity, '_index') ?? '_index');
      return idx === undefined ? undefined : elementLength(idx);
    };
    return {
      name: this.name,
      encodingVersion: readStringAttr(this.file, 'encoding-version'),
      obs: indexLength('obs') ?? x?.rows ?? 0,
      vars: indexLength('var') ?? x?.cols ?? 0,
      x: describe(x),
      rawX: describe(rawX),
      obsColumns: this.columnTypes('obs'),
      varColumns: this.columnTypes('var'),
      obsp: this.keysOf('obsp'),
      obsm: this.keysOf('obsm'),
      layers: this.keysOf('layers'),
    };
  }
}
