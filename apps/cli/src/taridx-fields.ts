import { FormatError } from '@binscope/core';
import type { FieldSpec, NdDtype } from '@binscope/mldf';
import { convertIndexedToRgb, decode as decodePng } from 'fast-png';
import { decode as decodeJpeg } from 'jpeg-js';

/**
 * How a WebDataset member extension becomes an MLDF field (issue 25): the last dot-suffix
 * picks the type, the whole extension is the field name (`seg.png` → field "seg.png").
 * Images are decoded with jpeg-js (JPEG) and fast-png (PNG): pure JavaScript, so the same
 * code runs in Node and browsers.
 */
export type MemberKind = 'image' | 'json' | 'text' | 'class' | 'npy' | 'bytes';

export function kindOf(ext: string): MemberKind {
  const last = ext.slice(ext.lastIndexOf('.') + 1);
  if (last === 'jpg' || last === 'jpeg' || last === 'png') return 'image';
  if (last === 'json') return 'json';
  if (last === 'txt') return 'text';
  if (last === 'cls') return 'class';
  if (last === 'npy') return 'npy';
  return 'bytes';
}

/** Where a member is, for errors. */
export interface MemberPlace {
  file: string;
  offset: number;
  key: string;
  ext: string;
}

function bad(place: MemberPlace, message: string, cause?: unknown): FormatError {
  return new FormatError(
    'InvalidValue',
    `sample ${JSON.stringify(place.key)} member .${place.ext}: ${message}`,
    { file: place.file, offset: place.offset, format: 'taridx' },
    { cause },
  );
}

// ---------------------------------------------------------------------------------------
// .npy

const ND: ReadonlySet<string> = new Set([
  '|u1',
  '|i1',
  '<u2',
  '<i2',
  '<u4',
  '<i4',
  '<u8',
  '<i8',
  '<f4',
  '<f8',
]);
const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];

export interface NpyLayout {
  dtype: NdDtype;
  shape: number[];
  /** Where the C-order array data starts inside the member. */
  dataOffset: number;
}

/**
 * The array an .npy member holds when MLDF's NDARRAY can carry it (one of its ten dtypes,
 * C order, at most 8 axes, data exactly prod(shape)·itemsize); undefined otherwise, and the
 * field falls back to BYTES.
 */
export function npyLayout(bytes: Uint8Array): NpyLayout | undefined {
  if (bytes.length < 10 || NPY_MAGIC.some((b, i) => bytes[i] !== b)) return undefined;
  const major = bytes[6];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lengthSize = major === 1 ? 2 : 4;
  if (major < 1 || major > 3 || bytes.length < 8 + lengthSize) return undefined;
  const headerLength = lengthSize === 2 ? view.getUint16(8, true) : view.getUint32(8, true);
  const dataOffset = 8 + lengthSize + headerLength;
  if (dataOffset > bytes.length) return undefined;
  const header = new TextDecoder('latin1').decode(bytes.subarray(8 + lengthSize, dataOffset));
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || fortran !== 'False' || shapeText === undefined) return undefined;
  const dtype =
    descr === '<u1' || descr === '>u1' ? '|u1' : descr === '<i1' || descr === '>i1' ? '|i1' : descr;
  if (!ND.has(dtype)) return undefined;
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  if (shape.length > 8 || shape.some((d) => !Number.isSafeInteger(d) || d < 0)) return undefined;
  const size = shape.reduce((a, b) => a * b, 1) * Number(dtype.slice(2));
  if (dataOffset + size !== bytes.length) return undefined;
  return { dtype: dtype as NdDtype, shape, dataOffset };
}

export const layoutKey = (l: NpyLayout | undefined) => (l ? `${l.dtype} ${l.shape.join('x')}` : 'bytes');

// ---------------------------------------------------------------------------------------
// images

/** A decoded image's pixels may not exceed this (the decoder would allocate it). */
const MAX_PIXEL_BYTES = 512 << 20;

export interface RawImage {
  height: number;
  width: number;
  channels: number;
  pixels: Uint8Array;
}

function isPng(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47
  );
}

function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/** 1-, 2- and 4-bit grey samples (packed, rows byte-aligned) scaled to 0–255. */
function unpackBits(
  data: Uint8Array,
  width: number,
  height: number,
  channels: number,
  depth: number,
): Uint8Array {
  const perRow = width * channels;
  const rowBytes = Math.ceil((perRow * depth) / 8);
  const out = new Uint8Array(perRow * height);
  const max = (1 << depth) - 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < perRow; x++) {
      const bit = x * depth;
      const byte = data[y * rowBytes + (bit >> 3)];
      const value = (byte >> (8 - depth - (bit & 7))) & max;
      out[y * perRow + x] = Math.round((value * 255) / max);
    }
  }
  return out;
}

