import { DTYPE_SIZE } from '@binscope/core/binary';

/** The UDF layout constants and the type_info / data_shape model shared by reader, validator and writer. */

export const FORMAT_ID = 'udf';

/** Scope of a dataset's own problems in its ProblemList; its tables' are tableScope(i) (U15). */
export const DATASET_SCOPE = 'dataset';

/** One table's problems: a bad table never hides the others (U15). */
export function tableScope(index: number): string {
  return `table ${index}`;
}

export const FILE_HEADER_SIZE = 0x40;
export const STATIC_HEADER_SIZE = 0x18;

/** Fields of a table's 48-byte descriptor (U2), by offset in it: where records and content point. */
export const KEY_NAME = 0x0;
export const TYPE_INFO = 0x4;
export const COMPRESS_INFO = 0x6;
export const DATA_SHAPE = 0x14;
export const INDEX_NAME = 0x1c;
export const RELATED_NAME = 0x20;
export const TYPE_NAME = 0x24;
export const DESCRIPTOR_SIZE = 0x30;
export const LOOKUP_ENTRY_SIZE = 8;
export const DATASET_CHECK = 0x7fcea59b;
/** DJB2-xor seed the reference writer hashes names with (U3). */
export const HASH_SEED = 3581;

/** Where a dataset lives: absolute offset and size, both 16-aligned; (0, 0) is null. */
export interface FileOffset {
  offset: number;
  size: number;
}

export type Prim = 'custom' | 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'u64' | 'i64' | 'f32' | 'f64';

/** Primitive codes 0..11; code 1 is reserved (undefined here), 12..15 too. */
export const PRIM_BY_CODE: readonly (Prim | undefined)[] = [
  'custom',
  undefined,
  'u8',
  'i8',
  'u16',
  'i16',
  'u32',
  'i32',
  'u64',
  'i64',
  'f32',
  'f64',
];

export const PRIM_CODE: Record<Prim, number> = {
  custom: 0,
  u8: 2,
  i8: 3,
  u16: 4,
  i16: 5,
  u32: 6,
  i32: 7,
  u64: 8,
  i64: 9,
  f32: 10,
  f64: 11,
};

/** Bytes per element; a custom primitive has no element size (JSON, opaque bytes). */
export const PRIM_SIZE: Record<Prim, number> = { ...DTYPE_SIZE, custom: 1 };

/**
 * Hint names by value. Values 10..31 are reserved and ≥ 32 are custom: both decode as
 * plain arrays (U8), named 'none' and 'custom'.
 */
export type Hint =
  | 'none'
  | 'text'
  | 'json'
  | 'dataset'
  | 'index'
  | 'range'
  | 'coord'
  | 'line'
  | 'transform'
  | 'rgb'
  | 'custom';

export const HINT_BY_VALUE: readonly Hint[] = [
  'none',
  'text',
  'json',
  'dataset',
  'index',
  'range',
  'coord',
  'line',
  'transform',
  'rgb',
];

export const HINT_VALUE: Record<Exclude<Hint, 'custom'>, number> = {
  none: 0,
  text: 1,
  json: 2,
  dataset: 3,
  index: 4,
  range: 5,
  coord: 6,
  line: 7,
  transform: 8,
  rgb: 9,
};

export function hintName(value: number): Hint {
  if (value >= 32) return 'custom';
  return HINT_BY_VALUE[value] ?? 'none';
}

/** The primitives each hint allows (spec "Hints"); absent = any. */
export const HINT_PRIMS: Partial<Record<Hint, readonly Prim[]>> = {
  text: ['u8', 'i8', 'u16', 'u32'],
  json: ['custom'],
  dataset: ['u64'],
  index: ['u8', 'u16', 'u32', 'u64'],
  range: ['u8', 'u16', 'u32', 'u64'],
  coord: ['i8', 'i16', 'i32', 'i64', 'f32', 'f64'],
  line: ['f32', 'f64'],
  transform: ['f32', 'f64'],
  rgb: ['u8', 'f32'],
};

/** How many ghost axes each hint requires; absent = not constrained by the spec. */
export const HINT_GHOSTS: Partial<Record<Hint, number>> = {
  none: 0,
  json: 0,
  text: 1,
  dataset: 1,
  range: 1,
  coord: 1,
  rgb: 1,
  transform: 2,
};

