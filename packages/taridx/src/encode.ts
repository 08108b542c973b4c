// The whole-index encoder (spec section 11): what a .taridx holds, written in one piece; the
// streaming builder (write.ts) shares its header and text blocks.
import type { FormatError } from '@binscope/core';
import {
  fail,
  FLAG_CONTIGUOUS,
  H,
  HEADER_SIZE,
  MAGIC,
  MAJOR,
  MAX_EXTENSIONS,
  MAX_SHARDS,
  MINOR,
  putRow,
  putU64,
  R,
  ROW_SIZE,
  type TaridxRow,
} from './layout.js';
import { groupRows } from './groups.js';

const encoder = new TextEncoder();

/** Rows already packed as 32-byte records (what the builder and the reader hold). */
export interface PackedRows {
  bytes: Uint8Array;
  count: number;
}

/** Everything a .taridx holds; n_stems and flags are derived from the rows. */
export interface TaridxContent {
  /** Extension table in id order (no "\n" inside an entry). */
  extensions: readonly string[];
  /** Crash-stem table: entry i has crash id i + 1. */
  crashStems: readonly string[];
  rows: Iterable<TaridxRow> | PackedRows;
}

function isPacked(rows: TaridxContent['rows']): rows is PackedRows {
  return (rows as PackedRows).bytes instanceof Uint8Array && typeof (rows as PackedRows).count === 'number';
}

export function writerError(message: string): FormatError {
  return fail('InvalidValue', message, undefined);
}

export function textBlock(entries: readonly string[], what: string): Uint8Array {
  for (const entry of entries) {
    if (entry.includes('\n'))
      throw writerError(`${what} ${JSON.stringify(entry)} contains "\\n", which the block cannot store`);
  }
  return encoder.encode(entries.join('\n'));
}

/**
 * Encodes a .taridx (spec section 11): header, extension block, crash block, rows. n_stems is
 * the number of distinct (keyhash, crashid) pairs and flags bit 0 says whether each pair's
 * rows are contiguous (T5).
 */
export function encodeTaridx(content: TaridxContent): Uint8Array {
  const { extensions, crashStems } = content;
  if (extensions.length > MAX_EXTENSIONS) {
    throw writerError(`${extensions.length} extensions; extid is 16 bits (at most ${MAX_EXTENSIONS})`);
  }
  const ext = textBlock(extensions, 'extension');
  const crash = textBlock(crashStems, 'crash stem');
  let packed: PackedRows;
  if (isPacked(content.rows)) {
    packed = content.rows;
    checkPacked(packed, extensions.length, crashStems.length);
  } else {
    const list = Array.isArray(content.rows) ? (content.rows as TaridxRow[]) : [...content.rows];
    const bytes = new Uint8Array(list.length * ROW_SIZE);
    const view = new DataView(bytes.buffer);
    list.forEach((row, i) => {
      checkRow(row, i, extensions.length, crashStems.length);
      putRow(view, i * ROW_SIZE, row);
    });
    packed = { bytes, count: list.length };
  }
  const groups = groupRows(packed.bytes, packed.count);
  return assemble(ext, crash, extensions.length, crashStems.length, packed, groups.count, groups.runs);
}

function checkRow(row: TaridxRow, i: number, nExt: number, nCrash: number): void {
  const bad = (what: string) => writerError(`row ${i}: ${what}`);
  if (!Number.isInteger(row.fid) || row.fid < 0 || row.fid >= MAX_SHARDS)
    throw bad(`fid ${row.fid} is not in 0..65535`);
  if (!Number.isSafeInteger(row.offset) || row.offset < 0)
    throw bad(`offset ${row.offset} is not a byte offset`);
  if (!Number.isSafeInteger(row.size) || row.size < 0) throw bad(`size ${row.size} is not a byte count`);
  if (!Number.isInteger(row.extid) || row.extid < 0 || row.extid >= nExt)
    throw bad(`extid ${row.extid} is not below ${nExt}`);
  if (!Number.isInteger(row.crashid) || row.crashid < 0 || row.crashid > nCrash) {
    throw bad(`crashid ${row.crashid} is not in 0..${nCrash}`);
  }
  if (typeof row.keyhash !== 'bigint' || row.keyhash < 0n || row.keyhash >= 1n << 64n)
    throw bad('keyhash is not a u64 bigint');
}

function checkPacked(rows: PackedRows, nExt: number, nCrash: number): void {
  if (rows.bytes.byteLength < rows.count * ROW_SIZE)
    throw writerError('packed rows are shorter than count × 32 bytes');
  const view = new DataView(rows.bytes.buffer, rows.bytes.byteOffset, rows.bytes.byteLength);
  for (let i = 0; i < rows.count; i++) {
    const at = i * ROW_SIZE;
    if (view.getUint16(at + R.extid, true) >= nExt) throw writerError(`row ${i}: extid is not below ${nExt}`);
    if (view.getUint32(at + R.crashid, true) > nCrash)
      throw writerError(`row ${i}: crashid is not in 0..${nCrash}`);
  }
}

export function assemble(
  ext: Uint8Array,
  crash: Uint8Array,
  nExt: number,
  nCrash: number,
  rows: PackedRows,
  nStems: number,
  runs: number,
): Uint8Array {
  const head = headBytes(ext, crash, nExt, nCrash, rows.count, nStems, runs === nStems);
  const rowBytes = rows.count * ROW_SIZE;
  const out = new Uint8Array(head.byteLength + rowBytes);
  out.set(head);
  out.set(rows.bytes.subarray(0, rowBytes), head.byteLength);
  return out;
}

/**
 * Everything before the rows (spec section 11): the 64-byte header, the extension block and
 * the crash block. `contiguous`: each (keyhash, crashid) pair's rows form one run (flags bit 0).
 */
export function headBytes(
  ext: Uint8Array,
  crash: Uint8Array,
  nExt: number,
  nCrash: number,
  nRows: number,
  nStems: number,
  contiguous: boolean,
): Uint8Array {
  const offCrash = HEADER_SIZE + ext.byteLength;
  const offArr = offCrash + crash.byteLength;
  const out = new Uint8Array(offArr);
  const view = new DataView(out.buffer);
  out.set(MAGIC, H.magic);
  view.setUint16(H.major, MAJOR, true);
  view.setUint16(H.minor, MINOR, true);
  view.setUint16(H.recSize, ROW_SIZE, true);
  view.setUint16(H.hdrSize, HEADER_SIZE, true);
  putU64(view, H.nStems, nStems);
  putU64(view, H.nRows, nRows);
  view.setUint32(H.nExt, nExt, true);
  view.setUint32(H.nCrash, nCrash, true);
  putU64(view, H.offCrash, offCrash);
  putU64(view, H.offArr, offArr);
  out[H.flags] = contiguous ? FLAG_CONTIGUOUS : 0;
  out.set(ext, HEADER_SIZE);
  out.set(crash, offCrash);
  return out;
}
