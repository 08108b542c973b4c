import { type DType, DTYPE_SIZE, decodeUtf8, formatErrors, readU64 } from '@binscope/core';
import { MLDF_MAGIC } from './magic.js';

/** The binary layout of CONFORMANCE M1–M7, shared by the reader, writer, validator and inspector. */

export const FORMAT_ID = 'mldf';
export const HEADER_OFFSET = MLDF_MAGIC.byteLength;
export const HEADER_SIZE = 64;
export const FIELD_DESC_PTR = HEADER_OFFSET + HEADER_SIZE;
export const DESCRIPTOR_SIZE = 208;
export const NAME_SIZE = 64;
export const ARGUMENTS_SIZE = 128;
export const ALLOC_ENTRY_SIZE = 16;
export const METADATA_ALIGN = 64;
export const VERSION_MAJOR = 1;
export const VERSION_MINOR = 0;
export const MAX_NDIM = 8;

export const FLAG_LITTLE_ENDIAN = 0x1;
export const FLAG_COMPRESSED = 0x2;
export const FLAG_CHECKSUMMED = 0x4;
export const FLAG_ENCRYPTED = 0x8;

export type FieldType = 'INT' | 'FLOAT' | 'BYTES' | 'NDARRAY' | 'JSON' | 'IMAGE_RAW' | 'TEXT_RAW';

export const TYPE_IDS: Readonly<Record<FieldType, number>> = {
  INT: 1,
  FLOAT: 2,
  BYTES: 3,
  NDARRAY: 4,
  JSON: 5,
  IMAGE_RAW: 10,
  TEXT_RAW: 40,
};

export const METADATA_SIZES: Readonly<Record<FieldType, number>> = {
  INT: 8,
  FLOAT: 8,
  BYTES: 16,
  NDARRAY: 16,
  JSON: 16,
  IMAGE_RAW: 24,
  TEXT_RAW: 16,
};

const TYPE_BY_ID = new Map<number, FieldType>(
  Object.entries(TYPE_IDS).map(([name, id]) => [id, name as FieldType]),
);

/** Type ids the design text's TypeID table lists but M5 gives no layout for. */
const LISTED_UNIMPLEMENTED: Readonly<Record<number, string>> = {
  11: 'IMAGE_JPEG',
  12: 'IMAGE_PNG',
  20: 'AUDIO_WAVEFORM',
  21: 'AUDIO_COMPRESSED',
  22: 'AUDIO_SPECTROGRAM',
  23: 'AUDIO_CODEC_TOKENS',
  30: 'VIDEO_FRAMES',
  31: 'VIDEO_COMPRESSED',
  32: 'VIDEO_OPTICAL_FLOW',
  41: 'TEXT_TOKENIZED',
  42: 'TEXT_PACKED',
  43: 'TEXT_HIERARCHICAL',
  50: 'MULTIMODAL_SAMPLE',
};

/** numpy typestrs M5 allows for NDARRAY fields. */
export type NdDtype = '|u1' | '|i1' | '<u2' | '<i2' | '<u4' | '<i4' | '<u8' | '<i8' | '<f4' | '<f8';

export const ND_DTYPES: Readonly<Record<NdDtype, DType>> = {
  '|u1': 'u8',
  '|i1': 'i8',
  '<u2': 'u16',
  '<i2': 'i16',
  '<u4': 'u32',
  '<i4': 'i32',
  '<u8': 'u64',
  '<i8': 'i64',
  '<f4': 'f32',
  '<f8': 'f64',
};

export function isNdDtype(value: string): value is NdDtype {
  return Object.hasOwn(ND_DTYPES, value);
}

export interface NdArrayLayout {
  dtype: NdDtype;
  shape: readonly number[];
  /** Bytes per element. */
  itemSize: number;
  /** prod(shape). */
  count: number;
  /** prod(shape) · itemSize: the size every value of the field has. */
  byteLength: number;
}

export interface MldfHeader {
  versionMajor: number;
  versionMinor: number;
  flags: number;
  numSamples: number;
  numFields: number;
  pad1: number;
  pageSize: number;
  fieldDescPtr: number;
  metadataPtr: number;
  dataPtr: number;
  allocTablePtr: number;
  reserved: Uint8Array;
}

export interface MldfField {
  index: number;
  name: string;
  type: FieldType;
  typeId: number;
  flags: number;
  metadataSize: number;
  /** Offset of this field's struct within a metadata row. */
  metadataOffset: number;
  /** Absolute offset of the descriptor. */
  descriptorOffset: number;
  /** The raw 128 argument bytes. */
  arguments: Uint8Array;
  /** NDARRAY fields: the fixed dtype and shape every value has. */
  ndarray?: NdArrayLayout;
}

