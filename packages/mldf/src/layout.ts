import { type DType, formatErrors, type ProblemList } from '@binscope/core';
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

export const TYPE_BY_ID = new Map<number, FieldType>(
  Object.entries(TYPE_IDS).map(([name, id]) => [id, name as FieldType]),
);

/** Type ids the design text's TypeID table lists but M5 gives no layout for. */
export const LISTED_UNIMPLEMENTED: Readonly<Record<number, string>> = {
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
  /** Rounded above 2^53, where it can only fail the bounds checks; numSamplesExact is as stored. */
  numSamples: number;
  numSamplesExact: bigint;
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

const fail = formatErrors(FORMAT_ID);

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
  problems: ProblemList,
): MldfLayout {
  const file = problems.file;
  const at = (rel: number) => HEADER_OFFSET + rel;
  const rowSize = fields.reduce((sum, f) => sum + f.metadataSize, 0);
  const descriptorsEnd = FIELD_DESC_PTR + DESCRIPTOR_SIZE * header.numFields;
  if (rowSize === 0 && header.numSamples > 0) {
    // Nothing in the file bounds such a count, so it could only be trusted blindly (A4).
    throw fail(
      'CountMismatch',
      `num_samples is ${header.numSamplesExact} but there are no fields to hold them`,
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
        `metadata table of ${header.numSamplesExact} rows × ${rowSize} bytes needs ${header.numSamplesExact * BigInt(rowSize)} bytes at ${header.metadataPtr} but the file ends at ${fileSize}`,
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
    problems.warn(
      'NonCanonicalLayout',
      `metadata_ptr is ${header.metadataPtr}, writers put it at ${canonicalMetadata}`,
      { offset: at(32) },
    );
  }
  const canonicalData = alignTo(metadataEnd, header.pageSize);
  if (header.dataPtr !== canonicalData) {
    problems.warn('NonCanonicalLayout', `data_ptr is ${header.dataPtr}, writers put it at ${canonicalData}`, {
      offset: at(40),
    });
  }
  return { rowSize, descriptorsEnd, metadataEnd, dataEnd: header.allocTablePtr, allocCount };
}

/**
 * The sections as the header places them, clamped to the file, for a file whose layout does
 * not check out: what inspect can still show (whole rows and entries inside the file only).
 */
export function clampedLayout(
  header: MldfHeader,
  fields: readonly MldfField[],
  fileSize: number,
): MldfLayout {
  const rowSize = fields.reduce((sum, f) => sum + f.metadataSize, 0);
  const descriptorsEnd = Math.min(fileSize, FIELD_DESC_PTR + DESCRIPTOR_SIZE * header.numFields);
  const metadataEnd = Math.min(fileSize, header.metadataPtr + header.numSamples * rowSize);
  const dataEnd = Math.min(fileSize, Math.max(header.allocTablePtr, header.dataPtr));
  const allocBytes = header.allocTablePtr < fileSize ? fileSize - header.allocTablePtr : 0;
  return {
    rowSize,
    descriptorsEnd,
    metadataEnd,
    dataEnd,
    allocCount: Math.floor(allocBytes / ALLOC_ENTRY_SIZE),
  };
}

/** Encodes magic + header (73 bytes). */
export function encodeHeader(
  h: Omit<MldfHeader, 'reserved' | 'pad1' | 'fieldDescPtr' | 'numSamplesExact'>,
): Uint8Array {
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
