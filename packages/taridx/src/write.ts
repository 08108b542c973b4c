import { FormatError } from '@binscope/core';
import type { XXHashAPI } from 'xxhash-wasm';
import { groupRows } from './groups.js';
import { hashBytes, loadHasher } from './hash.js';
import {
  FLAG_CONTIGUOUS,
  FORMAT,
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

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // replacement mode, as upstream's decode('utf-8', 'replace')

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

function writerError(message: string): FormatError {
  return new FormatError('InvalidValue', message, { format: FORMAT });
}

function textBlock(entries: readonly string[], what: string): Uint8Array {
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

function assemble(
  ext: Uint8Array,
  crash: Uint8Array,
  nExt: number,
  nCrash: number,
  rows: PackedRows,
  nStems: number,
  runs: number,
): Uint8Array {
  const offCrash = HEADER_SIZE + ext.byteLength;
  const offArr = offCrash + crash.byteLength;
  const rowBytes = rows.count * ROW_SIZE;
  const out = new Uint8Array(offArr + rowBytes);
  const view = new DataView(out.buffer);
  out.set(MAGIC, H.magic);
  view.setUint16(H.major, MAJOR, true);
  view.setUint16(H.minor, MINOR, true);
  view.setUint16(H.recSize, ROW_SIZE, true);
  view.setUint16(H.hdrSize, HEADER_SIZE, true);
  putU64(view, H.nStems, nStems);
  putU64(view, H.nRows, rows.count);
  view.setUint32(H.nExt, nExt, true);
  view.setUint32(H.nCrash, nCrash, true);
  putU64(view, H.offCrash, offCrash);
  putU64(view, H.offArr, offArr);
  out[H.flags] = runs === nStems ? FLAG_CONTIGUOUS : 0;
  out.set(ext, HEADER_SIZE);
  out.set(crash, offCrash);
  out.set(rows.bytes.subarray(0, rowBytes), offArr);
  return out;
}

/** Where a member came from, for error messages. */
export interface MemberOrigin {
  file?: string;
  offset?: number;
}

/**
 * Builds an index from members in shard order, assigning stems, extensions, keyhashes and
 * crash ids exactly as upstream does (T2, T3, T5). The indexer feeds it raw tar header
 * blocks; `add` takes a name for other listings.
 */
export class TaridxBuilder {
  private rows: Uint8Array = new Uint8Array(ROW_SIZE * 1024);
  private view = new DataView(this.rows.buffer);
  private count = 0;
  private runs = 0;
  private readonly extIds = new Map<string, number>();
  private readonly extensions: string[] = [];
  /** Recently seen raw extension bytes → id, checked before decoding anything. */
  private readonly extCache: Array<{ bytes: Uint8Array; id: number }> = [];
  /** Distinct stems: their hash halves, crash id, and UTF-8 text bytes (in `stemText`). */
  private stemTotal = 0;
  private stemLo: Uint32Array = new Uint32Array(1024);
  private stemHi: Uint32Array = new Uint32Array(1024);
  private stemCrash: Uint32Array = new Uint32Array(1024);
  private stemStart: Uint32Array = new Uint32Array(1024);
  private stemLength: Uint32Array = new Uint32Array(1024);
  /** The next stem whose hash has the same low half, -1 at the end. */
  private stemNext: Int32Array = new Int32Array(1024);
  private stemText: Uint8Array = new Uint8Array(16 * 1024);
  private stemTextUsed = 0;
  /**
   * Open addressing over the low hash half → the first stem with it (1-based, 0 = empty).
   * Stems are found by hashing their bytes and comparing bytes: no string per stem.
   */
  private slots: Int32Array = new Int32Array(2048);
  private readonly crashStems: string[] = [];
  private readonly prevStem = new Uint8Array(100);
  private prevStemLength = -1;
  private prevLo = 0;
  private prevHi = 0;
  private prevCrash = -1;

  private constructor(private readonly hasher: XXHashAPI) {}

  static async create(): Promise<TaridxBuilder> {
    return new TaridxBuilder(await loadHasher());
  }

  get rowCount(): number {
    return this.count;
  }

  /** Adds a member by its name field (the header's first 100 bytes up to NUL, or any name). */
  add(member: { fid: number; offset: number; size: number; name: string | Uint8Array }): void {
    const bytes = typeof member.name === 'string' ? encoder.encode(member.name) : member.name;
    this.addName(member.fid, member.offset, member.size, bytes, 0, bytes.byteLength);
  }

  /** Adds the row for the name bytes `block[start..end)`. */
  addName(
    fid: number,
    offset: number,
    size: number,
    block: Uint8Array,
    start: number,
    end: number,
    origin?: MemberOrigin,
  ): void {
    if (fid < 0 || fid >= MAX_SHARDS || !Number.isInteger(fid)) {
      throw new FormatError(
        'UnsupportedFeature',
        `fid ${fid}: a .taridx addresses at most ${MAX_SHARDS} shards`,
        {
          format: FORMAT,
        },
      );
    }
    let stemStart = start;
    for (let i = end - 1; i >= start; i--) {
      if (block[i] === 0x2f) {
        stemStart = i + 1;
        break;
      }
    }
    let dot = -1;
    for (let i = stemStart; i < end; i++) {
      if (block[i] === 0x2e) {
        dot = i;
        break;
      }
    }
    const stemEnd = dot < 0 ? end : dot;
    const stemLength = stemEnd - stemStart;

    let lo: number;
    let hi: number;
    let crashid: number;
    if (stemLength === this.prevStemLength && sameBytes(block, stemStart, this.prevStem, stemLength)) {
      lo = this.prevLo;
      hi = this.prevHi;
      crashid = this.prevCrash;
    } else {
      const index = this.stemIndex(block, stemStart, stemEnd, origin);
      lo = this.stemLo[index];
      hi = this.stemHi[index];
      crashid = this.stemCrash[index];
      if (stemLength <= 100) {
        const prev = this.prevStem;
        for (let k = 0; k < stemLength; k++) prev[k] = block[stemStart + k];
        this.prevStemLength = stemLength;
      } else {
        this.prevStemLength = -1;
      }
    }
    const extid = this.extId(block, dot, end, origin);

    if (lo !== this.prevLo || hi !== this.prevHi || crashid !== this.prevCrash) this.runs++;
    this.prevLo = lo;
    this.prevHi = hi;
    this.prevCrash = crashid;

    if ((this.count + 1) * ROW_SIZE > this.rows.byteLength) {
      const bigger = new Uint8Array(this.rows.byteLength * 2);
      bigger.set(this.rows);
      this.rows = bigger;
      this.view = new DataView(bigger.buffer);
    }
    const at = this.count * ROW_SIZE;
    const view = this.view;
    view.setUint16(at + R.fid, fid, true);
    putU64(view, at + R.offset, offset);
    putU64(view, at + R.size, size);
    view.setUint16(at + R.extid, extid, true);
    view.setUint32(at + R.crashid, crashid, true);
    view.setUint32(at + R.keyhash, lo, true);
    view.setUint32(at + R.keyhash + 4, hi, true);
    this.count++;
  }

  private stemIndex(block: Uint8Array, start: number, end: number, origin?: MemberOrigin): number {
    let ascii = true;
    for (let i = start; i < end; i++) {
      if (block[i] >= 0x80) {
        ascii = false;
        break;
      }
    }
    // Non-ASCII names hash the re-encoded text, so U+FFFD replacements hash as EF BF BD, and
    // two byte strings that decode alike are one stem.
    let text = block;
    let textStart = start;
    let textEnd = end;
    if (!ascii) {
      text = encoder.encode(decoder.decode(block.subarray(start, end)));
      textStart = 0;
      textEnd = text.byteLength;
    }
    const hash = hashBytes(this.hasher, text, textStart, textEnd);
    const lo = hash[0];
    const hi = hash[1];
    const length = textEnd - textStart;
    const mask = this.slots.length - 1;
    let slot = (lo ^ (lo >>> 15)) & mask;
    let head = -1;
    for (;;) {
      const s = this.slots[slot];
      if (s === 0) break;
      if (this.stemLo[s - 1] === lo) {
        head = s - 1;
        break;
      }
      slot = (slot + 1) & mask;
    }
    // As upstream: the first stem with a hash is canonical (crash id 0); every other stem with
    // that hash gets the next crash id.
    let sameHash = false;
    let last = -1;
    for (let k = head; k >= 0; k = this.stemNext[k]) {
      last = k;
      if (this.stemHi[k] !== hi) continue;
      sameHash = true;
      if (
        this.stemLength[k] === length &&
        sameBytesAt(text, textStart, this.stemText, this.stemStart[k], length)
      )
        return k;
    }
    let crashid = 0;
    if (sameHash) {
      const stem = decoder.decode(text.subarray(textStart, textEnd));
      if (stem.includes('\n')) {
        throw new FormatError(
          'InvalidValue',
          `stem ${JSON.stringify(stem)} needs a crash-table entry but contains "\\n"`,
          {
            ...origin,
            format: FORMAT,
          },
        );
      }
      this.crashStems.push(stem);
      crashid = this.crashStems.length;
    }
    const index = this.stemTotal++;
    if (index === this.stemLo.length) this.growStems();
    if (this.stemTextUsed + length > this.stemText.byteLength) {
      const bigger = new Uint8Array(Math.max(2 * this.stemText.byteLength, this.stemTextUsed + length));
      bigger.set(this.stemText.subarray(0, this.stemTextUsed));
      this.stemText = bigger;
    }
    const arena = this.stemText;
    const at = this.stemTextUsed;
    for (let k = 0; k < length; k++) arena[at + k] = text[textStart + k];
    this.stemTextUsed += length;
    this.stemLo[index] = lo;
    this.stemHi[index] = hi;
    this.stemCrash[index] = crashid;
    this.stemStart[index] = at;
    this.stemLength[index] = length;
    this.stemNext[index] = -1;
    if (last >= 0) this.stemNext[last] = index;
    else {
      this.slots[slot] = index + 1;
      if (2 * this.stemTotal > this.slots.length) this.rehash();
    }
    return index;
  }

  private growStems(): void {
    this.stemLo = grow32(this.stemLo);
    this.stemHi = grow32(this.stemHi);
    this.stemCrash = grow32(this.stemCrash);
    this.stemStart = grow32(this.stemStart);
    this.stemLength = grow32(this.stemLength);
    const next = new Int32Array(this.stemNext.length * 2);
    next.set(this.stemNext);
    this.stemNext = next;
  }

  /** Doubles the slot table, re-inserting each chain head (the first stem with its low half). */
  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (const s of this.slots) {
      if (s === 0) continue;
      const lo = this.stemLo[s - 1];
      let slot = (lo ^ (lo >>> 15)) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = s;
    }
    this.slots = slots;
  }

  private extId(block: Uint8Array, dot: number, end: number, origin?: MemberOrigin): number {
    const start = dot < 0 ? end : dot + 1;
    const length = end - start;
    for (const entry of this.extCache) {
      if (entry.bytes.byteLength === length && sameBytes(block, start, entry.bytes, length)) return entry.id;
    }
    const raw = block.subarray(start, end);
    const ext = dot < 0 ? '' : decoder.decode(raw).toLowerCase();
    let id = this.extIds.get(ext);
    if (id === undefined) {
      if (ext.includes('\n')) {
        throw new FormatError(
          'InvalidValue',
          `extension ${JSON.stringify(ext)} contains "\\n", which the index cannot store`,
          {
            ...origin,
            format: FORMAT,
          },
        );
      }
      id = this.extensions.length;
      if (id >= MAX_EXTENSIONS) {
        throw new FormatError(
          'UnsupportedFeature',
          `more than ${MAX_EXTENSIONS} distinct extensions (extid is 16 bits)`,
          {
            ...origin,
            format: FORMAT,
          },
        );
      }
      this.extIds.set(ext, id);
      this.extensions.push(ext);
    }
    if (this.extCache.length < 32) this.extCache.push({ bytes: raw.slice(), id });
    return id;
  }

  /** The index bytes. */
  finish(): Uint8Array {
    const ext = textBlock(this.extensions, 'extension');
    const crash = textBlock(this.crashStems, 'crash stem');
    return assemble(
      ext,
      crash,
      this.extensions.length,
      this.crashStems.length,
      { bytes: this.rows, count: this.count },
      this.stemTotal,
      this.runs,
    );
  }
}

function sameBytes(a: Uint8Array, aStart: number, b: Uint8Array, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[aStart + i] !== b[i]) return false;
  return true;
}

function grow32(array: Uint32Array): Uint32Array {
  const bigger = new Uint32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

function sameBytesAt(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}