export interface TypeInfo {
  primCode: number;
  /** Undefined for reserved primitive codes (1, 12..15) and the X bit. */
  prim: Prim | undefined;
  extension: boolean;
  dims: number;
  hintValue: number;
  hint: Hint;
  /** type_info bits 6, 14 and 15 (must be zero, U8). */
  reservedBits: number;
}

export function unpackTypeInfo(typeInfo: number): TypeInfo {
  const primCode = typeInfo & 0x0f;
  const extension = (typeInfo & 0x80) !== 0;
  const hintValue = (typeInfo >> 8) & 0x3f;
  return {
    primCode,
    prim: extension ? undefined : PRIM_BY_CODE[primCode],
    extension,
    dims: (typeInfo >> 4) & 0x03,
    hintValue,
    hint: hintName(hintValue),
    reservedBits: typeInfo & 0xc040,
  };
}

export function packTypeInfo(prim: Prim, dims: number, hintValue: number): number {
  return PRIM_CODE[prim] | (dims << 4) | (hintValue << 8);
}

export interface Shape {
  /** Declared axes then ghost axes (U5). */
  shape: number[];
  ghostDims: number;
  elementCount: number;
}

/**
 * data_shape → shape (U5): x = u32[0], y = u32[1] & 0xFFFFFF, z = u32[1] >> 24; ghost axes are
 * the non-zero axes beyond the declared dimension count. A scalar written as [1, 0] is a scalar
 * when the hint wants no ghost axis. Returns undefined when a zero axis sits between ghost axes.
 */
export function decodeShape(dims: number, raw0: number, raw1: number, hint: Hint): Shape | undefined {
  // Hot in walks (once per descriptor): no intermediate arrays.
  const x = raw0;
  const y = raw1 & 0xffffff;
  const z = raw1 >>> 24;
  let ghostEnd = 3;
  if (ghostEnd > dims && z === 0) {
    ghostEnd--;
    if (ghostEnd > dims && y === 0) {
      ghostEnd--;
      if (ghostEnd > dims && x === 0) ghostEnd--;
    }
  }
  // A zero axis between ghost axes.
  for (let i = dims; i < ghostEnd; i++) if ((i === 0 ? x : i === 1 ? y : z) === 0) return undefined;
  let ghostDims = ghostEnd - dims;
  if (ghostDims < 0) ghostDims = 0;
  if (dims === 0 && ghostDims === 1 && x === 1 && HINT_GHOSTS[hint] === 0) ghostDims = 0;
  const n = dims + ghostDims;
  const shape = new Array<number>(n);
  let elementCount = 1;
  for (let i = 0; i < n; i++) {
    const v = i === 0 ? x : i === 1 ? y : z;
    shape[i] = v;
    elementCount *= v;
  }
  return { shape, ghostDims, elementCount };
}

/** shape (declared + ghost axes) → the two data_shape words. */
export function encodeShape(shape: readonly number[]): [number, number] {
  const [x = 0, y = 0, z = 0] = shape;
  return [x >>> 0, (((z & 0xff) << 24) | (y & 0xffffff)) >>> 0];
}

/** DJB2-xor, seed 3581, over the name's UTF-8 bytes (U3). */
export function hashName(name: string | Uint8Array): number {
  const bytes = typeof name === 'string' ? new TextEncoder().encode(name) : name;
  let h = HASH_SEED;
  for (let i = 0; i < bytes.length; i++) h = (Math.imul(h, 33) ^ bytes[i]) >>> 0;
  return h;
}

/** An identifier: up to 4 printable ASCII characters, NUL-padded. */
export function decodeId(bytes: Uint8Array): { id: string; valid: boolean } {
  let id = '';
  let valid = true;
  let ended = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0) {
      ended = true;
      continue;
    }
    if (ended || b < 0x20 || b > 0x7e) valid = false;
    if (!ended) id += String.fromCharCode(b);
  }
  return { id, valid };
}

export function encodeId(id: string): Uint8Array {
  if (id.length > 4 || !/^[\x20-\x7e]*$/.test(id)) {
    throw new RangeError(`UDF identifier ${JSON.stringify(id)} must be at most 4 printable ASCII characters`);
  }
  const out = new Uint8Array(4);
  for (let i = 0; i < id.length; i++) out[i] = id.charCodeAt(i);
  return out;
}

export function fileOffsetKey(at: FileOffset): string {
  return `${at.offset}:${at.size}`;
}