export function typeName(typeId: number): string {
  return TYPE_BY_ID.get(typeId) ?? LISTED_UNIMPLEMENTED[typeId] ?? `unknown type ${typeId}`;
}

export function alignTo(value: number, to: number): number {
  const rest = value % to;
  return rest === 0 ? value : value + (to - rest);
}

type Where = { file: string; warnings?: Array<{ code: string; message: string; offset: number }> };

const fail = formatErrors(FORMAT_ID);

/**
 * Parses magic + header (the first 73 bytes, or fewer when the file is shorter). Checks
 * in A2 order: magic, version, flags, reserved bits, then single-field sanity.
 */
export function parseHeader(bytes: Uint8Array, fileSize: number, where: Where): MldfHeader {
  const { file } = where;
  const head = Math.min(bytes.byteLength, MLDF_MAGIC.byteLength);
  for (let i = 0; i < head; i++) {
    if (bytes[i] !== MLDF_MAGIC[i])
      throw fail('BadMagic', `not an MLDF file: byte ${i} of the magic differs`, i, file);
  }
  if (fileSize === 0) throw fail('BadMagic', 'empty file: no MLDF magic', 0, file);
  if (fileSize < MLDF_MAGIC.byteLength)
    throw fail('Truncated', `file ends inside the MLDF magic (${fileSize} bytes)`, 0, file);
  if (fileSize < FIELD_DESC_PTR) {
    throw fail(
      'Truncated',
      `header needs 64 bytes at ${HEADER_OFFSET} but the file ends at ${fileSize}`,
      HEADER_OFFSET,
      file,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + HEADER_OFFSET, HEADER_SIZE);
  const at = (rel: number) => HEADER_OFFSET + rel;
  const header: MldfHeader = {
    versionMajor: view.getUint16(0, true),
    versionMinor: view.getUint16(2, true),
    flags: view.getUint32(4, true),
    // Counts and pointers above 2^53 lose precision here but can only fail the bounds checks below.
    numSamples: readU64(view, 8),
    numFields: view.getUint16(16, true),
    pad1: view.getUint16(18, true),
    pageSize: view.getUint32(20, true),
    fieldDescPtr: readU64(view, 24),
    metadataPtr: readU64(view, 32),
    dataPtr: readU64(view, 40),
    allocTablePtr: readU64(view, 48),
    reserved: bytes.slice(HEADER_OFFSET + 56, HEADER_OFFSET + 64),
  };
  if (header.versionMajor !== VERSION_MAJOR) {
    throw fail(
      'UnsupportedVersion',
      `MLDF version ${header.versionMajor}.${header.versionMinor} is not supported (this reader reads 1.x)`,
      at(0),
      file,
    );
  }
  if (header.versionMinor > VERSION_MINOR) {
    where.warnings?.push({
      code: 'NewerMinorVersion',
      message: `file is version 1.${header.versionMinor}, this reader knows 1.${VERSION_MINOR}: newer features are ignored`,
      offset: at(2),
    });
  }
  if (header.flags & FLAG_COMPRESSED)
    throw fail('UnsupportedFeature', 'compressed data region (flag 0x2) is not supported', at(4), file);
  if (header.flags & FLAG_ENCRYPTED)
    throw fail('UnsupportedFeature', 'encrypted data region (flag 0x8) is not supported', at(4), file);
  if (!(header.flags & FLAG_LITTLE_ENDIAN) || header.flags & ~0xf) {
    where.warnings?.push({
      code: 'UnknownFlags',
      message: `unexpected header flags 0x${header.flags.toString(16)} (expected 0x1)`,
      offset: at(4),
    });
  }
  if (header.pad1 !== 0)
    throw fail('ReservedNonZero', `header padding at 18 is ${header.pad1}, must be 0`, at(18), file);
  // With FLAG_CHECKSUMMED the reserved bytes hold the two CRC-32s (checksum.ts).
  const firstReserved = header.flags & FLAG_CHECKSUMMED ? -1 : header.reserved.findIndex((b) => b !== 0);
  if (firstReserved >= 0)
    throw fail('ReservedNonZero', 'header reserved bytes must be zero', at(56) + firstReserved, file);
  if (header.fieldDescPtr !== FIELD_DESC_PTR) {
    throw fail(
      'InvalidValue',
      `field_desc_ptr is ${header.fieldDescPtr}, must be ${FIELD_DESC_PTR} (right after the header)`,
      at(24),
      file,
    );
  }
  if (header.pageSize === 0) throw fail('InvalidValue', 'page_size is 0', at(20), file);
  return header;
}

const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);

