/**
 * Dictionary encoding of a leaf's values, decided as hyparquet-writer decides it: a sample of
 * up to 1000 values spread over the column rules out columns whose values are nearly all
 * distinct (over 90% of the sampled bytes), and a dictionary is kept only when it and its
 * bit-packed indexes at most halve the PLAIN bytes. Values are told apart by their bytes (a
 * float's bits, so -0 and 0 stay two values), through an open-addressing hash table of typed
 * arrays rather than a Map of boxed values.
 */

export interface Dictionary {
  /** Distinct values. */
  readonly size: number;
  /** The dictionary page's values, PLAIN. */
  readonly plain: Uint8Array;
  /** Each value's entry, in value order. */
  readonly indexes: Int32Array;
  /** Each entry's first value. */
  readonly firsts: Int32Array;
}

/** The values as the dictionary sees them: `words` per value of a fixed-width type, or PLAIN byte arrays. */
export type DictionaryValues =
  | { readonly kind: 'fixed'; readonly words: Int32Array; readonly per: 1 | 2; readonly count: number }
  | {
      readonly kind: 'bytes';
      readonly bytes: Uint8Array;
      readonly offsets: Uint32Array;
      readonly count: number;
    };

const SAMPLE = 1000;
const SAMPLE_REJECTION = 0.9;
/** Entries past which indexes would pass 24 bits (the hybrid encoder's limit): plain instead. */
const MAX_ENTRIES = 1 << 24;

/** Open-addressing table from a value's hash to its entry; compares values through `same`. */
class Entries {
  private slots = new Int32Array(1024);
  /** The value index that made each entry. */
  first = new Int32Array(256);
  size = 0;

  constructor(
    private readonly hash: (i: number) => number,
    private readonly same: (a: number, b: number) => boolean,
  ) {}

  /** The entry of value `i`, or -1 when it is new (then it is added). */
  find(i: number): number {
    const mask = this.slots.length - 1;
    for (let at = this.hash(i) & mask; ; at = (at + 1) & mask) {
      const entry = this.slots[at] - 1;
      if (entry < 0) {
        this.add(i, at);
        return -1;
      }
      if (this.same(this.first[entry], i)) return entry;
    }
  }

  private add(i: number, at: number): void {
    if (this.size === this.first.length) {
      const first = new Int32Array(this.size * 2);
      first.set(this.first);
      this.first = first;
    }
    this.first[this.size++] = i;
    this.slots[at] = this.size;
    if (this.size * 2 > this.slots.length) this.rehash();
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    const mask = this.slots.length - 1;
    for (let e = 0; e < this.size; e++) {
      let at = this.hash(this.first[e]) & mask;
      while (this.slots[at] !== 0) at = (at + 1) & mask;
      this.slots[at] = e + 1;
    }
  }
}

/** MurmurHash3's finalizer: every input bit reaches the low bits the table uses. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Entries of 32-bit values: Entries with the hashing (Fibonacci hashing, the product's high
 * bits) and comparing written out, each slot keeping its value beside its entry, and the
 * previous value's entry at hand for runs.
 */
class Words32 {
  private keys = new Int32Array(1024);
  private slots = new Int32Array(1024);
  private shift = 22;
  private lastWord = 0;
  private lastEntry = -1;
  first = new Int32Array(256);
  size = 0;

  constructor(private readonly words: Int32Array) {}

  find(i: number): number {
    const word = this.words[i];
    if (word === this.lastWord && this.lastEntry >= 0) return this.lastEntry;
    const mask = this.slots.length - 1;
    for (let at = Math.imul(word, 0x9e3779b1) >>> this.shift; ; at = (at + 1) & mask) {
      const entry = this.slots[at] - 1;
      if (entry < 0) {
        this.add(i, word, at);
        return -1;
      }
      if (this.keys[at] === word) {
        this.lastWord = word;
        this.lastEntry = entry;
        return entry;
      }
    }
  }

  private add(i: number, word: number, at: number): void {
    if (this.size === this.first.length) {
      const first = new Int32Array(this.size * 2);
      first.set(this.first);
      this.first = first;
    }
    this.first[this.size++] = i;
    this.slots[at] = this.size;
    this.keys[at] = word;
    this.lastWord = word;
    this.lastEntry = this.size - 1;
    if (this.size * 2 > this.slots.length) this.grow();
  }

  private grow(): void {
    const size = this.slots.length * 2;
    this.slots = new Int32Array(size);
    this.keys = new Int32Array(size);
    this.shift--;
    for (let e = 0; e < this.size; e++) {
      const word = this.words[this.first[e]];
      let at = Math.imul(word, 0x9e3779b1) >>> this.shift;
      while (this.slots[at] !== 0) at = (at + 1) & (size - 1);
      this.slots[at] = e + 1;
      this.keys[at] = word;
    }
  }
}

