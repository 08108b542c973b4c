import { formatErrors } from '@binscope/core';
import { decodeUtf8, float16ToNumber } from '@binscope/core/binary';
import { FORMAT } from './header.js';

/**
 * Real NumPy `.npy` files, which the feature indices use (C6) — unlike the matrix arrays,
 * which are raw despite their extension (C4). Only what SCDL needs: 1-d / 0-d arrays of
 * integers, floats, unicode and bytes strings.
 */

const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
/** Header text larger than this is not a real .npy header; refuse before decoding it. */
const MAX_HEADER_LENGTH = 1 << 20;

export interface NpyHeader {
  descr: string;
  fortranOrder: boolean;
  shape: number[];
  /** Offset of the first data byte. */
  dataOffset: number;
  version: [number, number];
}

export type NpyValue = number | bigint | string | boolean;

export interface NpyArray {
  header: NpyHeader;
  /** Elements in C order (0-d arrays have one). */
  values: NpyValue[];
}

const error = formatErrors(FORMAT);
/** Throws: parsing a .npy header cannot go on past a defect. */
function fail(
  code: 'Truncated' | 'InvalidValue' | 'UnsupportedFeature',
  message: string,
  offset: number,
  file: string,
): never {
  throw error(code, message, offset, file);
}

/** Parses the magic, version (1, 2 or 3) and the header dict of a `.npy` file. */
export function parseNpyHeader(bytes: Uint8Array, file: string): NpyHeader {
  if (bytes.byteLength < 10) fail('Truncated', `${file} is too short for a .npy header`, 0, file);
  for (let i = 0; i < NPY_MAGIC.length; i++) {
    if (bytes[i] !== NPY_MAGIC[i])
      fail('InvalidValue', `${file} is not a .npy file (no \\x93NUMPY magic)`, 0, file);
  }
  const major = bytes[6];
  const minor = bytes[7];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let headerLength: number;
  let headerStart: number;
  if (major === 1) {
    headerLength = view.getUint16(8, true);
    headerStart = 10;
  } else if (major === 2 || major === 3) {
    if (bytes.byteLength < 12) fail('Truncated', `${file} is too short for a .npy v${major} header`, 8, file);
    headerLength = view.getUint32(8, true);
    headerStart = 12;
  } else {
    fail('UnsupportedFeature', `${file}: .npy format version ${major}.${minor} is not supported`, 6, file);
  }
  if (headerLength > MAX_HEADER_LENGTH)
    fail('InvalidValue', `${file}: .npy header length ${headerLength} is implausible`, 8, file);
  if (headerStart + headerLength > bytes.byteLength) {
    fail(
      'Truncated',
      `${file}: .npy header of ${headerLength} bytes runs past the end of the file`,
      headerStart,
      file,
    );
  }
  const raw = bytes.subarray(headerStart, headerStart + headerLength);
  const text =
    major === 3
      ? decodeUtf8(raw, { file, offset: headerStart, format: FORMAT, what: '.npy header' })
      : latin1(raw);
  const dict = parseHeaderDict(text, file, headerStart);
  return { ...dict, dataOffset: headerStart + headerLength, version: [major, minor] };
}

function latin1(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.byteLength; i++) out += String.fromCharCode(bytes[i]);
  return out;
}

