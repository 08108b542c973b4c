import {
  type Awaitable,
  type ByteSource,
  formatErrors,
  type FormatReader,
  type Problem,
  type ReadExactOptions,
  type ReadOptions,
  readExact,
  type Schema,
} from '@binscope/core';
import { answersSynchronously, ReadAhead } from '@binscope/core/binary';
import { FORMAT_ID, type MldfField, type MldfHeader, type MldfLayout } from './layout.js';
import { matchAllocations, readAllocationEntries } from './alloc-match.js';
import {
  checkValue,
  COALESCE_GAP,
  describeValue,
  isCompact,
  type Located,
  locate,
  type ValueBounds,
  valueBounds,
} from './locate.js';
import type { MldfStructure } from './parse.js';
import { mldfSchema } from './records.js';
import { RowCache, type RowRef } from './row-cache.js';
import { decodeSample, WindowViews } from './sample-decode.js';
import type {
  AllocEntry,
  IterateOptions,
  MldfOpenOptions,
  MldfSample,
  MldfValue,
  SampleOptions,
  ValueInfo,
} from './values.js';

export { MldfLazyText } from './decode.js';

const DEFAULT_WINDOW = 4 << 20;
/**
 * Windows read ahead of the one being decoded: lazy decoding is light, so reads are what a pass
 * waits for; eager decoding is heavier and a second read would only compete for memory bandwidth.
 */
const READ_AHEAD_DEPTH = { eager: 1, lazy: 2 };

const MAX_COALESCED_READ = 8 << 20;
const DATA_BEARING = new Set(['BYTES', 'NDARRAY', 'JSON', 'IMAGE_RAW', 'TEXT_RAW']);
/** The read request of value bytes when the caller gave no signal (one object for every read). */
const DATA_READ: ReadExactOptions = { format: FORMAT_ID, what: 'data' };

/**
 * A lazy MLDF reader. `open` reads the header and field descriptors only; metadata rows
 * are read in pages on first use; each value is read from its own byte range, nearby
 * ranges coalesced into one read. Synchronous sources (memory, local files) answer at once
 * through the one read method, so hot loops pay no I/O scheduling.
 *
 * Values alias the buffers the source returned for them (core's sources return fresh
 * buffers), never a buffer this reader reuses, unless `reuse` asks for borrowed buffers.
 * `close()` closes the source only when the reader's opener handed it over (`openMldfFile`):
 * whoever opens a source closes it.
 */
export class MldfReader implements FormatReader {
  readonly format = FORMAT_ID;
  readonly numSamples: number;
  readonly rowSize: number;
  /** `sample`, then each field with its logical type (the records' schema). */
  readonly schema: Schema;
  private readonly byName = new Map<string, MldfField>();
  private readonly rows: RowCache;
  /** Whether the source answers synchronously (memory, local files): `reuse` and the shared Located need it. */
  private readonly sync: boolean;
  private readonly bounds: ValueBounds;
  /** Whether close() closes the source: only when the reader's opener handed it over. */
  private ownsSource = false;
  private readonly views = new WindowViews();
  /** The buffer `reuse` reads land in (grown on demand). */
  private scratch = new Uint8Array(0);
  private readonly slotScratch = new Float64Array(64);
  /** The Located a synchronous sample() fills (it decodes before anything else can run). */
  private readonly locScratch: Located = {
    index: 0,
    view: new DataView(new ArrayBuffer(0)),
    pos: 0,
    slots: this.slotScratch,
    lo: 0,
    hi: 0,
    total: 0,
    lazy: false,
  };
  /** The row a synchronous sample() looks up (used before the next lookup). */
  private readonly rowScratch: RowRef = { view: new DataView(new ArrayBuffer(0)), pos: 0 };
  /** The last view `readReused` made of a shorter target. */
  private reusedView: Uint8Array | undefined;
  /** The target `reusedView` is a view of. */
  private reusedOf: Uint8Array | undefined;
  /** The request of `reuse` reads: synchronous sources only, so one object serves every call. */
  private readonly reuseRead: ReadExactOptions & { into: Uint8Array } = {
    into: new Uint8Array(0),
    format: FORMAT_ID,
    what: 'data',
  };