/** Parses the descriptor table (bytes = exactly 208·num_fields bytes from field_desc_ptr). */
export function parseDescriptors(bytes: Uint8Array, header: MldfHeader, where: Where): MldfField[] {
  const { file } = where;
  const fields: MldfField[] = [];
  const names = new Set<string>();
  let rowOffset = 0;
  for (let index = 0; index < header.numFields; index++) {
    const base = index * DESCRIPTOR_SIZE;
    const abs = header.fieldDescPtr + base;
    const d = bytes.subarray(base, base + DESCRIPTOR_SIZE);
    const view = new DataView(d.buffer, d.byteOffset, DESCRIPTOR_SIZE);
    const rawName = d.subarray(0, NAME_SIZE);
    const nameEnd = rawName.indexOf(0);
    if (nameEnd < 0)
      throw fail(
        'InvalidValue',
        `field ${index}: name has no NUL terminator (names are at most 63 bytes)`,
        abs,
        file,
      );
    const afterName = rawName.subarray(nameEnd).findIndex((b) => b !== 0);
    if (afterName >= 0)
      throw fail(
        'InvalidValue',
        `field ${index}: bytes after the name's NUL are not zero`,
        abs + nameEnd + afterName,
        file,
      );
    const name = decodeUtf8(rawName.subarray(0, nameEnd), {
      offset: abs,
      file,
      format: FORMAT_ID,
      what: `field ${index} name`,
    });
    const typeId = view.getUint16(64, true);
    const flags = view.getUint16(66, true);
    const metadataSize = view.getUint32(68, true);
    const pad = view.getUint32(72, true);
    const args = d.slice(76, 76 + ARGUMENTS_SIZE);
    const tail = view.getUint32(204, true);
    if (pad !== 0)
      throw fail('ReservedNonZero', `field '${name}': descriptor padding at 72 must be 0`, abs + 72, file);
    if (tail !== 0)
      throw fail('ReservedNonZero', `field '${name}': descriptor bytes 204..207 must be 0`, abs + 204, file);
    const type = TYPE_BY_ID.get(typeId);
    if (!type) {
      const listed = LISTED_UNIMPLEMENTED[typeId];
      if (listed) {
        throw fail(
          'UnsupportedFeature',
          `field '${name}': type id ${typeId} (${listed}) is not supported`,
          abs + 64,
          file,
        );
      }
      throw fail('InvalidValue', `field '${name}': unknown type id ${typeId}`, abs + 64, file);
    }
    if (flags !== 0) {
      where.warnings?.push({
        code: 'FieldFlags',
        message: `field '${name}': flags 0x${flags.toString(16)} have no defined meaning`,
        offset: abs + 66,
      });
    }
    let ndarray: NdArrayLayout | undefined;
    if (type === 'NDARRAY') {
      ndarray = parseNdArguments(args, abs + 76, name, file);
    } else {
      const nonZero = args.findIndex((b) => b !== 0);
      if (nonZero >= 0)
        throw fail(
          'ReservedNonZero',
          `field '${name}': ${type} takes no arguments, argument bytes must be 0`,
          abs + 76 + nonZero,
          file,
        );
    }
    if (metadataSize !== METADATA_SIZES[type]) {
      throw fail(
        'CountMismatch',
        `field '${name}': metadata_size is ${metadataSize}, a ${type} metadata struct is ${METADATA_SIZES[type]} bytes`,
        abs + 68,
        file,
      );
    }
    if (names.has(name)) throw fail('InvalidValue', `duplicate field name '${name}'`, abs, file);
    names.add(name);
    fields.push({
      index,
      name,
      type,
      typeId,
      flags,
      metadataSize,
      metadataOffset: rowOffset,
      descriptorOffset: abs,
      arguments: args,
      ndarray,
    });
    rowOffset += metadataSize;
  }
  return fields;
}

