import { type DType, FormatError } from '@binscope/core';
import { DTYPE_SIZE } from '@binscope/core/binary';
import type * as H5 from 'h5wasm';

/** The h5wasm module namespace: its node build in Node, its wasm/ESM build in browsers. */
export type H5Lib = typeof H5;
export type H5File = H5.File;
export type H5Group = H5.Group;
export type H5Dataset = H5.Dataset;
type Metadata = H5.Metadata;

/** Element types the converter understands: numbers (core's DType names) and booleans. */
export type ElementType = DType | 'bool';

/** Core's dtype sizes plus HDF5's boolean enum, stored as one byte. */
export const ELEMENT_SIZE: Record<ElementType, number> = { ...DTYPE_SIZE, bool: 1 };

// HDF5's H5T_class_t values (stable across HDF5 versions).
const H5T_INTEGER = 0;
const H5T_FLOAT = 1;
const H5T_STRING = 3;
const H5T_REFERENCE = 7;
const H5T_ENUM = 8;

/** The numeric element type of a dataset's metadata, or undefined for strings, compounds, etc. */
export function elementType(meta: Metadata): ElementType | undefined {
  if (meta.type === H5T_ENUM) {
    const members = meta.enum_type?.members ?? {};
    const names = Object.keys(members);
    // h5py stores numpy bool as an enum {FALSE: 0, TRUE: 1}.
    if (names.length === 2 && members.FALSE === 0 && members.TRUE === 1) return 'bool';
    return undefined;
  }
  if (meta.type === H5T_INTEGER) {
    const bits = meta.size * 8;
    if (bits !== 8 && bits !== 16 && bits !== 32 && bits !== 64) return undefined;
    return `${meta.signed ? 'i' : 'u'}${bits}` as ElementType;
  }
  if (meta.type === H5T_FLOAT) {
    if (meta.size === 2) return 'f16';
    if (meta.size === 4) return 'f32';
    if (meta.size === 8) return 'f64';
  }
  return undefined;
}

export function isStringType(meta: Metadata): boolean {
  return meta.type === H5T_STRING;
}

export function isReferenceType(meta: Metadata): boolean {
  return meta.type === H5T_REFERENCE;
}

/** Names an HDF5 object for messages: "input.h5ad:/raw/X/data". */
export function where(file: string, path: string): string {
  return `${file}:${path}`;
}

/**
 * HDF5's error stack (many lines, outermost call first) as one line: the innermost
 * message, which names the actual problem ("truncated file", "can't read data", ...).
 */