  private constructor(
    readonly source: ByteSource,
    readonly header: MldfHeader,
    readonly fields: readonly MldfField[],
    readonly layout: MldfLayout,
    /** Non-fatal findings of open (newer minor version, non-canonical layout). */
    readonly warnings: readonly Problem[],
    options: MldfOpenOptions,
  ) {
    for (const f of fields) this.byName.set(f.name, f);
    this.numSamples = header.numSamples;
    this.rowSize = layout.rowSize;
    this.rows = new RowCache(source, header, layout.rowSize, options.metadataCacheBytes);
    this.sync = answersSynchronously(source);
    this.bounds = valueBounds(header, layout, formatErrors(FORMAT_ID, source.name));
    this.schema = mldfSchema(fields);
  }

  /** @internal A reader over a structure that parsed clean (open, and the deep checks, build one). */
  static fromStructure(
    source: ByteSource,
    parsed: MldfStructure,
    warnings: readonly Problem[],
    options: MldfOpenOptions = {},
  ): MldfReader {
    if (!parsed.readable || !parsed.header || !parsed.layout)
      throw new Error('MldfReader.fromStructure: the structure did not parse clean');
    return new MldfReader(source, parsed.header, parsed.fields, parsed.layout, warnings, options);
  }

  getField(name: string): MldfField {
    const f = this.byName.get(name);
    if (!f)
      throw new RangeError(`no field named '${name}' (fields: ${this.fields.map((x) => x.name).join(', ')})`);
    return f;
  }

