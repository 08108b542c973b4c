import { type DType, formatErrors, isBinscopeError, Phase, type ProblemList } from '@binscope/core';
import { Cursor } from '@binscope/core/binary';

export const FORMAT = 'scdl';
export const HEADER_FILE = 'header.sch';
export const MAGIC = 'SCDL';
/** The schema version real archives carry (C2); the spec text's 0.0.9 is older. */
export const SCHEMA_VERSION = { major: 0, minor: 1, point: 0 } as const;
/** What upstream writes into version.json and version.npy (C7, C11). */
export const PACKAGE_VERSION = '0.1.3';
export const ENDIAN_NETWORK = 1;
export const BACKEND_MEMMAP_V0 = 1;
export const CORE_HEADER_SIZE = 16;

/** The element types of the header's ArrayDType enum (C3), by their numpy names. */
export type ScdlDType =
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'float16'
  | 'float32'
  | 'float64'
  | 'string'
  | 'fixed_string';
/** The numeric subset: what data and index arrays can hold. */
export type ScdlNumericDType = Exclude<ScdlDType, 'string' | 'fixed_string'>;

export const DTYPE_CODES: Readonly<Record<ScdlDType, number>> = {
  uint8: 1,
  uint16: 2,
  uint32: 3,
  uint64: 4,
  float16: 5,
  float32: 6,
  float64: 7,
  string: 8,
  fixed_string: 9,
};
const DTYPE_BY_CODE = new Map<number, ScdlDType>(
  Object.entries(DTYPE_CODES).map(([k, v]) => [v, k as ScdlDType]),
);

export const UPSTREAM_DTYPE_NAMES: Readonly<Record<ScdlDType, string>> = {
  uint8: 'UINT8_ARRAY',
  uint16: 'UINT16_ARRAY',
  uint32: 'UINT32_ARRAY',
  uint64: 'UINT64_ARRAY',
  float16: 'FLOAT16_ARRAY',
  float32: 'FLOAT32_ARRAY',
  float64: 'FLOAT64_ARRAY',
  string: 'STRING_ARRAY',
  fixed_string: 'FIXED_STRING_ARRAY',
};

export const ITEM_SIZE: Readonly<Record<ScdlNumericDType, number>> = {
  uint8: 1,
  uint16: 2,
  uint32: 4,
  uint64: 8,
  float16: 2,
  float32: 4,
  float64: 8,
};

export const CORE_DTYPE: Readonly<Record<ScdlNumericDType, DType>> = {
  uint8: 'u8',
  uint16: 'u16',
  uint32: 'u32',
  uint64: 'u64',
  float16: 'f16',
  float32: 'f32',
  float64: 'f64',
};

export function isNumericDType(dtype: ScdlDType): dtype is ScdlNumericDType {
  return dtype !== 'string' && dtype !== 'fixed_string';
}

export function isUnsignedDType(dtype: ScdlDType): dtype is 'uint8' | 'uint16' | 'uint32' | 'uint64' {
  return dtype === 'uint8' || dtype === 'uint16' || dtype === 'uint32' || dtype === 'uint64';
}

/** Header array names and the files that hold them (C4). */
export const ARRAY_FILES: Readonly<Record<string, string>> = {
  DATA: 'data.npy',
  ROWPTR: 'row_ptr.npy',
  COLPTR: 'col_ptr.npy',
  NEIGHBOR_INDICES: 'neighbor_indices.npy',
  NEIGHBOR_INDICES_PTR: 'neighbor_indptr.npy',
  NEIGHBOR_VALUES: 'neighbor_values.npy',
};

/** The file an array descriptor's name maps to: a known name, or the name itself when it already is a path. */
export function arrayFile(name: string): string {
  return ARRAY_FILES[name] ?? name;
}

/** A byte range inside header.sch, for inspect. */
export interface Span {
  offset: number;
  length: number;
}

export interface ArrayDescriptor {
  name: string;
  /** Number of elements (u64 in the file; above 2^53 is rejected). */
  length: number;
  dtype: ScdlDType;
  dtypeCode: number;
  shape: number[] | null;
  span: Span;
  fields: Record<string, Span>;
}

export interface FeatureIndexDescriptor {
  name: string;
  length: number;
  dtype: ScdlDType;
  dtypeCode: number;
  files: string[];
  shape: number[] | null;
  span: Span;
  fields: Record<string, Span>;
}

