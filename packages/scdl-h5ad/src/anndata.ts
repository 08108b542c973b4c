import { FormatError, float16ToNumber } from '@binscope/core';
import type { FeatureColumnType } from '@binscope/scdl';
import { numericColumnType } from './column-types.js';
import {
  child,
  ELEMENT_SIZE,
  type ElementType,
  elementType,
  type H5Dataset,
  type H5File,
  type H5Group,
  type H5Lib,
  isDataset,
  isGroup,
  isReferenceType,
  isStringType,
  length,
  readAttr,
  type RowRange,
  readRawRows,
  readShapeAttr,
  readStringAttr,
  readStringListAttr,
  readStrings,
  withRawRows,
} from './h5.js';

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

/** Reads at most this many strings per h5wasm call (bounded wasm memory). */
const STRING_WINDOW = 1 << 18;
/** Reads at most this many numeric elements per call. */
const NUMERIC_WINDOW = 1 << 22;

function fail(
  code: 'InvalidValue' | 'CountMismatch' | 'OutOfBounds' | 'UnsupportedFeature',
  file: string,
  message: string,
): FormatError {
  return new FormatError(code, message, { file, format: 'h5ad' });
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
        throw fail(
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
      throw fail(
        'UnsupportedFeature',
        this.name,
        `${path}: matrix encoding "${encoding ?? 'none'}" is not csr_matrix, csc_matrix or dense`,
      );
    }
    const shape = readShapeAttr(entity, 'shape') ?? readShapeAttr(entity, 'h5sparse_shape');
    if (shape?.length !== 2) throw fail('InvalidValue', this.name, `${path}: missing or bad shape attribute`);
    const part = (name: string) => {
      const ds = child(entity, name);
      if (!isDataset(ds)) throw fail('InvalidValue', this.name, `${path}/${name}: missing`);
      const type = elementType(ds.metadata);
      if (type === undefined || (ds.shape ?? []).length !== 1) {
        throw fail('UnsupportedFeature', this.name, `${path}/${name}: not a 1-D numeric array`);
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
        throw fail('InvalidValue', this.name, `${path}/${what}: integer array expected, found ${t}`);
      }
    }
    const [rows, cols] = shape;
    const major = layout === 'csr' ? rows : cols;
    if (length(indptr.ds) !== major + 1) {
      throw fail(
        'CountMismatch',
        this.name,
        `${path}/indptr: ${length(indptr.ds)} entries, expected ${major + 1} for shape ${rows}×${cols}`,
      );
    }
    const nnz = length(data.ds);
    if (length(indices.ds) !== nnz) {
      throw fail(
        'CountMismatch',
        this.name,
        `${path}: indices has ${length(indices.ds)} entries but data has ${nnz}`,
      );
    }
    const first = this.integers(indptr.ds, indptr.type, 0, 1)[0] ?? 0;
    const last = this.integers(indptr.ds, indptr.type, major, major + 1)[0] ?? 0;
    if (first !== 0) throw fail('InvalidValue', this.name, `${path}/indptr starts at ${first}, not 0`);
    if (last !== nnz)
      throw fail('CountMismatch', this.name, `${path}/indptr ends at ${last} but data has ${nnz} entries`);
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
              throw fail('OutOfBounds', this.name, `${ds.path}[${start + i}]: value beyond 2^53`);
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
    if (entity === undefined) throw fail('InvalidValue', this.name, `/${name}: missing`);
    if (!isGroup(entity)) {
      throw fail(
        'UnsupportedFeature',
        this.name,
        `/${name}: a compound-dataset dataframe (anndata < 0.7) is not supported`,
      );
    }
    const indexName =
      readStringAttr(entity, '_index') ?? (entity.keys().includes('_index') ? '_index' : 'index');
    const indexEntity = child(entity, indexName);
    if (!isDataset(indexEntity))
      throw fail('InvalidValue', this.name, `/${name}/${indexName}: index missing`);
    const rows = length(indexEntity);
    const order =
      readStringListAttr(entity, 'column-order') ??
      entity
        .keys()
        .filter((k) => k !== indexName && k !== '__categories')
        .sort();
    const columns = order.map((col) => {
      const column = this.column(entity, col, `/${name}`);
      if (column.values.length !== rows) {
        throw fail(
          'CountMismatch',
          this.name,
          `/${name}/${col}: ${column.values.length} values, index has ${rows}`,
        );
      }
      return column;
    });
    return { rows, columns, index: () => this.column(entity, indexName, `/${name}`) };
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
    if (isGroup(entity)) return this.column(group, name, name).type;
    if (!isDataset(entity)) throw new Error('unknown');
    if (readAttr(entity, 'categories') !== undefined) return 'string';
    if (isStringType(entity.metadata)) return 'string';
    const t = elementType(entity.metadata);
    if (t === undefined) throw new Error('unknown');
    return numericColumnType(t);
  }

  private column(group: H5Group, name: string, where: string): Column {
    const entity = child(group, name);
    const path = `${where}/${name}`;
    if (entity === undefined) throw fail('InvalidValue', this.name, `${path}: missing`);
    if (isGroup(entity)) {
      const encoding = readStringAttr(entity, 'encoding-type');
      if (encoding === 'categorical') {
        const categories = child(entity, 'categories');
        const codes = child(entity, 'codes');
        if (!isDataset(categories) || !isDataset(codes))
          throw fail('InvalidValue', this.name, `${path}: categorical without categories/codes`);
        return this.categorical(name, path, categories, codes);
      }
      if (
        encoding === 'nullable-integer' ||
        encoding === 'nullable-boolean' ||
        encoding === 'nullable-string-array'
      ) {
        const values = child(entity, 'values');
        const mask = child(entity, 'mask');
        if (!isDataset(values) || !isDataset(mask))
          throw fail('InvalidValue', this.name, `${path}: ${encoding} without values/mask`);
        const decoded = this.plain(name, `${path}/values`, values);
        const missing = this.plain('mask', `${path}/mask`, mask).values;
        if (missing.length !== decoded.values.length)
          throw fail('CountMismatch', this.name, `${path}: mask and values differ in length`);
        const out = decoded.values.map((v, i) => (missing[i] ? null : v));
        // np.array() of a masked integer array: its own dtype when nothing is missing,
        // float64 with NaN (stored as null) when something is, as upstream writes it.
        if (encoding === 'nullable-integer') {
          if (!out.includes(null)) return { name, type: decoded.type, values: out };
          return { name, type: 'float64', values: out.map((v) => (v === null ? null : Number(v))) };
        }
        if (encoding === 'nullable-boolean')
          return { name, type: 'bool', values: out.map((v) => (v === null ? null : Boolean(v))) };
        return { name, type: 'string', values: out };
      }
      throw fail(
        'UnsupportedFeature',
        this.name,
        `${path}: column encoding "${encoding ?? 'none'}" is not supported`,
      );
    }
    const categoriesRef = readAttr(entity, 'categories');
    if (categoriesRef !== undefined) {
      // anndata 0.7: codes dataset whose "categories" attribute references the categories dataset.
      const ref = Array.isArray(categoriesRef) ? categoriesRef[0] : categoriesRef;
      let categories: unknown;
      try {
        categories = this.file.dereference(ref as Parameters<H5File['dereference']>[0]);
      } catch {
        categories = undefined;
      }
      if (!isDataset(categories))
        throw fail('InvalidValue', this.name, `${path}: categories reference does not resolve`);
      return this.categorical(name, path, categories, entity);
    }
    return this.plain(name, path, entity);
  }

  private categorical(name: string, path: string, categoriesDs: H5Dataset, codesDs: H5Dataset): Column {
    const categories = this.plain(name, `${path}/categories`, categoriesDs);
    const codesType = elementType(codesDs.metadata);
    if (codesType === undefined || codesType === 'bool' || codesType.startsWith('f')) {
      throw fail('InvalidValue', this.name, `${path}/codes: integer codes expected`);
    }
    const count = length(codesDs);
    const values: Column['values'] = new Array(count);
    const cats = categories.values;
    for (let start = 0; start < count; start += NUMERIC_WINDOW) {
      const end = Math.min(count, start + NUMERIC_WINDOW);
      const codes = this.integers(codesDs, codesType, start, end);
      for (let i = 0; i < codes.length; i++) {
        const code = codes[i];
        if (code === -1) values[start + i] = null;
        else if (code >= 0 && code < cats.length) values[start + i] = cats[code];
        else
          throw fail(
            'OutOfBounds',
            this.name,
            `${path}/codes[${start + i}] = ${code}: no such category (${cats.length})`,
          );
      }
    }
    if (categories.type === 'string') return { name, type: 'string', values };
    // Numeric categories: numpy gives the categories' dtype, or float64 (NaN → null) when any is missing.
    const anyMissing = values.includes(null);
    if (anyMissing && /^u?int/.test(categories.type)) {
      return { name, type: 'float64', values: values.map((v) => (v === null ? null : Number(v))) };
    }
    return { name, type: categories.type, values };
  }

  /** A plain 1-D column: strings, numbers or booleans. */
  private plain(name: string, path: string, ds: H5Dataset): Column {
    const shape = ds.shape ?? [];
    if (shape.length > 1) throw fail('UnsupportedFeature', this.name, `${path}: ${shape.length}-D column`);
    const count = length(ds);
    if (isStringType(ds.metadata)) {
      const values: string[] = [];
      for (let start = 0; start < count; start += STRING_WINDOW) {
        const end = Math.min(count, start + STRING_WINDOW);
        const chunk =
          shape.length === 0 ? [String(ds.value)] : readStrings(this.lib, this.name, ds, start, end);
        for (const s of chunk) values.push(s);
      }
      return { name, type: 'string', values };
    }
    if (isReferenceType(ds.metadata))
      throw fail('UnsupportedFeature', this.name, `${path}: reference column`);
    const type = elementType(ds.metadata);
    if (type === undefined)
      throw fail('UnsupportedFeature', this.name, `${path}: unsupported element type ${ds.dtype}`);
    const columnType = numericColumnType(type);
    const values: Column['values'] = new Array(count);
    const window = Math.max(1, Math.floor(NUMERIC_WINDOW / ELEMENT_SIZE[type]));
    for (let start = 0; start < count; start += window) {
      const end = Math.min(count, start + window);
      const bytes = shape.length === 0 ? this.raw(ds, 0, 1) : this.raw(ds, start, end);
      decodeInto(bytes, type, values, start);
    }
    if (columnType === 'float16' || columnType === 'float32' || columnType === 'float64') {
      // pyarrow.array(..., from_pandas=True) stores NaN as null.
      for (let i = 0; i < count; i++) if (Number.isNaN(values[i])) values[i] = null;
    }
    return { name, type: columnType, values };
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
      return isDataset(idx) ? length(idx) : undefined;
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

function decodeInto(bytes: Uint8Array, type: ElementType, out: Column['values'], at: number): void {
  const buffer = bytes.buffer as ArrayBuffer;
  const offset = bytes.byteOffset;
  const n = Math.floor(bytes.byteLength / ELEMENT_SIZE[type]);
  let view: ArrayLike<number | bigint>;
  switch (type) {
    case 'bool': {
      for (let i = 0; i < n; i++) out[at + i] = bytes[i] !== 0;
      return;
    }
    case 'u8':
      view = bytes;
      break;
    case 'i8':
      view = new Int8Array(buffer, offset, n);
      break;
    case 'u16':
      view = new Uint16Array(buffer, offset, n);
      break;
    case 'i16':
      view = new Int16Array(buffer, offset, n);
      break;
    case 'i32':
      view = new Int32Array(buffer, offset, n);
      break;
    case 'u32':
      view = new Uint32Array(buffer, offset, n);
      break;
    case 'i64':
      view = new BigInt64Array(buffer, offset, n);
      break;
    case 'u64':
      view = new BigUint64Array(buffer, offset, n);
      break;
    case 'f16': {
      const halves = new Uint16Array(buffer, offset, n);
      for (let i = 0; i < n; i++) out[at + i] = float16ToNumber(halves[i]);
      return;
    }
    case 'f32':
      view = new Float32Array(buffer, offset, n);
      break;
    case 'f64':
      view = new Float64Array(buffer, offset, n);
      break;
  }
  for (let i = 0; i < n; i++) out[at + i] = view[i];
}
