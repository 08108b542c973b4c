/**
 * AnnData's on-disk layout written with h5wasm (anndata's `_io/specs`: every element carries
 * `encoding-type` / `encoding-version`): dataframes with string-array, array, categorical and
 * nullable columns, the empty dict groups, and X as a csr_matrix written in row blocks into
 * chunked datasets that grow with each block, so memory holds one block, not the matrix.
 *
 * h5wasm cannot write two things anndata would: HDF5's float16 (X and columns of float16 are
 * written as float32, which holds every float16 exactly) and h5py's boolean enum (booleans are
 * written as uint8 0/1).
 */
import type { FeatureColumnType, FeatureValue, IndexArray, RowBatch, ScdlDataDType } from '@binscope/scdl';
import type { H5Dataset, H5Group } from './h5.js';
import { scdlError } from './h5ad-error.js';
import type { Frame, FrameColumn } from './export-frames.js';

/** h5wasm's dtype codes (numpy's struct letters: f float32, d float64, q int64, B uint8, …). */
type Dtype = '<f' | '<d' | '<B' | '<H' | '<I' | '<Q' | '<b' | '<h' | '<i' | '<q';

/** The dtype X's data is written in (float16 as float32: h5wasm writes no float16). */
export const DATA_DTYPE: Record<ScdlDataDType, Dtype> = {
  float16: '<f',
  float32: '<f',
  float64: '<d',
  uint8: '<B',
  uint16: '<H',
  uint32: '<I',
  uint64: '<Q',
};

const COLUMN_DTYPE: Record<Exclude<FeatureColumnType, 'string'>, Dtype> = {
  bool: '<B',
  int8: '<b',
  int16: '<h',
  int32: '<i',
  int64: '<q',
  uint8: '<B',
  uint16: '<H',
  uint32: '<I',
  uint64: '<Q',
  float16: '<f',
  float32: '<f',
  float64: '<d',
};

/** Sets anndata's two encoding attributes. */
export function encode(obj: H5Group | H5Dataset, type: string, version: string): void {
  obj.create_attribute('encoding-type', type);
  obj.create_attribute('encoding-version', version);
}

/** A list-of-strings attribute; an empty one as h5py writes it (an empty float64 array). */
function stringListAttr(obj: H5Group, name: string, values: string[]): void {
  if (values.length === 0) obj.create_attribute(name, new Float64Array(0), [0]);
  else obj.create_attribute(name, values, [values.length], 'S');
}

function stringArray(group: H5Group, name: string, values: string[]): void {
  encode(
    group.create_dataset({ name, data: values, shape: [values.length], dtype: 'S' }),
    'string-array',
    '0.2.0',
  );
}

function array(group: H5Group, name: string, values: ArrayLike<number | bigint>, dtype: Dtype): void {
  encode(group.create_dataset({ name, data: typed(values, dtype), dtype }), 'array', '0.2.0');
}

type Typed =
  | Int8Array
  | Int16Array
  | Int32Array
  | BigInt64Array
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | BigUint64Array
  | Float32Array
  | Float64Array;

function typed(values: ArrayLike<number | bigint>, dtype: Dtype): Typed {
  const from = Array.from(values);
  switch (dtype) {
    case '<q':
      return BigInt64Array.from(from, (v) => BigInt(v));
    case '<Q':
      return BigUint64Array.from(from, (v) => BigInt(v));
    case '<f':
      return Float32Array.from(from, Number);
    case '<d':
      return Float64Array.from(from, Number);
    case '<b':
      return Int8Array.from(from, Number);
    case '<h':
      return Int16Array.from(from, Number);
    case '<i':
      return Int32Array.from(from, Number);
    case '<B':
      return Uint8Array.from(from, Number);
    case '<H':
      return Uint16Array.from(from, Number);
    case '<I':
      return Uint32Array.from(from, Number);
  }
}

/** The smallest signed dtype codes of `count` categories take (as pandas picks them). */
function codesDtype(count: number): Dtype {
  return count < 128 ? '<b' : count < 32768 ? '<h' : '<i';
}

/** Text with nulls: anndata's categorical with code -1 for a missing value, categories sorted. */
function categorical(group: H5Group, name: string, values: FeatureValue[]): void {
  const categories = [...new Set(values.filter((v): v is string => v !== null).map(String))].sort();
  const code = new Map(categories.map((c, k) => [c, k]));
  const g = group.create_group(name);
  encode(g, 'categorical', '0.2.0');
  g.create_attribute('ordered', new Uint8Array([0]), [], '<B');
  array(
    g,
    'codes',
    values.map((v) => (v === null ? -1 : code.get(String(v))!)),
    codesDtype(categories.length),
  );
  stringArray(g, 'categories', categories);
}

/** Numbers or booleans with nulls: anndata's nullable-integer / nullable-boolean (values, mask). */
function nullable(group: H5Group, name: string, values: FeatureValue[], dtype: Dtype, bool: boolean): void {
  const g = group.create_group(name);
  encode(g, bool ? 'nullable-boolean' : 'nullable-integer', '0.1.0');
  const zero = dtype === '<q' || dtype === '<Q' ? 0n : 0;
  array(
    g,
    'values',
    values.map((v) => (v === null ? zero : typeof v === 'boolean' ? Number(v) : (v as number | bigint))),
    dtype,
  );
  array(
    g,
    'mask',
    values.map((v) => (v === null ? 1 : 0)),
    '<B',
  );
}