function fixedOps(words: Int32Array, per: 1 | 2) {
  if (per === 1)
    return {
      hash: (i: number) => mix(words[i]),
      same: (a: number, b: number) => words[a] === words[b],
      size: () => 4,
    };
  return {
    hash: (i: number) => Math.imul(words[2 * i] ^ Math.imul(words[2 * i + 1], 0x85ebca6b), 0x9e3779b1) >>> 7,
    same: (a: number, b: number) => words[2 * a] === words[2 * b] && words[2 * a + 1] === words[2 * b + 1],
    size: () => 8,
  };
}

function bytesOps(bytes: Uint8Array, offsets: Uint32Array) {
  return {
    hash: (i: number) => {
      let h = 0x811c9dc5;
      for (let at = offsets[i], end = offsets[i + 1]; at < end; at++)
        h = Math.imul(h ^ bytes[at], 0x01000193);
      return mix(h);
    },
    same: (a: number, b: number) => {
      const length = offsets[a + 1] - offsets[a];
      if (offsets[b + 1] - offsets[b] !== length) return false;
      for (let x = offsets[a], y = offsets[b], end = offsets[a + 1]; x < end; x++, y++)
        if (bytes[x] !== bytes[y]) return false;
      return true;
    },
    /** PLAIN bytes of a value, its 4-byte length included. */
    size: (i: number) => offsets[i + 1] - offsets[i] + 4,
  };
}

/** The dictionary of `values`, or undefined where PLAIN is as good (see the module's comment). */
export function buildDictionary(values: DictionaryValues): Dictionary | undefined {
  const count = values.count;
  if (count === 0) return undefined;
  const ops =
    values.kind === 'fixed' ? fixedOps(values.words, values.per) : bytesOps(values.bytes, values.offsets);
  // PLAIN bytes of the whole column (a byte array's length prefix counted, as hyparquet-writer does).
  const plainBytes = values.kind === 'fixed' ? count * 4 * values.per : values.offsets[count] + 4 * count;

  const sample = new Entries(ops.hash, ops.same);
  const samples = Math.min(count, SAMPLE);
  let sampleDistinct = 0;
  let sampleTotal = 0;
  for (let s = 0; s < samples; s++) {
    const i = samples === 1 ? 0 : Math.floor((s * (count - 1)) / (samples - 1));
    const size = ops.size(i);
    if (sample.find(i) < 0) sampleDistinct += size;
    sampleTotal += size;
  }
  if (sampleDistinct / sampleTotal > SAMPLE_REJECTION) return undefined;

  const entries =
    values.kind === 'fixed' && values.per === 1 ? new Words32(values.words) : new Entries(ops.hash, ops.same);
  const indexes = new Int32Array(count);
  let dictionaryBytes = 0;
  for (let i = 0; i < count; i++) {
    const entry = entries.find(i);
    if (entry >= 0) indexes[i] = entry;
    else {
      indexes[i] = entries.size - 1;
      dictionaryBytes += ops.size(i);
      // The dictionary alone past half the PLAIN bytes: it can only lose.
      if (2 * dictionaryBytes > plainBytes || entries.size > MAX_ENTRIES) return undefined;
    }
  }
  const bitWidth = Math.ceil(Math.log2(entries.size));
  const indexBytes = Math.ceil((count * bitWidth) / 8);
  if (2 * (dictionaryBytes + indexBytes) > plainBytes) return undefined;
  const firsts = entries.first.subarray(0, entries.size);
  return { size: entries.size, plain: dictionaryPlain(values, entries, dictionaryBytes), indexes, firsts };
}

function dictionaryPlain(
  values: DictionaryValues,
  entries: { size: number; first: Int32Array },
  bytes: number,
): Uint8Array {
  const out = new Uint8Array(bytes);
  if (values.kind === 'fixed') {
    const words = new Int32Array(out.buffer);
    for (let e = 0; e < entries.size; e++)
      for (let w = 0; w < values.per; w++)
        words[e * values.per + w] = values.words[entries.first[e] * values.per + w];
    return out;
  }
  let at = 0;
  for (let e = 0; e < entries.size; e++) {
    const i = entries.first[e];
    at = plainByteArray(out, at, values.bytes, values.offsets[i], values.offsets[i + 1]);
  }
  return out;
}

/** Appends bytes [from, to) as a PLAIN BYTE_ARRAY value (its 4-byte length first) at `at`. */
export function plainByteArray(
  out: Uint8Array,
  at: number,
  bytes: Uint8Array,
  from: number,
  to: number,
): number {
  const length = to - from;
  out[at] = length;
  out[at + 1] = length >>> 8;
  out[at + 2] = length >>> 16;
  out[at + 3] = length >>> 24;
  at += 4;
  if (length < 64) for (let k = from; k < to; k++) out[at++] = bytes[k];
  else {
    out.set(bytes.subarray(from, to), at);
    at += length;
  }
  return at;
}
