import { readU64 } from '@binscope/core/binary';
import type { XXHashAPI } from 'xxhash-wasm';
import { splitName } from './tar.js';
import { hashBytes, loadHasher } from './hash.js';
import { assemble, textBlock } from './encode.js';
import { markPartial, type PartialRange } from './partial-layout.js';
import { MAX_EXTENSIONS, MAX_SHARDS, putU64, R, ROW_SIZE, fail } from './layout.js';

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
export class TaridxBuilder {
  private rows: Uint8Array = new Uint8Array(ROW_SIZE * 1024);
  private view = new DataView(this.rows.buffer);
  private count = 0;
  private readonly extIds = new Map<string, number>();
  private readonly extensions: string[] = [];
  /** Recently seen raw extension bytes → id, checked before decoding anything. */
  private readonly extCache: Array<{ bytes: Uint8Array; id: number }> = [];
  /** Stem occurrences (a new one whenever the stem differs from the previous member's). */
  private occTotal = 0;
  private occLo: Uint32Array = new Uint32Array(1024);
  private occHi: Uint32Array = new Uint32Array(1024);
  /** First row of each occurrence; its rows run to the next occurrence's first row. */
  private occRow: Uint32Array = new Uint32Array(1024);
  private occTextStart: Uint32Array = new Uint32Array(1024);
  private occTextLength: Uint32Array = new Uint32Array(1024);
  /** Stem text (UTF-8, after U+FFFD replacement) of every occurrence, back to back. */
  private stemText: Uint8Array = new Uint8Array(16 * 1024);
  private stemTextUsed = 0;
  /** File names by fid, for errors found in `finish`. */
  private readonly files: string[] = [];
  private readonly prevStem = new Uint8Array(100);
  private prevStemLength = -1;

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
      throw fail(
        'UnsupportedFeature',
        `fid ${fid}: a .taridx addresses at most ${MAX_SHARDS} shards`,
        undefined,
      );
    }
    if (origin?.file !== undefined && this.files[fid] === undefined) this.files[fid] = origin.file;
    const { stemStart, dot } = splitName(block, start, end);
    const stemEnd = dot < 0 ? end : dot;
    const stemLength = stemEnd - stemStart;
    if (
      this.count === 0 ||
      stemLength !== this.prevStemLength ||
      !sameBytes(block, stemStart, this.prevStem, stemLength)
    ) {
      this.addOccurrence(block, stemStart, stemEnd);
      if (stemLength <= this.prevStem.byteLength) {
        const prev = this.prevStem;
        for (let k = 0; k < stemLength; k++) prev[k] = block[stemStart + k];
        this.prevStemLength = stemLength;
      } else {
        this.prevStemLength = -1;
      }
    }
    const extid = this.extId(block, dot, end, origin);

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
    // Crash ids are settled and keyhashes written in finish(); almost every row keeps crash id 0.
    view.setUint32(at + R.crashid, 0, true);
    this.count++;
  }

  /** Records a stem occurrence starting at the next row: its text (hashed in finish). */
  private addOccurrence(block: Uint8Array, start: number, end: number): void {
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
    const length = textEnd - textStart;
    const index = this.occTotal++;
    if (index === this.occLo.length) {
      this.occLo = grow32(this.occLo);
      this.occHi = grow32(this.occHi);
      this.occRow = grow32(this.occRow);
      this.occTextStart = grow32(this.occTextStart);
      this.occTextLength = grow32(this.occTextLength);
    }
    if (this.stemTextUsed + length > this.stemText.byteLength) {
      const bigger = new Uint8Array(Math.max(2 * this.stemText.byteLength, this.stemTextUsed + length));
      bigger.set(this.stemText.subarray(0, this.stemTextUsed));
      this.stemText = bigger;
    }
    const arena = this.stemText;
    const at = this.stemTextUsed;
    for (let k = 0; k < length; k++) arena[at + k] = text[textStart + k];
    this.stemTextUsed += length;
    this.occRow[index] = this.count;
    this.occTextStart[index] = at;
    this.occTextLength[index] = length;
  }

  /**
   * Each stem's hash, written into its rows' keyhash: in one pass at the end, not between the
   * header reads, whose cost a call per new stem raised (bench/NOTES.md, 2026-11-27).
   */
  private hashStems(): void {
    const { hasher, stemText, occTextStart, occTextLength, occRow, occLo, occHi, view } = this;
    for (let k = 0; k < this.occTotal; k++) {
      const hash = hashBytes(hasher, stemText, occTextStart[k], occTextStart[k] + occTextLength[k]);
      const lo = hash[0];
      const hi = hash[1];
      occLo[k] = lo;
      occHi[k] = hi;
      const end = k + 1 < this.occTotal ? occRow[k + 1] : this.count;
      for (let row = occRow[k]; row < end; row++) {
        view.setUint32(row * ROW_SIZE + R.keyhash, lo, true);
        view.setUint32(row * ROW_SIZE + R.keyhash + 4, hi, true);
      }
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
        const fid = this.view.getUint16(row * ROW_SIZE + R.fid, true);
        throw fail(
          everyStem ? 'UnsupportedFeature' : 'InvalidValue',
          everyStem
            ? `stem ${JSON.stringify(stem)} contains "\\n", which a partial index cannot list; index the fold in one pass`
            : `stem ${JSON.stringify(stem)} needs a crash-table entry but contains "\\n"`,
          readU64(this.view, row * ROW_SIZE + R.offset),
          this.files[fid],
        );
      }
      crashStems.push(stem);
      crashOf[k] = crashStems.length;
    }
    return { same, crashOf, crashStems, stems };
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
        throw fail(
          'InvalidValue',
          `extension ${JSON.stringify(ext)} contains "\\n", which the index cannot store`,
          origin?.offset,
          origin?.file,
        );
      }
      id = this.extensions.length;
      if (id >= MAX_EXTENSIONS) {
        throw fail(
          'UnsupportedFeature',
          `more than ${MAX_EXTENSIONS} distinct extensions (extid is 16 bits)`,
          origin?.offset,
          origin?.file,
        );
      }
      this.extIds.set(ext, id);
      this.extensions.push(ext);
    }
    if (this.extCache.length < 32) this.extCache.push({ bytes: raw.slice(), id });
    return id;
  }

  /**
   * The index bytes. With `partial` (this builder saw shards first..last of a fold of
   * `total`), a partial index for mergeIndexes instead (see partial.ts): every stem is listed
   * in the crash table, so a merge can tell a shared stem from a colliding one.
   */
  finish(partial?: PartialRange): Uint8Array {
    this.hashStems();
    const { same, crashOf, crashStems, stems } = this.settleStems(partial !== undefined);
    const view = this.view;
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
      if (crashid === 0) continue;
      const end = k + 1 < this.occTotal ? this.occRow[k + 1] : this.count;
      for (let row = this.occRow[k]; row < end; row++)
        view.setUint32(row * ROW_SIZE + R.crashid, crashid, true);
    }
    const ext = textBlock(this.extensions, 'extension');
    const crash = textBlock(crashStems, 'crash stem');
    const out = assemble(
      ext,
      crash,
      this.extensions.length,
      crashStems.length,
      { bytes: this.rows, count: this.count },
      stems,
      runs,
    );
    if (partial) markPartial(out, partial);
    return out;
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
