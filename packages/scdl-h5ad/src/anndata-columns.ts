import { float16ToNumber } from '@binscope/core';
import { numericColumnType } from './column-types.js';
import {
  child,
  ELEMENT_SIZE,
  type ElementType,
  elementType,
  type H5Dataset,
  type H5File,
  type H5Group,
  isDataset,
  isGroup,
  isReferenceType,
  isStringType,
  length,
  readAttr,
  readStringAttr,
  readStrings,
} from './h5.js';
import type { AnnDataFile, Column } from './anndata.js';
import { h5adError } from './h5ad-error.js';

/** Reads at most this many strings per h5wasm call (bounded wasm memory). */
const STRING_WINDOW = 1 << 18;
/** Reads at most this many numeric elements per call. */
const NUMERIC_WINDOW = 1 << 22;

const NULLABLE = new Set(['nullable-integer', 'nullable-boolean', 'nullable-string-array']);

/** One obs/var column of an AnnData dataframe: plain, categorical, or nullable (with its mask). */
export function readColumn(file: AnnDataFile, group: H5Group, name: string, where: string): Column {
  const entity = child(group, name);
  const path = `${where}/${name}`;
  if (entity === undefined) throw h5adError('InvalidValue', file.name, `${path}: missing`);
  if (isGroup(entity) && readStringAttr(entity, 'encoding-type') === 'categorical') {
    const codes = child(entity, 'codes');
    if (child(entity, 'categories') === undefined || !isDataset(codes))
      throw h5adError('InvalidValue', file.name, `${path}: categorical without categories/codes`);
    // Categories are any 1-D array anndata writes: a string-array or numeric array, or (0.11–0.12
    // with nullable strings, or pandas' nullable dtypes) a nullable-* group.
    const categories = readArray(file, entity, 'categories', path);
    return readCategorical(file, name, path, categories, codes);
  }
  if (isDataset(entity)) {
    const categoriesRef = readAttr(entity, 'categories');
    if (categoriesRef !== undefined) {
      // anndata 0.7: codes dataset whose "categories" attribute references the categories dataset.
      const ref = Array.isArray(categoriesRef) ? categoriesRef[0] : categoriesRef;
      let categories: unknown;
      try {
        categories = file.file.dereference(ref as Parameters<H5File['dereference']>[0]);
      } catch {
        categories = undefined;
      }
      if (!isDataset(categories))
        throw h5adError('InvalidValue', file.name, `${path}: categories reference does not resolve`);
      return readCategorical(
        file,
        name,
        path,
        readPlain(file, name, `${path}/categories`, categories),
        entity,
      );
    }
  }
  return { ...readArray(file, group, name, where), name };
}

/** A 1-D array element: a plain dataset, or a nullable-* group (values and mask). */
function readArray(file: AnnDataFile, group: H5Group, name: string, where: string): Column {
  const entity = child(group, name);
  const path = `${where}/${name}`;
  if (entity === undefined) throw h5adError('InvalidValue', file.name, `${path}: missing`);
  if (isDataset(entity)) return readPlain(file, name, path, entity);
  const encoding = readStringAttr(entity, 'encoding-type');
  if (encoding === undefined || !NULLABLE.has(encoding)) {
    throw h5adError(
      'UnsupportedFeature',
      file.name,
      `${path}: column encoding "${encoding ?? 'none'}" is not supported`,
    );
  }
  const values = child(entity, 'values');
  const mask = child(entity, 'mask');
  if (!isDataset(values) || !isDataset(mask))
    throw h5adError('InvalidValue', file.name, `${path}: ${encoding} without values/mask`);
  const decoded = readPlain(file, name, `${path}/values`, values);
  const missing = readPlain(file, 'mask', `${path}/mask`, mask).values;
  if (missing.length !== decoded.values.length)
    throw h5adError('CountMismatch', file.name, `${path}: mask and values differ in length`);
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

/** Elements along the first axis of a column or index, without reading its values. */
export function elementLength(entity: H5Group | H5Dataset): number | undefined {
  if (isDataset(entity)) return length(entity);
  const part = child(entity, readStringAttr(entity, 'encoding-type') === 'categorical' ? 'codes' : 'values');
  return isDataset(part) ? length(part) : undefined;
}

function readCategorical(
  file: AnnDataFile,
  name: string,
  path: string,
  categories: Column,
  codesDs: H5Dataset,
): Column {
  const cats = categories.values;
  const missingCategory = cats.indexOf(null);
  if (missingCategory >= 0) {
    // pandas refuses null categories ("Categorical categories cannot be null"), so anndata cannot read this.
    throw h5adError(
      'InvalidValue',
      file.name,
      `${path}/categories[${missingCategory}]: a category is missing (masked); categories cannot be null`,
    );
  }
  const codesType = elementType(codesDs.metadata);
  if (codesType === undefined || codesType === 'bool' || codesType.startsWith('f')) {
    throw h5adError('InvalidValue', file.name, `${path}/codes: integer codes expected`);
  }
  const count = length(codesDs);
  const values: Column['values'] = new Array(count);
  for (let start = 0; start < count; start += NUMERIC_WINDOW) {
    const end = Math.min(count, start + NUMERIC_WINDOW);
    const codes = file.integers(codesDs, codesType, start, end);
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i];
      if (code === -1) values[start + i] = null;
      else if (code >= 0 && code < cats.length) values[start + i] = cats[code];
      else
        throw h5adError(
          'OutOfBounds',
          file.name,
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
function readPlain(file: AnnDataFile, name: string, path: string, ds: H5Dataset): Column {
  const shape = ds.shape ?? [];
  if (shape.length > 1) throw h5adError('UnsupportedFeature', file.name, `${path}: ${shape.length}-D column`);
  const count = length(ds);
  if (isStringType(ds.metadata)) {
    const values: string[] = [];
    for (let start = 0; start < count; start += STRING_WINDOW) {
      const end = Math.min(count, start + STRING_WINDOW);
      const chunk =
        shape.length === 0 ? [String(ds.value)] : readStrings(file.lib, file.name, ds, start, end);
      for (const s of chunk) values.push(s);
    }
    return { name, type: 'string', values };
  }
  if (isReferenceType(ds.metadata))
    throw h5adError('UnsupportedFeature', file.name, `${path}: reference column`);
  const type = elementType(ds.metadata);
  if (type === undefined)
    throw h5adError('UnsupportedFeature', file.name, `${path}: unsupported element type ${ds.dtype}`);
  const columnType = numericColumnType(type);
  const values: Column['values'] = new Array(count);
  const window = Math.max(1, Math.floor(NUMERIC_WINDOW / ELEMENT_SIZE[type]));
  for (let start = 0; start < count; start += window) {
    const end = Math.min(count, start + window);
    const bytes = shape.length === 0 ? file.raw(ds, 0, 1) : file.raw(ds, start, end);
    decodeInto(bytes, type, values, start);
  }
  if (columnType === 'float16' || columnType === 'float32' || columnType === 'float64') {
    // pyarrow.array(..., from_pandas=True) stores NaN as null.
    for (let i = 0; i < count; i++) if (Number.isNaN(values[i])) values[i] = null;
  }
  return { name, type: columnType, values };
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
