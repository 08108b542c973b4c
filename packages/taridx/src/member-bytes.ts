import {
  type Awaitable,
  type ByteSource,
  checkRange,
  type FormatError,
  type ReadOptions,
  readIntoAwaitable,
  readU64,
} from '@binscope/core';
import type { XXHashAPI } from 'xxhash-wasm';
import { hashKey } from './hash.js';
import { FORMAT, fail, joinHash, R, ROW_SIZE, TAR_BLOCK, type TaridxRow } from './layout.js';
import type { MemberData, ReadMemberOptions, TaridxMember, TaridxSample } from './reader-types.js';

/** The byte-level helpers of reading members: buffers, positional reads, in-place comparisons. */

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** One sample (or member list) being read: the members, their shard order, and how far it got. */
export interface MemberRead {
  members: readonly TaridxMember[];
  order: number[];
  out: MemberData[];
  options: ReadMemberOptions;
  verify: boolean;
  sample: TaridxSample | undefined;
  /** Stem bytes of the first verified member. */
  stem: Uint8Array | undefined;
  /** The next run starts at order[i]; the planned one ends before order[j]. */
  i: number;
  j: number;
  /** How many members were tar extended headers, left out of `out`. */
  skipped: number;
}

/** What a read hands out: `out`, less the holes where extended headers were left out. */
export function membersOut(run: MemberRead): MemberData[] {
  return run.skipped === 0 ? run.out : run.out.filter((m) => m !== undefined);
}

/** Whether readOwned/readReused complete without an await on this source. */
export function readsSync(source: ByteSource): boolean {
  return typeof source.readAt === 'function' || typeof source.readSync === 'function';
}

export function rowAt(view: DataView, i: number): TaridxRow {
  const at = i * ROW_SIZE;
  return {
    fid: view.getUint16(at + R.fid, true),
    offset: readU64(view, at + R.offset),
    size: readU64(view, at + R.size),
    extid: view.getUint16(at + R.extid, true),
    crashid: view.getUint32(at + R.crashid, true),
    keyhash: joinHash(view.getUint32(at + R.keyhash, true), view.getUint32(at + R.keyhash + 4, true)),
  };
}

/**
 * Payload memory carved from 4 MiB slabs: each read gets its own bytes (nothing is reused or
 * overwritten later) without paying for one zero-filled allocation per member. A payload
 * kept alive keeps its slab alive; copy it if you keep a few bytes of many samples.
 */
const SLAB = 4 << 20;
let slab = new Uint8Array(0);
let slabUsed = 0;
export function take(length: number): Uint8Array {
  if (length > SLAB >> 2) return new Uint8Array(length);
  if (slabUsed + length > slab.byteLength) {
    slab = new Uint8Array(SLAB);
    slabUsed = 0;
  }
  const out = slab.subarray(slabUsed, slabUsed + length);
  slabUsed += (length + 7) & ~7;
  return out;
}

/** Bytes that stay valid: read into fresh slab memory (or a copy of what read() returned). */
export function readOwned(
  source: ByteSource,
  offset: number,
  length: number,
  options: ReadOptions = {},
): Uint8Array | Promise<Uint8Array> {
  return readFilled(source, offset, take(length), options);
}

/** `target` filled from `offset` through the fastest read the source declares, or Truncated if fewer came. */
export function readFilled(
  source: ByteSource,
  offset: number,
  target: Uint8Array,
  options: ReadOptions,
): Awaitable<Uint8Array> {
  const got = readIntoAwaitable(source, target, offset, options);
  return got instanceof Promise
    ? got.then((bytes) => filled(source, offset, target.byteLength, bytes, target))
    : filled(source, offset, target.byteLength, got, target);
}

/** `target` holding the `length` bytes read at `offset` (`got`), or Truncated if fewer came. */
export function filled(
  source: ByteSource,
  offset: number,
  length: number,
  got: Uint8Array,
  target: Uint8Array,
): Uint8Array {
  if (got.byteLength !== length)
    throw fail('Truncated', `got ${got.byteLength} of ${length} bytes`, offset, source.name);
  if (got !== target) target.set(got);
  return target;
}