export interface ScdlHeader {
  version: { major: number; minor: number; point: number };
  endianness: number;
  backend: number;
  arrays: ArrayDescriptor[];
  featureIndices: FeatureIndexDescriptor[];
  /** Total bytes the header structures use; anything after is ignored (with a warning). */
  byteLength: number;
  /** False for headers from before feature indices existed (no trailing count). */
  hasFeatureIndexCount: boolean;
  warnings: string[];
  /** The descriptor whose reading failed: its fields as far as read (the last one the bad value). */
  cut?: CutDescriptor;
}

/** A descriptor read part-way, so inspect mode can show the field at fault. */
export interface CutDescriptor {
  list: 'arrays' | 'feature_indices';
  name: string;
  offset: number;
  fields: Array<{ name: string; span: Span; value: string | number }>;
}

const fail = formatErrors(FORMAT, HEADER_FILE);
const err = (code: Parameters<typeof fail>[0], message: string, offset: number) =>
  fail(code, message, offset);

// The smallest encodings, so a count can be checked against the bytes left before any allocation (A4).
const MIN_ARRAY_DESCRIPTOR = 4 + 1 + 8 + 4 + 1;
const MIN_FEATURE_DESCRIPTOR = 4 + 1 + 8 + 4 + 4 + 1;

/** What reading header.sch records its findings in: the parse's ProblemList, or `STRICT`. */
type HeaderProblems = Pick<ProblemList, 'mode' | 'error' | 'checkpoint' | 'capture' | 'hasErrors'>;

/**
 * A strict read outside a plugin parse: the first error is thrown where it is found. The
 * header's checks come in A2 order (magic, version, then the structures), so that is the
 * first error in A2 order too.
 */
const STRICT: HeaderProblems = {
  mode: 'read',
  error(code, message, where = {}) {
    throw fail(code, message, where.offset);
  },
  checkpoint() {},
  capture(error) {
    throw error;
  },
  hasErrors: () => false,
};

/** Parses header.sch (C1–C3) strictly: throws the first error (A2 order). */
export function parseHeader(bytes: Uint8Array): ScdlHeader {
  return readHeader(bytes, STRICT).header;
}

/** What a parse of header.sch got: the fields decoded so far, and whether the structures are whole. */
export interface HeaderParse {
  header: ScdlHeader;
  /** False when a structure could not be read to its end (the header then holds what came before). */
  complete: boolean;
}

/**
 * header.sch in any parse mode: a bad magic or major version is recorded and, unless the read
 * is strict, the fields behind it are still decoded (they show in inspect mode).
 */
export function readHeader(bytes: Uint8Array, problems: HeaderProblems): HeaderParse {
  const header: ScdlHeader = {
    version: { major: 0, minor: 0, point: 0 },
    endianness: 0,
    backend: 0,
    arrays: [],
    featureIndices: [],
    byteLength: 0,
    hasFeatureIndexCount: false,
    warnings: [],
  };
  try {
    readHeaderFields(bytes, header, problems);
    return { header, complete: true };
  } catch (error) {
    // A strict read's checkpoint throws an error it already recorded.
    if (problems.mode === 'read' && isBinscopeError(error, 'FormatError') && problems.hasErrors())
      throw error;
    problems.capture(error, { phase: Phase.header });
    problems.checkpoint();
    return { header, complete: false };
  }
}

