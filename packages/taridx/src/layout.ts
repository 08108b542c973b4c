/** The on-disk layout of a .taridx (spec sections 4, 5 and 8). */
import { formatErrors } from '@binscope/core';

export const FORMAT = 'taridx';
export const HEADER_SIZE = 64;
export const ROW_SIZE = 32;
export const MAGIC = Uint8Array.of(0x54, 0x41, 0x52, 0x49, 0x44, 0x58, 0, 0); // "TARIDX\0\0"
export const MAJOR = 1;
export const MINOR = 0;
/** flags bit 0: rows are contiguous by (keyhash, crashid). */
export const FLAG_CONTIGUOUS = 0x01;
/** fid is a u16. */
export const MAX_SHARDS = 65_536;
/** extid is a u16. */
export const MAX_EXTENSIONS = 65_536;
export const TAR_BLOCK = 512;

/** Byte offsets of the header fields. */
export const H = {
  magic: 0,
  major: 8,
  minor: 10,
  recSize: 12,
  hdrSize: 14,
  nStems: 16,
  nRows: 24,
  nExt: 32,
  nCrash: 36,
  offCrash: 40,
  offArr: 48,
  flags: 56,
  reserved: 57,
} as const;

/** Byte offsets of the fields inside a 32-byte row. */
export const R = { fid: 0, offset: 2, size: 10, extid: 18, crashid: 20, keyhash: 24 } as const;

/** One row: a tar header block and the payload after it. */
export interface TaridxRow {
  /** Shard id: position of the shard in the sorted shard list. */
  fid: number;
  /** Byte offset of the member's 512-byte tar header in its shard. */
  offset: number;
  /** Payload size in bytes; the payload starts at offset + 512. */
  size: number;
  /** Index into the extension table. */
  extid: number;
  /** 0 for the canonical stem of a keyhash, ≥ 1 for an entry of the crash-stem table. */
  crashid: number;
  /** XXH64 (seed 0) of the stem's UTF-8 bytes. */
  keyhash: bigint;
}

/** The header as stored. 64-bit counts are numbers (exact up to 2^53, which no real index reaches). */
export interface TaridxHeader {
  magic: string;
  major: number;
  minor: number;
  recSize: number;
  hdrSize: number;
  nStems: number;
  nRows: number;
  nExt: number;
  nCrash: number;
  offCrash: number;
  offArr: number;
  flags: number;
  reserved: Uint8Array;
}

const TWO_32 = 2 ** 32;

/** keyhash halves → bigint. */
const joinBig = new BigUint64Array(1);
const joinHalves = new Uint32Array(joinBig.buffer);
const LO = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;

export function joinHash(lo: number, hi: number): bigint {
  // Through a typed array: BigInt shifts and ors allocate several BigInts per call.
  joinHalves[LO] = lo;
  joinHalves[1 - LO] = hi;
  return joinBig[0];
}

export function splitHash(hash: bigint): [lo: number, hi: number] {
  return [Number(hash & 0xffffffffn), Number((hash >> 32n) & 0xffffffffn)];
}

/** Writes one row at `at` of `view`. */
export function putRow(view: DataView, at: number, row: TaridxRow): void {
  view.setUint16(at + R.fid, row.fid, true);
  putU64(view, at + R.offset, row.offset);
  putU64(view, at + R.size, row.size);
  view.setUint16(at + R.extid, row.extid, true);
  view.setUint32(at + R.crashid, row.crashid, true);
  view.setBigUint64(at + R.keyhash, row.keyhash, true);
}

export function putU64(view: DataView, at: number, value: number): void {
  // `>>> 0` is the low word of any safe integer; `%` on doubles is a slow fmod call.
  const lo = value >>> 0;
  view.setUint32(at, lo, true);
  view.setUint32(at + 4, (value - lo) / TWO_32, true);
}

/** The one error factory of the format: code, message, offset, file. */
export const fail = formatErrors(FORMAT);