function parseNdArguments(args: Uint8Array, abs: number, name: string, file: string): NdArrayLayout {
  const view = new DataView(args.buffer, args.byteOffset, args.byteLength);
  const rawDtype = args.subarray(0, 8);
  const end = rawDtype.indexOf(0) < 0 ? 8 : rawDtype.indexOf(0);
  const dtype = latin1(rawDtype.subarray(0, end));
  if (!isNdDtype(dtype) || rawDtype.subarray(end).some((b) => b !== 0)) {
    throw fail(
      'InvalidValue',
      `field '${name}': NDARRAY dtype '${dtype}' is not one of ${Object.keys(ND_DTYPES).join(' ')}`,
      abs,
      file,
    );
  }
  const ndim = view.getUint32(8, true);
  if (ndim > MAX_NDIM)
    throw fail('InvalidValue', `field '${name}': NDARRAY ndim ${ndim} exceeds ${MAX_NDIM}`, abs + 8, file);
  if (view.getUint32(12, true) !== 0)
    throw fail('ReservedNonZero', `field '${name}': NDARRAY reserved argument must be 0`, abs + 12, file);
  const shape: number[] = [];
  let count = 1;
  for (let i = 0; i < MAX_NDIM; i++) {
    const dim = readU64(view, 16 + i * 8);
    if (i >= ndim) {
      if (dim !== 0)
        throw fail(
          'ReservedNonZero',
          `field '${name}': NDARRAY shape entry ${i} is beyond ndim ${ndim} and must be 0`,
          abs + 16 + i * 8,
          file,
        );
      continue;
    }
    shape.push(dim);
    count *= dim;
  }
  const itemSize = DTYPE_SIZE[ND_DTYPES[dtype]];
  const byteLength = count * itemSize;
  // data_size is a u32, so a larger declared array can never hold a value.
  if (!Number.isSafeInteger(byteLength) || byteLength > 0xffffffff) {
    throw fail(
      'InvalidValue',
      `field '${name}': NDARRAY shape [${shape.join(', ')}] is larger than a value can be (4 GiB)`,
      abs + 16,
      file,
    );
  }
  return { dtype, shape, itemSize, count, byteLength };
}

/** Where each section is, once header and descriptors agree with the file size (M4). */
export interface MldfLayout {
  rowSize: number;
  descriptorsEnd: number;
  metadataEnd: number;
  /** The data region is [dataPtr, allocTablePtr). */
  dataEnd: number;
  /** Number of allocation entries (bytes from alloc_table_ptr to the end of the file, / 16). */
  allocCount: number;
}

/**
 * Checks the section pointers: alignment first, then each range against the file and its
 * neighbours (A2). Warnings for legal but non-canonical placement.
 */