export function sampleHashMatches(hasher: XXHashAPI, stem: string, keyhash: bigint): boolean {
  const [lo, hi] = hashKey(hasher, stem);
  return joinHash(lo, hi) === keyhash;
}

export function inShardOrder(members: readonly TaridxMember[]): boolean {
  for (let i = 1; i < members.length; i++) {
    const a = members[i - 1];
    const b = members[i];
    if (a.fid > b.fid || (a.fid === b.fid && a.offset > b.offset)) return false;
  }
  return true;
}

/** Whether `b[bStart, bStart + length)` equals all of `a`. */
export function equalBytesAt(a: Uint8Array, b: Uint8Array, bStart: number, length: number): boolean {
  if (a.byteLength !== length) return false;
  for (let i = 0; i < length; i++) if (a[i] !== b[bStart + i]) return false;
  return true;
}

export function changedError(member: TaridxMember, file: string, what: string): FormatError {
  return fail(
    'InvalidValue',
    `row ${member.row}: ${what} (the shard changed after indexing?)`,
    member.offset,
    file,
  );
}

/** Whether name bytes [start, end) lower-case to `expected` (ASCII compared in place). */
export function extMatches(
  block: Uint8Array,
  start: number,
  end: number,
  none: boolean,
  expected: Uint8Array,
  text: string,
): boolean {
  if (none) return text === '';
  const length = expected.byteLength;
  if (end - start === length) {
    let ascii = true;
    for (let i = 0; i < length; i++) {
      let b = block[start + i];
      if (b >= 0x80) {
        ascii = false;
        break;
      }
      if (b >= 0x41 && b <= 0x5a) b += 0x20;
      if (b !== expected[i]) return false;
    }
    if (ascii) return true;
  }
  return decoder.decode(block.subarray(start, end)).toLowerCase() === text;
}

/** Members of one sample closer than this in a shard are fetched in one read. */
const COALESCE_GAP = 64 * 1024;
const COALESCE_MAX = 16 * 1024 * 1024;

/** Members [i, j) that one read of `source` covers; returns that read's length (range checked). */
export function planRun(run: MemberRead, source: ByteSource): number {
  const { members, order } = run;
  const head = members[order[run.i]];
  let j = run.i + 1;
  let end = head.offset + TAR_BLOCK + head.size;
  while (j < members.length) {
    const m = members[order[j]];
    const mEnd = m.offset + TAR_BLOCK + m.size;
    if (m.fid !== head.fid || m.offset - end > COALESCE_GAP || mEnd - head.offset > COALESCE_MAX) break;
    end = Math.max(end, mEnd);
    j++;
  }
  if (end > source.size)
    checkRange(source, head.offset, end - head.offset, {
      format: FORMAT,
      what: `row ${head.row} (shard ${source.name})`,
    });
  run.j = j;
  return end - head.offset;
}

/** The reader's reusable buffer (`reuse: true`): a sample's runs share it, the next sample overwrites it. */
export class ScratchBuffer {
  private bytes = new Uint8Array(0);
  private used = 0;

  /** Reads `length` bytes at `offset` into the buffer; `first` starts a new sample. */
  read(
    source: ByteSource,
    offset: number,
    length: number,
    first: boolean,
    options: ReadOptions,
  ): Awaitable<Uint8Array> {
    if (first) this.used = 0;
    if (this.used + length > this.bytes.byteLength) {
      // Earlier runs of this sample keep the old buffer; later samples use the new one.
      this.bytes = new Uint8Array(Math.max(1 << 20, 2 * (this.used + length)));
      this.used = 0;
    }
    const target = new Uint8Array(this.bytes.buffer, this.used, length);
    this.used += length;
    return readFilled(source, offset, target, options);
  }
}