  /**
   * One sample, reading only its metadata row and its values' bytes (one read when they are
   * adjacent). One code path for every source: a synchronous source (memory, local files) never
   * awaits, so the promise comes out settled.
   */
  sample(index: number, options: SampleOptions = {}): Promise<MldfSample> {
    try {
      options.signal?.throwIfAborted();
      const sel = this.selection(options.fields);
      // A synchronous source uses the row before anything else can ask for one: one object serves.
      const row = this.rows.rowOf(index, options, this.sync ? this.rowScratch : undefined);
      const out =
        row instanceof Promise
          ? row.then((r) => this.sampleAt(index, sel, r, options))
          : this.sampleAt(index, sel, row, options);
      return out instanceof Promise ? out : Promise.resolve(out);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A sample from its metadata row: one read of its value span, or one per value when they lie apart. */
  private sampleAt(
    index: number,
    sel: readonly MldfField[],
    row: RowRef,
    options: SampleOptions,
  ): Awaitable<MldfSample> {
    // A synchronous source decodes before anything else can run, so it shares one Located; a
    // source that reads asynchronously gets its own, as another call may run while it awaits.
    const lazy = options.decode === 'lazy';
    const shared = this.sync;
    const loc = shared
      ? locate(this.bounds, index, sel, row.view, row.pos, this.slotScratch, lazy, this.locScratch)
      : locate(this.bounds, index, sel, row.view, row.pos, undefined, lazy);
    if (loc.hi === 0) return this.decode(loc, sel, undefined, 0);
    const length = loc.hi - loc.lo;
    const compact = isCompact(loc);
    const read = !compact
      ? undefined
      : shared && options.reuse
        ? this.readReused(loc.lo, length, this.reusable(length))
        : this.readData(loc.lo, length, dataRead(options));
    if (read instanceof Uint8Array) return this.decode(loc, sel, read, loc.lo);
    return this.decodeLocated(shared ? { ...loc, slots: loc.slots.slice() } : loc, sel, options, read);
  }

  /** One value of one sample: reads its metadata struct and only that value's bytes. */
  async field(index: number, name: string, options: ReadOptions = {}): Promise<MldfValue | undefined> {
    const f = this.getField(name);
    return (await this.sample(index, { ...options, fields: [f.name] }))[f.name];
  }

  /**
   * Many samples, in the order asked. Their byte ranges are sorted and ranges closer than
   * 64 KiB are read together, so a shuffled batch costs a few large reads.
   */
  async samples(indices: readonly number[], options: SampleOptions = {}): Promise<MldfSample[]> {
    const sel = this.selection(options.fields);
    const located: Located[] = [];
    for (const index of indices) {
      const { view, pos } = await this.rows.rowOf(index, options);
      located.push(locate(this.bounds, index, sel, view, pos, undefined, options.decode === 'lazy'));
    }
    const out = new Array<MldfSample>(indices.length);
    const order = located.map((_, k) => k).sort((a, b) => located[a].lo - located[b].lo);
    let group: number[] = [];
    let groupLo = 0;
    let groupHi = 0;
    // With `reuse`, each group lands in its own part of one reused buffer.
    let reusedUsed = 0;
    let reused = options.reuse && this.sync ? this.reusable(0) : undefined;
    const flush = async () => {
      if (group.length === 0) return;
      let buf: Uint8Array;
      const length = groupHi - groupLo;
      if (reused) {
        if (reusedUsed + length > reused.byteLength) {
          // Groups already decoded keep the old buffer; the next call reuses the new one.
          reused = this.reusable(Math.max(2 * reused.byteLength, reusedUsed + length), true);
          reusedUsed = 0;
        }
        buf = await this.readReused(groupLo, length, reused.subarray(reusedUsed, reusedUsed + length));
        reusedUsed += length;
      } else buf = await readExact(this.source, groupLo, length, dataRead(options));
      for (const k of group) out[k] = this.decode(located[k], sel, buf, groupLo);
      group = [];
    };
    for (const k of order) {
      const loc = located[k];
      if (loc.hi === 0) {
        out[k] = this.decode(loc, sel, undefined, 0);
        continue;
      }
      if (!isCompact(loc)) {
        out[k] = await this.decodeLocated(loc, sel, options);
        continue;
      }
      if (
        group.length > 0 &&
        loc.lo - groupHi <= COALESCE_GAP &&
        Math.max(groupHi, loc.hi) - groupLo <= MAX_COALESCED_READ
      ) {
        group.push(k);
        groupHi = Math.max(groupHi, loc.hi);
      } else {
        await flush();
        group.push(k);
        groupLo = loc.lo;
        groupHi = loc.hi;
      }
    }
    await flush();
    return out;
  }

  /**
   * Samples in file order, in arrays of `batchSize`, reading the data region in large
   * sequential windows (4 MiB by default) instead of one read per value.
   */
  async *batches(options: IterateOptions = {}): AsyncGenerator<MldfSample[]> {
    const sel = this.selection(options.fields);
    const start = Math.max(0, options.start ?? 0);
    const end = Math.min(this.numSamples, options.end ?? this.numSamples);
    const reuse = options.reuse === true;
    const windowSize = Math.max(1, options.windowSize ?? DEFAULT_WINDOW);
    const batchSize = Math.max(1, options.batchSize ?? 256);
    const lazy = options.decode === 'lazy';
    // Each sample is decoded right after it is located, so one slots array serves them all.
    const slots = new Float64Array(sel.length * 2);
    // Reused for every sample; only the scattered-values path awaits with it, and it is not shared.
    const located: Located = {
      index: 0,
      view: new DataView(new ArrayBuffer(0)),
      pos: 0,
      slots,
      lo: 0,
      hi: 0,
      total: 0,
      lazy,
    };
    let window: Uint8Array | undefined;
    let pageView: DataView | undefined;
    let pageFirst = 0;
    let pageEnd = 0;
    let winLo = 0;
    let winHi = 0;
    let batch: MldfSample[] = [];
    // The next window is read while this one is decoded (local files on the thread pool, other
    // sources as they answer): a pass costs about the larger of reading and decoding, not their sum.
    const readAhead = new ReadAhead(this.source, {
      end: this.layout.dataEnd,
      chunk: windowSize,
      depth: lazy ? READ_AHEAD_DEPTH.lazy : READ_AHEAD_DEPTH.eager,
      recycle: reuse,
      format: FORMAT_ID,
    });
    try {
      for (let index = start; index < end; index++) {
        options.signal?.throwIfAborted();
        let view = pageView;
        let pos = (index - pageFirst) * this.rowSize;
        if (view === undefined || index >= pageEnd) {
          // A new metadata page: look it up once, then walk its rows without per-row lookups.
          const row = this.rows.rowOf(index, options);
          ({ view, pos } = row instanceof Promise ? await row : row);
          if (this.rowSize > 0) {
            pageView = view;
            pageFirst = index - pos / this.rowSize;
            pageEnd = Math.min(this.numSamples, pageFirst + this.rows.pageRows);
          }
        }
        const loc = locate(this.bounds, index, sel, view, pos, slots, lazy, located);
        let sample: MldfSample;
        if (loc.hi === 0) {
          sample = this.decode(loc, sel, undefined, 0);
        } else if (window && loc.lo >= winLo && loc.hi <= winHi) {
          sample = this.decode(loc, sel, window, winLo);
        } else if (!isCompact(loc) || loc.lo < winLo) {
          // Scattered or backwards values (not what M6 writers produce): read them one by one.
          sample = await this.decodeLocated(loc, sel, options);
        } else {
          // Borrowed windows: samples handed out so far alias the buffer the next read reuses.
          if (reuse && batch.length > 0) {
            yield batch;
            batch = [];
          }
          await readAhead.advance(loc.lo, loc.hi);
          // Not after the first window: a pass that stops inside it (head, a short range) reads
          // no more than that window; from the second on, the pass is evidently going on.
          if (winHi > 0) readAhead.prefetch();
          window = readAhead.bytes;
          winLo = readAhead.lo;
          winHi = readAhead.hi;
          sample = this.decode(loc, sel, window, winLo);
        }
        batch.push(sample);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      // A pass left early (break, error) must not leave a read filling memory behind it.
      await readAhead.settle();
      // Nor keep its last window alive through the view cache once it is over.
      this.views.forget();
    }
  }

  /** Samples one at a time in file order (see `batches` for the read pattern). */
  async *iterate(options: IterateOptions = {}): AsyncGenerator<MldfSample> {
    for await (const batch of this.batches(options)) yield* batch;
  }

  /**
   * Checks every value struct of one sample (reserved bytes, enums, range inside the data
   * region, size against dtype/shape or image geometry) without reading any value.
   */
  async checkSample(index: number, options: ReadOptions = {}): Promise<void> {
    const { view, pos } = await this.rows.rowOf(index, options);
    locate(this.bounds, index, this.fields, view, pos);
  }

  /** The location and metadata of one value, checked like a read (M5–M7) but without reading it. */
  async valueInfo(index: number, name: string, options: ReadOptions = {}): Promise<ValueInfo> {
    const f = this.getField(name);
    const { view, pos } = await this.rows.rowOf(index, options);
    return describeValue(this.bounds, view, pos, f, index);
  }

  /**
   * The allocation table (M7), streamed in 1 MiB pieces and checked as it goes: zero
   * padding, each entry non-empty and inside the data region, entries sorted by ptr and
   * not overlapping (unless `checkOrder` is false: checkAllocations orders its checks itself).
   */
  allocationEntries(options: ReadOptions = {}, checkOrder = true): AsyncGenerator<AllocEntry[]> {
    return readAllocationEntries(this.source, this.header, this.layout, options, checkOrder);
  }

  /**
   * Checks that the allocation table and the metadata agree (M7): one entry per non-empty
   * value, same ptr and size. Holds one (ptr, size) pair per value in memory.
   */
  async checkAllocations(options: ReadOptions = {}): Promise<void> {
    const sel = this.fields.filter((f) => DATA_BEARING.has(f.type));
    let ptrs = new Float64Array(1024);
    let sizes = new Float64Array(1024);
    let owners = new Float64Array(1024);
    let n = 0;
    const slot = new Float64Array(2);
    for (let index = 0; index < this.numSamples && sel.length > 0; index++) {
      const { view, pos } = await this.rows.rowOf(index, options);
      for (const f of sel) {
        checkValue(this.bounds, view, pos, f, index, slot, 0);
        if (slot[1] === 0) continue;
        if (n === ptrs.length) {
          ptrs = grow(ptrs);
          sizes = grow(sizes);
          owners = grow(owners);
        }
        ptrs[n] = slot[0];
        sizes[n] = slot[1];
        owners[n] = this.header.metadataPtr + index * this.rowSize + f.metadataOffset;
        n++;
      }
    }
    // M7: sizes against values first, entries against each other last (matchAllocations).
    await matchAllocations(
      { ptrs, sizes, owners, count: n },
      this.allocationEntries(options, false),
      this.header.allocTablePtr,
      this.source.name,
    );
  }

  /**
   * @internal Hands the source over to the reader, so `close()` closes it: for openers that
   * opened the source themselves (`openMldfFile`).
   */
  ownSource(): this {
    this.ownsSource = true;
    return this;
  }

  /** Drops the metadata cache; closes the source only if the reader owns it (`ownSource`). */
  async close(): Promise<void> {
    this.rows.clear();
    if (this.ownsSource) await this.source.close?.();
  }

  /** The whole reuse buffer, at least `length` bytes (`fresh`: a new one, leaving the old to its views). */
  private reusable(length: number, fresh = false): Uint8Array {
    if (fresh || length > this.scratch.byteLength)
      this.scratch = new Uint8Array(Math.max(length, 64 << 10, fresh ? 0 : 2 * this.scratch.byteLength));
    return this.scratch;
  }

  /**
   * Reads an exact range into `target`, a part of the reuse buffer. Only synchronous sources
   * reuse (a read in flight could not share the buffer), so the answer comes at once.
   */
  private readReused(offset: number, length: number, target: Uint8Array): Awaitable<Uint8Array> {
    let into = target;
    if (target.byteLength !== length) {
      // Same-sized samples in a row (the usual case) share one view of the reuse buffer.
      // Keyed by the target itself: typed arrays' `buffer` getter costs about as much as a view.
      const last = this.reusedView;
      if (last !== undefined && this.reusedOf === target && last.byteLength === length) into = last;
      else {
        into = target.subarray(0, length);
        this.reusedView = into;
        this.reusedOf = target;
      }
    }
    this.reuseRead.into = into;
    return this.readData(offset, length, this.reuseRead);
  }

  /**
   * readExact for a value range locate() has checked against the data region: when it also lies
   * inside the source, readExact's range check (and the error location it builds per call) is
   * redundant on the per-sample path, so the source is asked directly.
   */
  private readData(offset: number, length: number, request: ReadExactOptions): Awaitable<Uint8Array> {
    if (this.sync && length > 0 && offset + length <= this.source.size) {
      const got = this.source.read(offset, length, request);
      if (got instanceof Uint8Array && got.byteLength === length) return got;
      // Anything else (a short read: the file shrank): readExact reads again and reports it.
    }
    return readExact(this.source, offset, length, request);
  }

  private selection(names: readonly string[] | undefined): readonly MldfField[] {
    return names ? names.map((n) => this.getField(n)) : this.fields;
  }

  /** Reads what a located sample needs (one read when its values are adjacent) and decodes it. */
  private async decodeLocated(
    loc: Located,
    sel: readonly MldfField[],
    options: ReadOptions,
    /** The compact read already under way. */
    pending?: Promise<Uint8Array>,
  ): Promise<MldfSample> {
    if (loc.hi === 0) return this.decode(loc, sel, undefined, 0);
    if (isCompact(loc)) {
      const read = pending ?? readExact(this.source, loc.lo, loc.hi - loc.lo, dataRead(options));
      return this.decode(loc, sel, read instanceof Uint8Array ? read : await read, loc.lo);
    }
    const parts: Array<Uint8Array | undefined> = new Array(sel.length);
    for (let k = 0; k < sel.length; k++) {
      const size = loc.slots[k * 2 + 1];
      if (size > 0) parts[k] = await readExact(this.source, loc.slots[k * 2], size, dataRead(options));
    }
    return this.decode(loc, sel, undefined, 0, parts);
  }

  private decode(
    loc: Located,
    sel: readonly MldfField[],
    buf: Uint8Array | undefined,
    base: number,
    parts?: Array<Uint8Array | undefined>,
  ): MldfSample {
    return decodeSample(this.views, this.source.name, loc, sel, buf, base, parts);
  }
}

/** The request of a value read: the caller's signal, when it gave one. */
function dataRead(options: ReadOptions): ReadExactOptions {
  return options.signal ? { format: FORMAT_ID, what: 'data', signal: options.signal } : DATA_READ;
}

function grow(a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}
