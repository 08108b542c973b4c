import type { XXHashAPI } from 'xxhash-wasm';
import { NAME_NEW_SLOT, NAME_SAME, NAME_UNCACHED } from './header-wasm.js';
import { scanName, splitName } from './tar.js';
import type { HeaderSink } from './tar-walk.js';
import { hashBytes, isXxh64, loadHasher } from './hash.js';
import { hashStemText } from './stem-hash.js';
import { headBytes, textBlock } from './encode.js';
import { markPartial, type PartialRange } from './partial-layout.js';
import { MAX_SHARDS, putU64, R, ROW_SIZE, fail } from './layout.js';
import { ExtensionTable } from './extensions.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // replacement mode, as upstream's decode('utf-8', 'replace')

/** Where a member came from, for error messages. */
export interface MemberOrigin {
  file?: string;
  offset?: number;
}

/**
 * Builds an index from members in shard order, assigning stems, extensions, keyhashes and
 * crash ids exactly as upstream does (T2, T3, T5). The indexer feeds it raw tar header
 * blocks; `add` takes a name for other listings.
 *
 * While members arrive everything is appended in order: the row, and for each change of
 * stem an "occurrence" (hash halves, first row, stem bytes). Which occurrences share a stem,
 * and which stems need crash ids, is settled once in `finish` by partitioning occurrences by
 * hash into cache-sized buckets. A hash-table probe per new stem during the walk costs
 * random memory accesses that, at a 512-byte read per header, slow the walk down by a third.
 */