/** One column in the encoding anndata gives its pandas dtype. */
function column(group: H5Group, col: FrameColumn, frame: string): void {
  const { name, type, values } = col;
  if (name.includes('/') || name === '.' || name === '')
    throw scdlError(
      'InvalidValue',
      undefined,
      `${frame} column "${name}" cannot be an HDF5 name (AnnData stores columns by name)`,
    );
  const hasNull = values.some((v) => v === null);
  if (type === 'string') {
    if (hasNull) categorical(group, name, values);
    else stringArray(group, name, values.map(String));
    return;
  }
  const dtype = COLUMN_DTYPE[type];
  if (type.startsWith('float')) {
    // A float column's missing values are NaN in pandas (from_pandas made them nulls).
    array(
      group,
      name,
      values.map((v) => (v === null ? Number.NaN : Number(v))),
      dtype,
    );
    return;
  }
  if (hasNull) nullable(group, name, values, dtype, type === 'bool');
  else
    array(
      group,
      name,
      values.map((v) => (typeof v === 'boolean' ? Number(v) : (v as number | bigint))),
      dtype,
    );
}

/** A dataframe (encoding 0.2.0): `_index` naming the index dataset, `column-order`, then the columns. */
export function writeFrame(parent: H5Group, name: string, frame: Frame): void {
  const group = parent.create_group(name);
  encode(group, 'dataframe', '0.2.0');
  const names = new Set(frame.columns.map((c) => c.name));
  let indexKey = '_index';
  while (names.has(indexKey)) indexKey = `_${indexKey}`;
  group.create_attribute('_index', indexKey);
  stringListAttr(
    group,
    'column-order',
    frame.columns.map((c) => c.name),
  );
  stringArray(group, indexKey, frame.index ?? Array.from({ length: frame.rows }, (_, k) => String(k)));
  for (const col of frame.columns) column(group, col, name);
}

/** The elements anndata writes for an AnnData with nothing in them. */
export function writeEmptyDicts(file: H5Group): void {
  for (const name of ['layers', 'obsm', 'obsp', 'uns', 'varm', 'varp'])
    encode(file.create_group(name), 'dict', '0.1.0');
}

/** Elements per HDF5 chunk of X's arrays (h5py-sized: a few hundred KB). */
const CHUNK = 1 << 16;
const INT32_MAX = 2 ** 31 - 1;

/** A 1-D dataset that grows as blocks are appended, in chunks no longer than its expected length. */
class Growing {
  length = 0;
  private readonly dataset: H5Dataset;

  constructor(group: H5Group, name: string, dtype: Dtype, expected: number) {
    this.dataset = group.create_dataset({
      name,
      data: typed([], dtype),
      shape: [0],
      maxshape: [null],
      chunks: [Math.min(CHUNK, Math.max(1, expected))],
      dtype,
    });
  }

  append(values: ArrayBufferView & ArrayLike<unknown>): void {
    if (values.length === 0) return;
    const end = this.length + values.length;
    this.dataset.resize([end]);
    this.dataset.write_slice([[this.length, end]], values);
    this.length = end;
  }
}

/**
 * X as anndata's csr_matrix (shape [rows, cols]; data in the archive's dtype, int32 indices
 * and indptr, int64 where the counts need it), appended one row batch at a time.
 */
export class CsrWriter {
  private readonly data: Growing;
  private readonly indices: Growing;
  private readonly indptr: Growing;
  private readonly wideIndptr: boolean;
  private readonly wideIndices: boolean;
  private rows = 0;

  constructor(
    parent: H5Group,
    dataDtype: ScdlDataDType,
    private readonly shape: [number, number],
    private readonly nnz: number,
    private readonly file: string,
  ) {
    const group = parent.create_group('X');
    encode(group, 'csr_matrix', '0.1.0');
    group.create_attribute('shape', new BigInt64Array(shape.map(BigInt)), [2], '<q');
    this.wideIndptr = nnz > INT32_MAX;
    this.wideIndices = shape[1] > INT32_MAX;
    this.data = new Growing(group, 'data', DATA_DTYPE[dataDtype], nnz);
    this.indices = new Growing(group, 'indices', this.wideIndices ? '<q' : '<i', nnz);
    this.indptr = new Growing(group, 'indptr', this.wideIndptr ? '<q' : '<i', shape[0] + 1);
  }

  /** A batch of consecutive rows: its indptr (but the last entry), its indices and values. */
  append(batch: RowBatch): void {
    const count = batch.indptr.length - 1;
    const pointers = this.wideIndptr ? new BigInt64Array(count) : new Int32Array(count);
    for (let k = 0; k < count; k++) {
      const at = batch.firstEntry + batch.indptr[k];
      pointers[k] = (this.wideIndptr ? BigInt(at) : at) as never;
    }
    this.indptr.append(pointers);
    this.indices.append(this.columnIndices(batch.indices, batch.start));
    this.data.append(batch.values);
    this.rows += count;
  }

  /** The batch's column indices as X's index dtype, each checked to lie inside var. */
  private columnIndices(indices: IndexArray, row: number): Int32Array | BigInt64Array {
    const cols = this.shape[1];
    const out = this.wideIndices ? new BigInt64Array(indices.length) : new Int32Array(indices.length);
    for (let k = 0; k < indices.length; k++) {
      const c = indices[k];
      if (!(c < cols))
        throw scdlError(
          'OutOfBounds',
          this.file,
          `column index ${c} (from row ${row} on) is outside the ${cols} var features`,
        );
      out[k] = (this.wideIndices ? BigInt(c) : c) as never;
    }
    return out;
  }

  /** The last indptr entry; checks every row and entry arrived. */
  finish(): void {
    if (this.rows !== this.shape[0] || this.data.length !== this.nnz)
      throw scdlError(
        'CountMismatch',
        this.file,
        `wrote ${this.rows} rows and ${this.data.length} values, the archive has ${this.shape[0]} and ${this.nnz}`,
      );
    this.indptr.append(this.wideIndptr ? BigInt64Array.of(BigInt(this.nnz)) : Int32Array.of(this.nnz));
  }
}