export function checkLayout(
  header: MldfHeader,
  fields: readonly MldfField[],
  fileSize: number,
  where: Where,
): MldfLayout {
  const { file } = where;
  const at = (rel: number) => HEADER_OFFSET + rel;
  const rowSize = fields.reduce((sum, f) => sum + f.metadataSize, 0);
  const descriptorsEnd = FIELD_DESC_PTR + DESCRIPTOR_SIZE * header.numFields;
  if (rowSize === 0 && header.numSamples > 0) {
    // Nothing in the file bounds such a count, so it could only be trusted blindly (A4).
    throw fail(
      'CountMismatch',
      `num_samples is ${header.numSamples} but there are no fields to hold them`,
      at(8),
      file,
    );
  }
  if (header.metadataPtr % METADATA_ALIGN !== 0) {
    throw fail(
      'Misaligned',
      `metadata_ptr ${header.metadataPtr} is not a multiple of ${METADATA_ALIGN}`,
      at(32),
      file,
    );
  }
  if (header.dataPtr % header.pageSize !== 0) {
    throw fail(
      'Misaligned',
      `data_ptr ${header.dataPtr} is not a multiple of page_size ${header.pageSize}`,
      at(40),
      file,
    );
  }
  if (header.metadataPtr < descriptorsEnd) {
    throw fail(
      'OutOfBounds',
      `metadata_ptr ${header.metadataPtr} points into the field descriptors (they end at ${descriptorsEnd})`,
      at(32),
      file,
    );
  }
  const metadataBytes = header.numSamples * rowSize;
  const metadataEnd = header.metadataPtr + metadataBytes;
  if (metadataBytes > 0) {
    if (header.metadataPtr >= fileSize) {
      throw fail(
        'OutOfBounds',
        `metadata table starts at ${header.metadataPtr}, past the end of the file (${fileSize} bytes)`,
        at(32),
        file,
      );
    }
    if (metadataEnd > fileSize) {
      throw fail(
        'Truncated',
        `metadata table of ${header.numSamples} rows × ${rowSize} bytes needs ${metadataBytes} bytes at ${header.metadataPtr} but the file ends at ${fileSize}`,
        header.metadataPtr,
        file,
      );
    }
  }
  if (header.dataPtr < metadataEnd) {
    throw fail(
      'OutOfBounds',
      `data_ptr ${header.dataPtr} points into the metadata table (it ends at ${metadataEnd})`,
      at(40),
      file,
    );
  }
  if (header.allocTablePtr < header.dataPtr) {
    throw fail(
      'OutOfBounds',
      `alloc_table_ptr ${header.allocTablePtr} lies before data_ptr ${header.dataPtr}`,
      at(48),
      file,
    );
  }
  if (header.allocTablePtr > header.dataPtr) {
    if (header.dataPtr >= fileSize) {
      throw fail(
        'OutOfBounds',
        `data region starts at ${header.dataPtr}, past the end of the file (${fileSize} bytes)`,
        at(40),
        file,
      );
    }
    if (header.allocTablePtr > fileSize) {
      throw fail(
        'Truncated',
        `data region [${header.dataPtr}, ${header.allocTablePtr}) runs past the end of the file (${fileSize} bytes)`,
        header.dataPtr,
        file,
      );
    }
  }
  let allocCount = 0;
  if (header.allocTablePtr < fileSize) {
    const allocBytes = fileSize - header.allocTablePtr;
    if (allocBytes % ALLOC_ENTRY_SIZE !== 0) {
      const lastStart = header.allocTablePtr + Math.floor(allocBytes / ALLOC_ENTRY_SIZE) * ALLOC_ENTRY_SIZE;
      throw fail(
        'Truncated',
        `allocation table of ${allocBytes} bytes ends inside a 16-byte entry`,
        lastStart,
        file,
      );
    }
    allocCount = allocBytes / ALLOC_ENTRY_SIZE;
  }
  const canonicalMetadata = alignTo(descriptorsEnd, METADATA_ALIGN);
  if (header.metadataPtr !== canonicalMetadata) {
    where.warnings?.push({
      code: 'NonCanonicalLayout',
      message: `metadata_ptr is ${header.metadataPtr}, writers put it at ${canonicalMetadata}`,
      offset: at(32),
    });
  }
  const canonicalData = alignTo(metadataEnd, header.pageSize);
  if (header.dataPtr !== canonicalData) {
    where.warnings?.push({
      code: 'NonCanonicalLayout',
      message: `data_ptr is ${header.dataPtr}, writers put it at ${canonicalData}`,
      offset: at(40),
    });
  }
  return { rowSize, descriptorsEnd, metadataEnd, dataEnd: header.allocTablePtr, allocCount };
}

/** Encodes magic + header (73 bytes). */
export function encodeHeader(h: Omit<MldfHeader, 'reserved' | 'pad1' | 'fieldDescPtr'>): Uint8Array {
  const out = new Uint8Array(FIELD_DESC_PTR);
  out.set(MLDF_MAGIC, 0);
  const view = new DataView(out.buffer, HEADER_OFFSET, HEADER_SIZE);
  view.setUint16(0, h.versionMajor, true);
  view.setUint16(2, h.versionMinor, true);
  view.setUint32(4, h.flags, true);
  view.setBigUint64(8, BigInt(h.numSamples), true);
  view.setUint16(16, h.numFields, true);
  view.setUint32(20, h.pageSize, true);
  view.setBigUint64(24, BigInt(FIELD_DESC_PTR), true);
  view.setBigUint64(32, BigInt(h.metadataPtr), true);
  view.setBigUint64(40, BigInt(h.dataPtr), true);
  view.setBigUint64(48, BigInt(h.allocTablePtr), true);
  return out;
}

/** Encodes one 208-byte field descriptor. */
export function encodeDescriptor(
  nameBytes: Uint8Array,
  type: FieldType,
  nd?: { dtype: NdDtype; shape: readonly number[] },
): Uint8Array {
  const out = new Uint8Array(DESCRIPTOR_SIZE);
  const view = new DataView(out.buffer);
  out.set(nameBytes, 0);
  view.setUint16(64, TYPE_IDS[type], true);
  view.setUint32(68, METADATA_SIZES[type], true);
  if (nd) {
    for (let i = 0; i < nd.dtype.length; i++) out[76 + i] = nd.dtype.charCodeAt(i);
    view.setUint32(76 + 8, nd.shape.length, true);
    for (let i = 0; i < nd.shape.length; i++) view.setBigUint64(76 + 16 + i * 8, BigInt(nd.shape[i]), true);
  }
  return out;
}