export class TaridxBuilder implements HeaderSink {
  /**
   * The rows as they arrive, a column each: fid | extid << 16, offset, size. The 32-byte
   * records are written once, into the index itself, in finish(): a growing record table
   * (fresh zeroed memory, copied on each doubling) cost more during the walk than the records.
   */
  private rowTag = new Uint32Array(1024);
  private rowOffset = new Float64Array(1024);
  private rowSize = new Float64Array(1024);
  private count = 0;
  private readonly extensions = new ExtensionTable();
  /** Stem occurrences (a new one whenever the stem differs from the previous member's). */
  private occTotal = 0;
  /** Each occurrence's hash halves: filled in finish(). */
  private occLo = new Uint32Array(0);
  private occHi = new Uint32Array(0);
  /** First row of each occurrence; its rows run to the next occurrence's first row. */
  private occRow: Uint32Array = new Uint32Array(1024);
  private occTextStart: Uint32Array = new Uint32Array(1024);
  private occTextLength: Uint32Array = new Uint32Array(1024);
  /** Stem text (UTF-8, after U+FFFD replacement) of every occurrence, back to back. */
  private stemText: Uint8Array = new Uint8Array(16 * 1024);
  private stemTextUsed = 0;
  /** File names by fid, for errors. */
  private readonly files: string[] = [];
  private readonly prevStem = new Uint8Array(100);
  private prevStemLength = -1;
  /** The shard addHeader's headers belong to (beginShard). */
  private fid = 0;
  /** Extension ids by the slots of the walk's name scan (NameCode). */
  private readonly slotExt = new Int32Array(64);

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
    checkFid(fid);
    if (origin?.file !== undefined && this.files[fid] === undefined) this.files[fid] = origin.file;
    const { stemStart, dot } = splitName(block, start, end);
    this.addRow(fid, offset, size, block, stemStart, dot, end, origin?.offset, origin?.file);
  }

  /** The shard whose headers addHeader adds next: its fid and name (for errors). */
  beginShard(fid: number, file: string): void {
    checkFid(fid);
    this.fid = fid;
    if (this.files[fid] === undefined) this.files[fid] = file;
  }

  /**
   * Adds the row for the tar header `block[at..at + 512)` of the shard of beginShard (the
   * indexer's walk calls this once per member). `name`, when the walk has it, is the name
   * field already scanned by header-wasm.ts (a NameCode): then what is left here is a few bit
   * operations, a stem comparison when the stem may be new, and the row.
   */
  addHeader(block: Uint8Array, at: number, offset: number, size: number, name = -1): void {
    const fid = this.fid;
    if (name < 0) {
      const { stemStart, dot, end } = scanName(block, at);
      this.addRow(fid, offset, size, block, stemStart, dot, end, offset, this.files[fid]);
      return;
    }
    const end = at + (name & 0x7f);
    const stemStart = at + ((name >>> 7) & 0x7f);
    const dotField = (name >>> 14) & 0x7f;
    const dot = dotField === 0 ? -1 : at + dotField - 1;
    if ((name & NAME_SAME) === 0) {
      // Not the stem of the walk's previous header (or its first): compared with the last row's.
      const stemEnd = dot < 0 ? end : dot;
      const stemLength = stemEnd - stemStart;
      if (stemLength !== this.prevStemLength || !sameBytes(block, stemStart, this.prevStem, stemLength)) {
        this.newStem(block, stemStart, stemEnd);
      }
    }
    let extid: number;
    if ((name & NAME_UNCACHED) !== 0) extid = this.extIdOf(block, dot, end, offset);
    else {
      // The walk's slot for this extension: mapped to its id the first time the walk meets it.
      const slot = (name >>> 22) & 0x3f;
      if ((name & NAME_NEW_SLOT) !== 0) this.slotExt[slot] = this.extIdOf(block, dot, end, offset);
      extid = this.slotExt[slot];
    }
    this.appendRow(fid, extid, offset, size);
  }

  /** The id of the extension after `dot` (-1: none) up to `end` of a header at `offset`. */
  private extIdOf(block: Uint8Array, dot: number, end: number, offset: number): number {
    const id = this.extensions.cached(block, dot < 0 ? end : dot + 1, end);
    return id >= 0 ? id : this.extensions.idOf(block, dot, end, offset, this.files[this.fid]);
  }

  /**
   * Adds the row of a member whose name is `block[..end)`, its stem starting at `stemStart`
   * and its extension after `dot` (-1: none); `offset` and `file` locate errors.
   */
  private addRow(
    fid: number,
    offset: number,
    size: number,
    block: Uint8Array,
    stemStart: number,
    dot: number,
    end: number,
    errorOffset: number | undefined,
    errorFile: string | undefined,
  ): void {
    const stemEnd = dot < 0 ? end : dot;
    const stemLength = stemEnd - stemStart;
    if (stemLength !== this.prevStemLength || !sameBytes(block, stemStart, this.prevStem, stemLength)) {
      this.newStem(block, stemStart, stemEnd);
    }
    const extStart = dot < 0 ? end : dot + 1;
    let extid = this.extensions.cached(block, extStart, end);
    if (extid < 0) extid = this.extensions.idOf(block, dot, end, errorOffset, errorFile);
    this.appendRow(fid, extid, offset, size);
  }

  private appendRow(fid: number, extid: number, offset: number, size: number): void {
    const row = this.count;
    if (row === this.rowTag.length) this.growRows();
    this.rowTag[row] = fid | (extid << 16);
    this.rowOffset[row] = offset;
    this.rowSize[row] = size;
    this.count = row + 1;
  }

  private growRows(): void {
    const tag = new Uint32Array(this.rowTag.length * 2);
    tag.set(this.rowTag);
    this.rowTag = tag;
    const offset = new Float64Array(this.rowOffset.length * 2);
    offset.set(this.rowOffset);
    this.rowOffset = offset;
    const size = new Float64Array(this.rowSize.length * 2);
    size.set(this.rowSize);
    this.rowSize = size;
  }

  /**
   * A member whose stem differs from the previous member's: a new occurrence, and the stem
   * kept for the next comparison (stems longer than a tar name field are not: -1 never matches).
   */
  private newStem(block: Uint8Array, start: number, end: number): void {
    this.addOccurrence(block, start, end);
    const length = end - start;
    if (length <= this.prevStem.length) {
      const prev = this.prevStem;
      for (let k = 0; k < length; k++) prev[k] = block[start + k];
      this.prevStemLength = length;
    } else {
      this.prevStemLength = -1;
    }
  }

  /** Records a stem occurrence starting at the next row: its text (hashed in finish). */
  private addOccurrence(block: Uint8Array, start: number, end: number): void {
    const index = this.occTotal++;
    if (index === this.occRow.length) {
      this.occRow = grow32(this.occRow);
      this.occTextStart = grow32(this.occTextStart);
      this.occTextLength = grow32(this.occTextLength);
    }
    const at = this.stemTextUsed;
    let length = end - start;
    let arena = this.reserveStemText(length);
    let high = 0;
    for (let k = 0; k < length; k++) {
      const b = block[start + k];
      arena[at + k] = b;
      high |= b;
    }
    if (high >= 0x80) {
      // Non-ASCII names hash the re-encoded text, so U+FFFD replacements hash as EF BF BD, and
      // two byte strings that decode alike are one stem.
      const text = encoder.encode(decoder.decode(block.subarray(start, end)));
      length = text.byteLength;
      arena = this.reserveStemText(length);
      arena.set(text, at);
    }
    this.stemTextUsed = at + length;
    this.occRow[index] = this.count;
    this.occTextStart[index] = at;
    this.occTextLength[index] = length;
  }

  /** The stem arena, grown to hold `length` more bytes. */
  private reserveStemText(length: number): Uint8Array {
    if (this.stemTextUsed + length > this.stemText.length) {
      const bigger = new Uint8Array(Math.max(2 * this.stemText.length, this.stemTextUsed + length));
      bigger.set(this.stemText.subarray(0, this.stemTextUsed));
      this.stemText = bigger;
    }
    return this.stemText;
  }

  /**
   * Each occurrence's stem hash: in one pass at the end, not between the header reads, whose
   * cost a call per new stem raised (bench/NOTES.md, 2026-11-27).
   */
  private hashStems(): void {
    const n = this.occTotal;
    if (this.occLo.length !== n) {
      this.occLo = new Uint32Array(n);
      this.occHi = new Uint32Array(n);
    }
    const { hasher, stemText, occTextStart, occTextLength, occLo, occHi } = this;
    // XXH64 of every stem in one WebAssembly call (stem-hash.ts), unless a test gave a hasher of its own.
    if (
      isXxh64(hasher) &&
      hashStemText(stemText, this.stemTextUsed, occTextStart, occTextLength, n, occLo, occHi)
    ) {
      return;
    }
    for (let k = 0; k < n; k++) {
      const hash = hashBytes(hasher, stemText, occTextStart[k], occTextStart[k] + occTextLength[k]);
      occLo[k] = hash[0];
      occHi[k] = hash[1];
    }
  }

  /**
   * For each occurrence, the first occurrence with the same stem text (itself when new), and
   * for each such first occurrence, its crash id: as upstream, the first stem with a hash is
   * canonical (crash id 0) and every other stem with that hash gets the next crash id, in
   * order of first appearance.
   */
  private settleStems(everyStem: boolean): {
    same: Int32Array;
    crashOf: Uint32Array;
    crashStems: string[];
    stems: number;
  } {
    const n = this.occTotal;
    const { occLo, occHi, occTextStart, occTextLength, stemText } = this;
    // Partition by the hash's top bits (stable, so each bucket lists occurrences in order).
    let bits = 0;
    while (bits < 16 && n >> bits > 256) bits++;
    const buckets = 1 << bits;
    const shift = 32 - bits;
    const bucketOf = (lo: number) => (bits === 0 ? 0 : lo >>> shift);
    const starts = new Uint32Array(buckets + 1);
    for (let k = 0; k < n; k++) starts[bucketOf(occLo[k]) + 1]++;
    for (let b = 0; b < buckets; b++) starts[b + 1] += starts[b];
    const fill = starts.slice(0, buckets);
    const order = new Uint32Array(n);
    const lo = new Uint32Array(n);
    const hi = new Uint32Array(n);
    for (let k = 0; k < n; k++) {
      const at = fill[bucketOf(occLo[k])]++;
      order[at] = k;
      lo[at] = occLo[k];
      hi[at] = occHi[k];
    }

    const same = new Int32Array(n);
    /** Per distinct stem (by its first occurrence): the next distinct stem with the same hash. */
    const nextStem = new Int32Array(n).fill(-1);
    const needsCrash: number[] = [];
    let largest = 0;
    for (let b = 0; b < buckets; b++) largest = Math.max(largest, starts[b + 1] - starts[b]);
    let capacity = 16;
    while (capacity < largest * 2) capacity *= 2;
    const table = new Int32Array(capacity).fill(-1);
    let stems = 0;
    for (let b = 0; b < buckets; b++) {
      const from = starts[b];
      const to = starts[b + 1];
      let size = 16;
      while (size < (to - from) * 2) size *= 2;
      const mask = size - 1;
      for (let at = from; at < to; at++) {
        const k = order[at];
        const l = lo[at];
        const h = hi[at];
        let slot = (l ^ Math.imul(h, 0x9e3779b1)) & mask;
        let found = -1;
        for (;;) {
          const e = table[slot];
          if (e < 0) break;
          if (lo[e] === l && hi[e] === h) {
            found = e;
            break;
          }
          slot = (slot + 1) & mask;
        }
        if (found < 0) {
          table[slot] = at;
          same[k] = k;
          stems++;
          continue;
        }
        // The same hash again: the same stem (usual), or a different stem that collides.
        let stem = order[found];
        let last = stem;
        same[k] = -1;
        for (; stem >= 0; stem = nextStem[stem]) {
          last = stem;
          if (
            occTextLength[stem] === occTextLength[k] &&
            sameBytesAt(stemText, occTextStart[stem], stemText, occTextStart[k], occTextLength[k])
          ) {
            same[k] = stem;
            break;
          }
        }
        if (same[k] < 0) {
          same[k] = k;
          nextStem[last] = k;
          needsCrash.push(k);
          stems++;
        }
      }
      for (let at = from; at < to; at++) {
        // Clear only what this bucket used: the table is sized for the largest bucket.
        let slot = (lo[at] ^ Math.imul(hi[at], 0x9e3779b1)) & mask;
        while (table[slot] >= 0) {
          table[slot] = -1;
          slot = (slot + 1) & mask;
        }
      }
    }
    // A partial index lists every stem (a merge needs their text); a whole one only collisions.
    let listed = needsCrash;
    if (everyStem) {
      listed = [];
      for (let k = 0; k < n; k++) if (same[k] === k) listed.push(k);
    }
    listed.sort((a, b) => a - b);
    const crashOf = new Uint32Array(n);
    const crashStems: string[] = [];
    for (const k of listed) {
      const stem = decoder.decode(stemText.subarray(occTextStart[k], occTextStart[k] + occTextLength[k]));
      if (stem.includes('\n')) {
        const row = this.occRow[k];
        const fid = this.rowTag[row] & 0xffff;
        throw fail(
          everyStem ? 'UnsupportedFeature' : 'InvalidValue',
          everyStem
            ? `stem ${JSON.stringify(stem)} contains "\\n", which a partial index cannot list; index the fold in one pass`
            : `stem ${JSON.stringify(stem)} needs a crash-table entry but contains "\\n"`,
          this.rowOffset[row],
          this.files[fid],
        );
      }
      crashStems.push(stem);
      crashOf[k] = crashStems.length;
    }
    return { same, crashOf, crashStems, stems };
  }

  /**
   * The index bytes. With `partial` (this builder saw shards first..last of a fold of
   * `total`), a partial index for mergeIndexes instead (see partial.ts): every stem is listed
   * in the crash table, so a merge can tell a shared stem from a colliding one.
   */
  finish(partial?: PartialRange): Uint8Array {
    this.hashStems();
    const { same, crashOf, crashStems, stems } = this.settleStems(partial !== undefined);
    let runs = 0;
    let prevLo = 0;
    let prevHi = 0;
    let prevCrash = -1;
    for (let k = 0; k < this.occTotal; k++) {
      const crashid = crashOf[same[k]];
      const lo = this.occLo[k];
      const hi = this.occHi[k];
      if (lo !== prevLo || hi !== prevHi || crashid !== prevCrash) runs++;
      prevLo = lo;
      prevHi = hi;
      prevCrash = crashid;
    }
    const ext = textBlock(this.extensions.names, 'extension');
    const crash = textBlock(crashStems, 'crash stem');
    const head = headBytes(
      ext,
      crash,
      this.extensions.names.length,
      crashStems.length,
      this.count,
      stems,
      runs === stems,
    );
    const out = new Uint8Array(head.byteLength + this.count * ROW_SIZE);
    out.set(head);
    this.writeRows(out, head.byteLength, same, crashOf);
    if (partial) markPartial(out, partial);
    return out;
  }

  /** The 32-byte records, from `at` in `out`: each occurrence's rows get its keyhash and crash id. */
  private writeRows(out: Uint8Array, at: number, same: Int32Array, crashOf: Uint32Array): void {
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    const { occRow, occLo, occHi, rowTag, rowOffset, rowSize } = this;
    for (let k = 0; k < this.occTotal; k++) {
      const crashid = crashOf[same[k]];
      const lo = occLo[k];
      const hi = occHi[k];
      const end = k + 1 < this.occTotal ? occRow[k + 1] : this.count;
      for (let row = occRow[k]; row < end; row++) {
        const record = at + row * ROW_SIZE;
        const tag = rowTag[row];
        view.setUint16(record + R.fid, tag & 0xffff, true);
        putU64(view, record + R.offset, rowOffset[row]);
        putU64(view, record + R.size, rowSize[row]);
        view.setUint16(record + R.extid, tag >>> 16, true);
        view.setUint32(record + R.crashid, crashid, true);
        view.setUint32(record + R.keyhash, lo, true);
        view.setUint32(record + R.keyhash + 4, hi, true);
      }
    }
  }
}

function checkFid(fid: number): void {
  if (fid < 0 || fid >= MAX_SHARDS || !Number.isInteger(fid)) {
    throw fail(
      'UnsupportedFeature',
      `fid ${fid}: a .taridx addresses at most ${MAX_SHARDS} shards`,
      undefined,
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