/** The header is a Python dict literal: {'descr': '<i8', 'fortran_order': False, 'shape': (2,), }. */
function parseHeaderDict(
  text: string,
  file: string,
  offset: number,
): Omit<NpyHeader, 'dataOffset' | 'version'> {
  const bad = (what: string): never =>
    fail(
      'InvalidValue',
      `${file}: .npy header ${what}: ${JSON.stringify(text.trim().slice(0, 120))}`,
      offset,
      file,
    );
  const descr = /['"]descr['"]\s*:\s*['"]([^'"]*)['"]/.exec(text)?.[1];
  const fortran = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(text)?.[1];
  const shapeText = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(text)?.[1];
  if (descr === undefined) bad('has no descr');
  if (fortran === undefined) bad('has no fortran_order');
  if (shapeText === undefined) bad('has no shape');
  const shape: number[] = [];
  for (const part of shapeText!.split(',')) {
    const t = part.trim().replace(/L$/, '');
    if (!t) continue;
    if (!/^\d+$/.test(t)) bad('has a bad shape');
    const n = Number(t);
    if (!Number.isSafeInteger(n)) bad('has a shape too large');
    shape.push(n);
  }
  return { descr: descr!, fortranOrder: fortran === 'True', shape };
}

interface Descr {
  kind: 'i' | 'u' | 'f' | 'b' | 'U' | 'S';
  size: number;
  littleEndian: boolean;
}

function parseDescr(descr: string, file: string, offset: number): Descr {
  const m = /^([<>|=]?)([iufbUS?])(\d+)$/.exec(descr) ?? /^([<>|=]?)(\?)$/.exec(descr);
  if (!m)
    fail('UnsupportedFeature', `${file}: .npy dtype ${JSON.stringify(descr)} is not supported`, offset, file);
  const kind = (m![2] === '?' ? 'b' : m![2]) as Descr['kind'];
  const size = m![3] === undefined ? 1 : Number(m![3]);
  const ok =
    (kind === 'i' && [1, 2, 4, 8].includes(size)) ||
    (kind === 'u' && [1, 2, 4, 8].includes(size)) ||
    (kind === 'f' && [2, 4, 8].includes(size)) ||
    (kind === 'b' && size === 1) ||
    kind === 'U' ||
    kind === 'S';
  if (!ok)
    fail('UnsupportedFeature', `${file}: .npy dtype ${JSON.stringify(descr)} is not supported`, offset, file);
  return { kind, size, littleEndian: m![1] !== '>' };
}

/** Reads a whole small `.npy` (feature-index metadata). The element count is checked against the bytes present first. */
export function parseNpy(bytes: Uint8Array, file: string): NpyArray {
  const header = parseNpyHeader(bytes, file);
  const d = parseDescr(header.descr, file, 8);
  const count = header.shape.reduce((a, b) => a * b, 1);
  const itemBytes = d.kind === 'U' ? d.size * 4 : d.size;
  const need = count * itemBytes;
  const have = bytes.byteLength - header.dataOffset;
  if (!Number.isSafeInteger(need) || need > have) {
    fail(
      'Truncated',
      `${file}: shape (${header.shape.join(', ')}) needs ${header.shape.reduce((n, d) => n * BigInt(d), BigInt(itemBytes))} data bytes but ${have} remain`,
      header.dataOffset,
      file,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + header.dataOffset, need);
  const values: NpyValue[] = new Array(count);
  for (let i = 0; i < count; i++) values[i] = readElement(view, i * itemBytes, d);
  return { header, values };
}

function readElement(view: DataView, at: number, d: Descr): NpyValue {
  const le = d.littleEndian;
  switch (d.kind) {
    case 'b':
      return view.getUint8(at) !== 0;
    case 'i':
      if (d.size === 1) return view.getInt8(at);
      if (d.size === 2) return view.getInt16(at, le);
      if (d.size === 4) return view.getInt32(at, le);
      return narrow(view.getBigInt64(at, le));
    case 'u':
      if (d.size === 1) return view.getUint8(at);
      if (d.size === 2) return view.getUint16(at, le);
      if (d.size === 4) return view.getUint32(at, le);
      return narrow(view.getBigUint64(at, le));
    case 'f':
      if (d.size === 4) return view.getFloat32(at, le);
      if (d.size === 8) return view.getFloat64(at, le);
      return float16ToNumber(view.getUint16(at, le));
    case 'U': {
      let out = '';
      for (let k = 0; k < d.size; k++) {
        const cp = view.getUint32(at + 4 * k, le);
        if (cp === 0) break;
        out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
      }
      return out;
    }
    case 'S': {
      const raw = new Uint8Array(view.buffer, view.byteOffset + at, d.size);
      const end = raw.indexOf(0);
      return new TextDecoder().decode(end < 0 ? raw : raw.subarray(0, end));
    }
  }
}

function narrow(v: bigint): number | bigint {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

// numpy leaves room for the first axis to grow to 21 digits without rewriting the header.
const GROWTH_AXIS_MAX_DIGITS = 21;
const ARRAY_ALIGN = 64;

/** The header numpy 1.24+ writes with `np.save` (version 1.0, padded to 64 bytes). */
export function npyHeaderBytes(descr: string, shape: readonly number[]): Uint8Array {
  const shapeText =
    shape.length === 0 ? '()' : shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  if (shape.length > 0) dict += ' '.repeat(Math.max(0, GROWTH_AXIS_MAX_DIGITS - String(shape[0]).length));
  const hlen = dict.length + 1;
  let prefix = 10;
  let padlen = ARRAY_ALIGN - ((prefix + hlen) % ARRAY_ALIGN);
  let major = 1;
  if (hlen + padlen > 0xffff) {
    major = 2;
    prefix = 12;
    padlen = ARRAY_ALIGN - ((prefix + hlen) % ARRAY_ALIGN);
  }
  const total = prefix + hlen + padlen;
  const out = new Uint8Array(total);
  out.set(NPY_MAGIC, 0);
  out[6] = major;
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (major === 1) view.setUint16(8, hlen + padlen, true);
  else view.setUint32(8, hlen + padlen, true);
  for (let i = 0; i < dict.length; i++) out[prefix + i] = dict.charCodeAt(i);
  out.fill(0x20, prefix + dict.length, total - 1);
  out[total - 1] = 0x0a;
  return out;
}

/** An int64 1-d `.npy` (cumulative_sum_index.npy). */
export function int64Npy(values: readonly (number | bigint)[]): Uint8Array {
  const header = npyHeaderBytes('<i8', [values.length]);
  const out = new Uint8Array(header.byteLength + values.length * 8);
  out.set(header, 0);
  const view = new DataView(out.buffer, header.byteLength);
  for (let i = 0; i < values.length; i++) view.setBigInt64(i * 8, BigInt(values[i]), true);
  return out;
}

/** A 0-d unicode `.npy` scalar (version.npy), `<U{n}` in UTF-32LE. */
export function unicodeScalarNpy(value: string): Uint8Array {
  const codePoints = Array.from(value, (ch) => ch.codePointAt(0)!);
  const header = npyHeaderBytes(`<U${Math.max(1, codePoints.length)}`, []);
  const out = new Uint8Array(header.byteLength + Math.max(1, codePoints.length) * 4);
  out.set(header, 0);
  const view = new DataView(out.buffer, header.byteLength);
  for (let i = 0; i < codePoints.length; i++) view.setUint32(i * 4, codePoints[i], true);
  return out;
}