function decodePngImage(bytes: Uint8Array, place: MemberPlace): RawImage {
  // IHDR sits at a fixed place: refuse absurd sizes before the decoder allocates them.
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 24) throw bad(place, 'PNG ends inside its header');
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  if (width > 0xffff || height > 0xffff || width * height * 4 > MAX_PIXEL_BYTES)
    throw bad(
      place,
      `PNG of ${width}×${height} pixels is larger than an MLDF image can be (65535×65535, 512 MiB)`,
    );
  const png = decodePng(bytes);
  if (png.palette) {
    const rgb = convertIndexedToRgb(png);
    const channels = rgb.length / (png.width * png.height);
    return { height: png.height, width: png.width, channels, pixels: rgb };
  }
  let pixels: Uint8Array;
  if (png.depth === 16) {
    pixels = new Uint8Array(png.data.length);
    for (let i = 0; i < pixels.length; i++) pixels[i] = png.data[i] >> 8;
  } else if (png.depth === 8) {
    const d = png.data;
    pixels = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  } else pixels = unpackBits(png.data as Uint8Array, png.width, png.height, png.channels, png.depth);
  return { height: png.height, width: png.width, channels: png.channels, pixels };
}

/** JPEG → RGB or PNG → its own channel count (grey, grey+alpha, RGB, RGBA), 8 bits, HWC. */
export function decodeImage(bytes: Uint8Array, place: MemberPlace): RawImage {
  try {
    if (isPng(bytes)) return decodePngImage(bytes, place);
    if (isJpeg(bytes)) {
      const jpeg = decodeJpeg(bytes, {
        useTArray: true,
        formatAsRGBA: false,
        maxResolutionInMP: (0xffff * 0xffff) / 1e6,
        maxMemoryUsageInMB: MAX_PIXEL_BYTES >> 20,
      });
      if (jpeg.width > 0xffff || jpeg.height > 0xffff) throw bad(place, 'JPEG is wider or taller than 65535');
      return { height: jpeg.height, width: jpeg.width, channels: 3, pixels: jpeg.data };
    }
  } catch (error) {
    if (error instanceof FormatError) throw error;
    throw bad(
      place,
      `cannot decode the image (${(error as Error).message}); pass --keep-encoded to store it as is`,
      error,
    );
  }
  throw bad(place, 'is neither a PNG nor a JPEG; pass --keep-encoded to store it as bytes');
}

// ---------------------------------------------------------------------------------------
// the field a member kind becomes, and its value

export interface FieldPlan {
  spec: FieldSpec;
  kind: MemberKind;
  /** NDARRAY fields: the layout every value has. */
  npy?: NpyLayout;
}

export function planField(ext: string, options: { keepEncoded?: boolean; npy?: NpyLayout }): FieldPlan {
  const kind = kindOf(ext);
  const name = ext;
  switch (kind) {
    case 'image':
      return { kind, spec: { name, type: options.keepEncoded ? 'BYTES' : 'IMAGE_RAW' } };
    case 'json':
      return { kind, spec: { name, type: 'JSON' } };
    case 'text':
      return { kind, spec: { name, type: 'TEXT_RAW' } };
    case 'class':
      return { kind, spec: { name, type: 'INT' } };
    case 'npy':
      return options.npy
        ? {
            kind,
            npy: options.npy,
            spec: { name, type: 'NDARRAY', dtype: options.npy.dtype, shape: options.npy.shape },
          }
        : { kind, spec: { name, type: 'BYTES' } };
    default:
      return { kind, spec: { name, type: 'BYTES' } };
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** One member's bytes as the value its field takes. */
export function memberValue(plan: FieldPlan, bytes: Uint8Array, place: MemberPlace): unknown {
  switch (plan.spec.type) {
    case 'IMAGE_RAW':
      return decodeImage(bytes, place);
    case 'JSON':
    case 'TEXT_RAW':
    case 'INT': {
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch (error) {
        throw bad(place, 'is not valid UTF-8', error);
      }
      if (plan.spec.type === 'TEXT_RAW') return text;
      if (plan.spec.type === 'INT') {
        const trimmed = text.trim();
        if (!/^[-+]?\d+$/.test(trimmed))
          throw bad(place, `${JSON.stringify(trimmed.slice(0, 40))} is not an integer class`);
        const value = BigInt(trimmed);
        if (value < -(2n ** 63n) || value >= 2n ** 63n)
          throw bad(place, `${trimmed} does not fit in 64 bits`);
        return value;
      }
      try {
        return JSON.parse(text);
      } catch (error) {
        throw bad(place, `is not JSON (${(error as Error).message})`, error);
      }
    }
    case 'NDARRAY': {
      const layout = plan.npy!;
      const data = bytes.slice(layout.dataOffset);
      return { dtype: layout.dtype, shape: layout.shape, data: typedView(layout.dtype, data) };
    }
    default:
      return bytes;
  }
}

function typedView(dtype: NdDtype, bytes: Uint8Array) {
  const { buffer, byteOffset, byteLength } = bytes;
  switch (dtype) {
    case '|u1':
      return bytes;
    case '|i1':
      return new Int8Array(buffer, byteOffset, byteLength);
    case '<u2':
      return new Uint16Array(buffer, byteOffset, byteLength / 2);
    case '<i2':
      return new Int16Array(buffer, byteOffset, byteLength / 2);
    case '<u4':
      return new Uint32Array(buffer, byteOffset, byteLength / 4);
    case '<i4':
      return new Int32Array(buffer, byteOffset, byteLength / 4);
    case '<u8':
      return new BigUint64Array(buffer, byteOffset, byteLength / 8);
    case '<i8':
      return new BigInt64Array(buffer, byteOffset, byteLength / 8);
    case '<f4':
      return new Float32Array(buffer, byteOffset, byteLength / 4);
    case '<f8':
      return new Float64Array(buffer, byteOffset, byteLength / 8);
  }
}