function readHeaderFields(bytes: Uint8Array, header: ScdlHeader, problems: HeaderProblems): void {
  const c = new Cursor(bytes, { littleEndian: false, file: HEADER_FILE, format: FORMAT });
  const head = bytes.subarray(0, 4);
  const magicOk = Array.from(head).every((b, i) => b === MAGIC.charCodeAt(i));
  if (!magicOk) {
    const got = Array.from(head, (b) => b.toString(16).padStart(2, '0')).join(' ');
    problems.error('BadMagic', `header.sch does not start with "SCDL" (got ${got})`, {
      offset: 0,
      file: HEADER_FILE,
      phase: Phase.magic,
    });
    problems.checkpoint();
  }
  if (bytes.byteLength < CORE_HEADER_SIZE) {
    throw err(
      'Truncated',
      `header.sch is ${bytes.byteLength} bytes, shorter than the ${CORE_HEADER_SIZE}-byte core header`,
      0,
    );
  }
  c.pos = 4;
  const major = c.u8('version');
  const minor = c.u8('version');
  const point = c.u8('version');
  const warnings = header.warnings;
  header.version = { major, minor, point };
  if (major !== SCHEMA_VERSION.major) {
    problems.error(
      'UnsupportedVersion',
      `schema version ${major}.${minor}.${point} is not supported (this reader reads 0.x)`,
      { offset: 4, file: HEADER_FILE, phase: Phase.version },
    );
    problems.checkpoint();
  }
  if (minor > SCHEMA_VERSION.minor || (minor === SCHEMA_VERSION.minor && point > SCHEMA_VERSION.point)) {
    warnings.push(
      `schema version ${major}.${minor}.${point} is newer than ${SCHEMA_VERSION.major}.${SCHEMA_VERSION.minor}.${SCHEMA_VERSION.point}; reading it as that`,
    );
  }
  const endianness = c.u8('endianness');
  header.endianness = endianness;
  if (endianness !== ENDIAN_NETWORK)
    throw err('InvalidValue', `endianness byte is ${endianness}, must be 1 (NETWORK)`, 7);
  const backend = c.u32('backend');
  header.backend = backend;
  if (backend !== BACKEND_MEMMAP_V0)
    throw err('InvalidValue', `backend ${backend} is unknown (only MEMMAP_V0 = 1)`, 8);
  const arrayCount = c.u32('array count');
  if (arrayCount * MIN_ARRAY_DESCRIPTOR > c.remaining) {
    throw err('Truncated', `array count ${arrayCount} needs more descriptors than header.sch holds`, 12);
  }
  const arrays = header.arrays;
  const names = new Set<string>();
  for (let i = 0; i < arrayCount; i++) {
    const d = readArrayDescriptor(c, i, header);
    if (names.has(d.name)) throw err('InvalidValue', `array name "${d.name}" appears twice`, d.span.offset);
    names.add(d.name);
    arrays.push(d);
    header.byteLength = c.pos;
  }
  header.byteLength = c.pos;
  const featureIndices = header.featureIndices;
  if (c.remaining === 0) {
    warnings.push(
      'header.sch has no feature-index count (an archive from before feature indices); reading it as 0',
    );
  } else {
    const countAt = c.offset;
    const fiCount = c.u32('feature index count');
    header.hasFeatureIndexCount = true;
    if (fiCount * MIN_FEATURE_DESCRIPTOR > c.remaining) {
      throw err(
        'Truncated',
        `feature index count ${fiCount} needs more descriptors than header.sch holds`,
        countAt,
      );
    }
    for (let i = 0; i < fiCount; i++) {
      const d = readFeatureDescriptor(c, i, header);
      if (names.has(d.name))
        throw err(
          'InvalidValue',
          `feature index name "${d.name}" repeats an array or index name`,
          d.span.offset,
        );
      names.add(d.name);
      featureIndices.push(d);
      header.byteLength = c.pos;
    }
  }
  header.byteLength = c.pos;
  if (c.remaining > 0) warnings.push(`${c.remaining} bytes after the header structures are ignored`);
}

function readName(c: Cursor, what: string): { name: string; span: Span } {
  const at = c.offset;
  const length = c.u32(`${what} name length`);
  if (length === 0) throw err('InvalidValue', `${what} name is empty`, at);
  if (length > c.remaining)
    throw err('Truncated', `${what} name of ${length} bytes runs past the end of header.sch`, at);
  const name = c.utf8(length, `${what} name`);
  return { name, span: { offset: at, length: 4 + length } };
}

function startCut(header: ScdlHeader, list: CutDescriptor['list'], name: string, offset: number) {
  const cut: CutDescriptor = { list, name, offset, fields: [] };
  header.cut = cut;
  return cut;
}

function readDType(c: Cursor, what: string, cut: CutDescriptor): { dtype: ScdlDType; code: number } {
  const at = c.offset;
  const code = c.u32(`${what} dtype`);
  cut.fields.push({ name: 'dtype', span: { offset: at, length: 4 }, value: code });
  const dtype = DTYPE_BY_CODE.get(code);
  if (!dtype) throw err('InvalidValue', `${what} dtype ${code} is not an ArrayDType (1–9)`, at);
  return { dtype, code };
}

function readShape(c: Cursor, what: string): { shape: number[] | null; span: Span } {
  const at = c.offset;
  const flag = c.u8(`${what} has_shape`);
  if (flag === 0) return { shape: null, span: { offset: at, length: 1 } };
  if (flag !== 1) throw err('InvalidValue', `${what} has_shape is ${flag}, must be 0 or 1`, at);
  const dimsAt = c.offset;
  const dims = c.u32(`${what} shape dims`);
  if (dims === 0) throw err('InvalidValue', `${what} has a shape with 0 dimensions`, dimsAt);
  if (dims * 4 > c.remaining)
    throw err('Truncated', `${what} shape of ${dims} dimensions runs past the end of header.sch`, dimsAt);
  const shape: number[] = [];
  for (let i = 0; i < dims; i++) {
    const dimAt = c.offset;
    const v = c.u32(`${what} shape`);
    if (v === 0) throw err('InvalidValue', `${what} shape dimension ${i} is 0`, dimAt);
    shape.push(v);
  }
  return { shape, span: { offset: at, length: c.offset - at } };
}