export function condenseHdf5Error(cause: unknown): string {
  const text = cause instanceof Error ? cause.message : String(cause);
  const messages = [...text.matchAll(/#\d+: .*? in ([\w]+)\(\): (.*)$/gm)].map(
    (m) => `${m[1]}: ${m[2].trim()}`,
  );
  return messages.length > 0 ? messages[messages.length - 1] : text.trim().split('\n')[0];
}

/** An error raised inside h5wasm (corrupt file, unsupported filter) as a FormatError. */
export function h5Error(file: string, what: string, cause: unknown): FormatError {
  const detail = condenseHdf5Error(cause);
  const code = /truncat|eof|addr overflow/i.test(detail) ? 'Truncated' : 'InvalidValue';
  return new FormatError(code, `${what}: HDF5 read failed (${detail})`, { file, format: 'h5ad' }, { cause });
}

/**
 * Makes HDF5 errors throw (with their message) instead of printing HDF5-DIAG stacks to the
 * console and carrying on with an invalid id.
 */
export function useThrowingErrors(lib: H5Lib): void {
  const module = lib.Module as unknown as { activate_throwing_error_handler?: () => number };
  module.activate_throwing_error_handler?.();
}

export function attributeNames(obj: H5Group | H5Dataset): string[] {
  return Object.keys(obj.attrs);
}

/** An attribute's value, or undefined when it is absent. */
export function readAttr(obj: H5Group | H5Dataset, name: string): unknown {
  if (!attributeNames(obj).includes(name)) return undefined;
  return obj.get_attribute(name, false);
}

export function readStringAttr(obj: H5Group | H5Dataset, name: string): string | undefined {
  const value = readAttr(obj, name);
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
  return undefined;
}

/** A list-of-strings attribute (column-order). h5py writes an empty one as a float64 array. */
export function readStringListAttr(obj: H5Group | H5Dataset, name: string): string[] | undefined {
  const value = readAttr(obj, name);
  if (value === undefined) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.map(String);
  if (ArrayBuffer.isView(value))
    return (value as unknown as ArrayLike<unknown>).length === 0 ? [] : undefined;
  return undefined;
}

/** An integer-pair attribute such as `shape` / `h5sparse_shape`. */
export function readShapeAttr(obj: H5Group | H5Dataset, name: string): number[] | undefined {
  const value = readAttr(obj, name);
  if (value === undefined || value === null) return undefined;
  const items: unknown[] = Array.isArray(value)
    ? value
    : ArrayBuffer.isView(value)
      ? Array.from(value as unknown as ArrayLike<unknown>)
      : [value];
  const out = items.map((v) => (typeof v === 'bigint' ? Number(v) : Number(v)));
  return out.every((v) => Number.isSafeInteger(v) && v >= 0) ? out : undefined;
}

export function child(group: H5Group, name: string): H5Group | H5Dataset | undefined {
  if (!group.keys().includes(name)) return undefined;
  const entity = group.get(name) as unknown;
  // Duck typing, not class names: bundlers may rename h5wasm's classes.
  if (isGroup(entity as H5Group) || isDataset(entity as H5Dataset)) return entity as H5Group | H5Dataset;
  return undefined;
}

export function isGroup(entity: unknown): entity is H5Group {
  return typeof entity === 'object' && entity !== null && typeof (entity as H5Group).keys === 'function';
}

export function isDataset(entity: unknown): entity is H5Dataset {
  return typeof entity === 'object' && entity !== null && typeof (entity as H5Dataset).slice === 'function';
}

/** Number of elements along the first axis (a scalar dataset counts as 1). */
export function length(ds: H5Dataset): number {
  const shape = ds.shape;
  if (shape === null) return 0;
  return shape.length === 0 ? 1 : shape[0];
}

export interface RowRange {
  ds: H5Dataset;
  start: number;
  end: number;
}

function rangeBytes(range: RowRange): number {
  const meta = range.ds.metadata;
  const shape = meta.shape ?? [];
  const rowElements = shape.slice(1).reduce((a, b) => a * b, 1);
  return Math.max(0, range.end - range.start) * rowElements * meta.size;
}

/**
 * Reads rows [start, end) of 1-D or 2-D datasets straight into wasm memory (HDF5 hyperslab
 * reads: only those bytes come from the file; h5wasm converts numbers to little-endian) and
 * hands `use` views of them. The views die when `use` returns: `use` must copy what it keeps
 * and must not await (another h5wasm call could grow and replace wasm memory).
 */
export function withRawRows<T>(
  lib: H5Lib,
  file: string,
  ranges: readonly RowRange[],
  use: (views: Uint8Array[]) => T,
): T {
  const module = lib.Module;
  const sizes = ranges.map(rangeBytes);
  const pointers: number[] = [];
  try {
    for (const [i, range] of ranges.entries()) {
      const nbytes = sizes[i];
      if (nbytes === 0) {
        pointers.push(0);
        continue;
      }
      if (nbytes > module.MAXIMUM_MEMORY) {
        throw new FormatError(
          'UnsupportedFeature',
          `${range.ds.path}: a read of ${nbytes} bytes exceeds wasm memory`,
          { file, format: 'h5ad' },
        );
      }
      const ptr = module._malloc(nbytes);
      if (ptr === 0) {
        throw new FormatError(
          'UnsupportedFeature',
          `${range.ds.path}: cannot allocate ${nbytes} bytes in wasm memory`,
          { file, format: 'h5ad' },
        );
      }
      pointers.push(ptr);
      const shape = range.ds.metadata.shape ?? [];
      const count = [BigInt(range.end - range.start), ...shape.slice(1).map(BigInt)];
      const offset = [BigInt(range.start), ...shape.slice(1).map(() => 0n)];
      const strides = shape.map(() => 1n);
      try {
        const status = module.get_dataset_data(
          range.ds.file_id,
          range.ds.path,
          count,
          offset,
          strides,
          BigInt(ptr),
        );
        if (typeof status === 'number' && status < 0) throw new Error(`status ${status}`);
      } catch (cause) {
        throw h5Error(file, where(file, range.ds.path), cause);
      }
    }
    // Views are taken only now: an allocation above may have grown (replaced) wasm memory.
    const heap = module.HEAPU8;
    return use(
      pointers.map((ptr, i) => (ptr === 0 ? new Uint8Array(0) : heap.subarray(ptr, ptr + sizes[i]))),
    );
  } finally {
    for (const ptr of pointers) if (ptr !== 0) module._free(ptr);
  }
}

/** Rows [start, end) of a dataset as an owned copy of their little-endian bytes. */
export function readRawRows(lib: H5Lib, file: string, ds: H5Dataset, start: number, end: number): Uint8Array {
  return withRawRows(lib, file, [{ ds, start, end }], ([view]) => view.slice());
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A range of a 1-D string dataset (vlen or fixed length). Variable-length strings are read
 * as HDF5's char* array and decoded here (ASCII without TextDecoder's per-call cost), then
 * HDF5's per-string allocations are reclaimed; a null pointer reads as ''.
 */
export function readStrings(lib: H5Lib, file: string, ds: H5Dataset, start: number, end: number): string[] {
  if (end <= start) return [];
  const meta = ds.metadata;
  try {
    if (!meta.vlen || (meta.shape ?? []).length !== 1) {
      const value = ds.slice([[start, end]]);
      if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : String(v)));
      if (typeof value === 'string') return [value];
      throw new Error('not a string array');
    }
  } catch (cause) {
    throw h5Error(file, where(file, ds.path), cause);
  }
  const module = lib.Module;
  const count = end - start;
  const ptr = module._malloc(count * 4);
  if (ptr === 0)
    throw new FormatError(
      'UnsupportedFeature',
      `${ds.path}: cannot allocate ${count * 4} bytes in wasm memory`,
      { file, format: 'h5ad' },
    );
  let read = false;
  try {
    module.get_dataset_data(ds.file_id, ds.path, [BigInt(count)], [BigInt(start)], [1n], BigInt(ptr));
    read = true;
    const heap = module.HEAPU8;
    const pointers = new Uint32Array(heap.buffer, ptr, count);
    const out: string[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const p = pointers[i];
      if (p === 0) {
        out[i] = '';
        continue;
      }
      let e = p;
      let ascii = true;
      while (heap[e] !== 0) {
        if (heap[e] > 0x7f) ascii = false;
        e++;
      }
      out[i] =
        ascii && e - p < 4096
          ? String.fromCharCode.apply(null, heap.subarray(p, e) as unknown as number[])
          : utf8.decode(heap.subarray(p, e));
    }
    return out;
  } catch (cause) {
    throw h5Error(file, where(file, ds.path), cause);
  } finally {
    if (read) module.reclaim_vlen_memory_count(ds.file_id, ds.path, '', BigInt(ptr), [BigInt(count)]);
    module._free(ptr);
  }
}