function readArrayDescriptor(c: Cursor, index: number, header: ScdlHeader): ArrayDescriptor {
  const start = c.offset;
  const what = `array ${index}`;
  const cut = startCut(header, 'arrays', what, start);
  const { name, span: nameSpan } = readName(c, what);
  cut.name = name;
  cut.fields.push({ name: 'name', span: nameSpan, value: name });
  const lengthAt = c.offset;
  const length = c.u64Number(`${name} length`);
  cut.fields.push({ name: 'length', span: { offset: lengthAt, length: 8 }, value: length });
  const dtypeAt = c.offset;
  const { dtype, code } = readDType(c, name, cut);
  const { shape, span: shapeSpan } = readShape(c, name);
  header.cut = undefined;
  return {
    name,
    length,
    dtype,
    dtypeCode: code,
    shape,
    span: { offset: start, length: c.offset - start },
    fields: {
      name: nameSpan,
      length: { offset: lengthAt, length: 8 },
      dtype: { offset: dtypeAt, length: 4 },
      shape: shapeSpan,
    },
  };
}

function readFeatureDescriptor(c: Cursor, index: number, header: ScdlHeader): FeatureIndexDescriptor {
  const start = c.offset;
  const what = `feature index ${index}`;
  const cut = startCut(header, 'feature_indices', what, start);
  const { name, span: nameSpan } = readName(c, what);
  cut.name = name;
  cut.fields.push({ name: 'name', span: nameSpan, value: name });
  const lengthAt = c.offset;
  const length = c.u64Number(`${name} length`);
  cut.fields.push({ name: 'length', span: { offset: lengthAt, length: 8 }, value: length });
  const dtypeAt = c.offset;
  const { dtype, code } = readDType(c, name, cut);
  const filesAt = c.offset;
  const fileCount = c.u32(`${name} file count`);
  if (fileCount * 5 > c.remaining)
    throw err('Truncated', `${name} lists ${fileCount} files, more than header.sch holds`, filesAt);
  const files: string[] = [];
  for (let i = 0; i < fileCount; i++) files.push(readName(c, `${name} file ${i}`).name);
  const filesSpan = { offset: filesAt, length: c.offset - filesAt };
  const { shape, span: shapeSpan } = readShape(c, name);
  header.cut = undefined;
  return {
    name,
    length,
    dtype,
    dtypeCode: code,
    files,
    shape,
    span: { offset: start, length: c.offset - start },
    fields: {
      name: nameSpan,
      length: { offset: lengthAt, length: 8 },
      dtype: { offset: dtypeAt, length: 4 },
      files: filesSpan,
      shape: shapeSpan,
    },
  };
}

/** What the writer puts in header.sch. */
export interface HeaderContent {
  arrays: Array<{ name: string; length: number | bigint; dtype: ScdlDType }>;
  featureIndices: Array<{ name: string; length: number | bigint; dtype: ScdlDType; files: string[] }>;
}

const utf8 = new TextEncoder();

/** Serialises header.sch exactly as upstream does: version 0.1.0, has_shape 0, the feature-index count always present. */
export function serializeHeader(content: HeaderContent): Uint8Array {
  const parts: number[] = [];
  const u8 = (v: number) => parts.push(v & 0xff);
  const u32 = (v: number) => {
    parts.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  };
  const u64 = (v: number | bigint) => {
    const big = BigInt(v);
    u32(Number((big >> 32n) & 0xffffffffn));
    u32(Number(big & 0xffffffffn));
  };
  const str = (s: string) => {
    const b = utf8.encode(s);
    u32(b.byteLength);
    for (const x of b) parts.push(x);
  };
  for (const ch of MAGIC) u8(ch.charCodeAt(0));
  u8(SCHEMA_VERSION.major);
  u8(SCHEMA_VERSION.minor);
  u8(SCHEMA_VERSION.point);
  u8(ENDIAN_NETWORK);
  u32(BACKEND_MEMMAP_V0);
  u32(content.arrays.length);
  for (const a of content.arrays) {
    str(a.name);
    u64(a.length);
    u32(DTYPE_CODES[a.dtype]);
    u8(0);
  }
  u32(content.featureIndices.length);
  for (const f of content.featureIndices) {
    str(f.name);
    u64(f.length);
    u32(DTYPE_CODES[f.dtype]);
    u32(f.files.length);
    for (const file of f.files) str(file);
    u8(0);
  }
  return Uint8Array.from(parts);
}
