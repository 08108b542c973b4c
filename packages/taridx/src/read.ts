import {
  type Awaitable,
  type ByteSource,
  checkRange,
  type DirectorySource,
  type FormatError,
  type FormatReader,
  type Problem,
  ProblemList,
  type ReadOptions,
  readIntoAwaitable,
  readU64,
  SourceError,
} from '@binscope/core';
import type { XXHashAPI } from 'xxhash-wasm';
import type { RowGroups } from './groups.js';
import { hashKey, hashKeyHalves, loadHasher } from './hash.js';
import {
  FORMAT,
  R,
  ROW_SIZE,
  TAR_BLOCK,
  type TaridxHeader,
  type TaridxRow,
  joinHash,
  fail,
} from './layout.js';
import { openIndex } from './parse.js';
import { CappedErrors, checkRows, readRows } from './rows.js';
import { headerInfo, readHeaderBlock, resolvePath, type TarMemberInfo } from './member-header.js';
import { checkWholeReadable, payloadChunks, type StreamChunkOptions } from './member-stream.js';
import { foldOf, ShardSet } from './shards.js';

export type { TarMemberInfo } from './member-header.js';
import { OCTAL_SIZE_LIMIT, plainOctalSize, scanName, sizeField } from './tar.js';

export interface OpenTaridxOptions extends ReadOptions {
  /**
   * Where the shards are: a folder holding `<fold>_*.tar` (the fold is the index file's
   * name without `.taridx` unless `fold` says otherwise), or the shards in fid order.
   */
  shards?: DirectorySource | readonly ByteSource[];
  fold?: string;
}

/** One member of a sample: a row, with its extension resolved. */
export interface TaridxMember {
  row: number;
  ext: string;
  extid: number;
  fid: number;
  /** Offset of the member's tar header in shard `fid`; the payload follows at offset + 512. */
  offset: number;
  size: number;
}

/** A sample: the rows sharing one (keyhash, crashid), in file order. */
export interface TaridxSample {
  /** Position in the sample list (order of first appearance). */
  index: number;
  keyhash: bigint;
  crashid: number;
  /** The key when the index itself knows it (crash stems); see `reader.key()` otherwise. */
  key?: string;
  members: TaridxMember[];
}

export interface StreamMemberOptions extends StreamChunkOptions {
  /** Check the member's tar header first, as `readSample` does. Default true. */
  verify?: boolean;
  /** The sample the member belongs to: its key (or keyhash) is checked against the header's stem. */
  sample?: TaridxSample;
}

export interface MemberData extends TaridxMember {
  data: Uint8Array;
}

export interface ReadMemberOptions extends ReadOptions {
  /** Only these extensions. */
  ext?: string | readonly string[];
  /**
   * Check each member's tar header as it is read (it comes in the same read as the
   * payload): size, extension and stem must match the row, so a shard that changed after
   * indexing raises `InvalidValue` instead of returning wrong bytes. Default true.
   */
  verify?: boolean;
  /**
   * Return views into a buffer this reader reuses on its next `reuse` read, instead of fresh
   * memory. Fastest for loaders that decode each sample before asking for the next; copy
   * what you keep. Default false.
   */
  reuse?: boolean;
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = new TextEncoder();
/** 0, 1, 2, …: the member order when members are already in shard order (grown on demand). */
const IDENTITY: number[] = [0, 1, 2, 3, 4, 5, 6, 7];
/** Members of one sample closer than this in a shard are fetched in one read. */
const COALESCE_GAP = 64 * 1024;
const COALESCE_MAX = 16 * 1024 * 1024;

interface Loaded {
  rows: Uint8Array;
  view: DataView;
  groups: RowGroups;
}

/**
 * A lazy TARIDX reader. `open` reads the header and text blocks; the rows are read and
 * checked once, on first use, and grouped into samples with a hash index over
 * (keyhash, crashid) so that `find(key)` is O(1). Payloads come from the shards through
 * byte sources, one positional read per run of nearby members.
 */
export class TaridxReader implements FormatReader {
  readonly format = FORMAT;
  private loaded?: Loaded;
  private loading?: Promise<Loaded>;
  private shardSet?: Promise<ShardSet | undefined>;
  private shardsReady?: ShardSet;
  private readonly crashIds: Map<string, number>;
  private readonly extBytes: Uint8Array[];

  private constructor(
    readonly source: ByteSource,
    readonly header: TaridxHeader,
    readonly extensions: readonly string[],
    readonly crashStems: readonly string[],
    readonly warnings: readonly Problem[],
    private readonly hasher: XXHashAPI,
    private readonly shardOption: OpenTaridxOptions['shards'],
    readonly fold: string | undefined,
  ) {
    this.crashIds = new Map(crashStems.map((stem, i) => [stem, i + 1]));
    this.extBytes = extensions.map((e) => encoder.encode(e));
  }

  static async open(source: ByteSource, options: OpenTaridxOptions = {}): Promise<TaridxReader> {
    const [parsed, hasher] = await Promise.all([openIndex(source, options), loadHasher()]);
    return new TaridxReader(
      source,
      parsed.header,
      parsed.extensions,
      parsed.crashStems,
      parsed.warnings,
      hasher,
      options.shards,
      options.fold ?? foldOf(source.name),
    );
  }

  get name(): string {
    return this.source.name;
  }
  get rowCount(): number {
    return this.header.nRows;
  }
  /** Whether each sample's rows are contiguous (flags bit 0). */
  get contiguous(): boolean {
    return (this.header.flags & 1) !== 0;
  }

  /** Reads, checks and groups the rows (once). Every other row or sample method calls it. */
  async load(options: ReadOptions = {}): Promise<void> {
    await this.ensure(options);
  }

  private ensure(options: ReadOptions = {}): Promise<Loaded> | Loaded {
    if (this.loaded) return this.loaded;
    this.loading ??= (async () => {
      const rows = await readRows(this.source, this.header, this.header.nRows, options);
      const parsed = {
        header: this.header,
        extensions: [...this.extensions],
        crashStems: [...this.crashStems],
        warnings: [],
      };
      // The same row checks as validate, in read mode: the first error in A2 order is thrown.
      const problems = new ProblemList(FORMAT, { mode: 'read', file: this.name });
      const groups = checkRows(parsed, rows, this.hasher, new CappedErrors(problems));
      problems.checkpoint();
      this.loaded = { rows, view: new DataView(rows.buffer, rows.byteOffset, rows.byteLength), groups };
      return this.loaded;
    })();
    this.loading.catch(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  async sampleCount(): Promise<number> {
    return (await this.ensure()).groups.count;
  }

  async row(i: number): Promise<TaridxRow> {
    const { view } = await this.ensure();
    if (!Number.isInteger(i) || i < 0 || i >= this.rowCount)
      throw new RangeError(`row ${i} is not in 0..${this.rowCount - 1}`);
    return rowAt(view, i);
  }

  async *rows(options: ReadOptions = {}): AsyncGenerator<TaridxRow> {
    const { view } = await this.ensure(options);
    for (let i = 0; i < this.rowCount; i++) yield rowAt(view, i);
  }

  /** Sample `i` in order of first appearance. */
  async sample(i: number): Promise<TaridxSample> {
    return this.checkedSample(this.loaded ?? (await this.ensure()), i);
  }

  /**
   * `sample(i)` without a promise, once the rows are loaded (`await reader.load()`);
   * throws TypeError before that.
   */
  sampleSync(i: number): TaridxSample {
    if (!this.loaded) throw new TypeError(`${this.name}: rows not loaded; await reader.load() first`);
    return this.checkedSample(this.loaded, i);
  }

  private checkedSample(loaded: Loaded, i: number): TaridxSample {
    if (!Number.isInteger(i) || i < 0 || i >= loaded.groups.count) {
      throw new RangeError(`sample ${i} is not in 0..${loaded.groups.count - 1}`);
    }
    return this.sampleOf(loaded, i);
  }

  async *samples(
    options: ReadOptions & { offset?: number; limit?: number } = {},
  ): AsyncGenerator<TaridxSample> {
    const loaded = await this.ensure(options);
    const start = Math.max(0, options.offset ?? 0);
    const end = Math.min(loaded.groups.count, start + (options.limit ?? Number.POSITIVE_INFINITY));
    for (let i = start; i < end; i++) yield this.sampleOf(loaded, i);
  }

  /**
   * The sample whose key (stem) is `key`, in O(1): XXH64 of the key, crash id from the crash
   * table (0 otherwise), then a hash-table probe. A key that merely shares a hash with an
   * indexed canonical stem is caught when payloads are read with `verify`.
   */
  async find(key: string): Promise<TaridxSample | undefined> {
    const loaded = this.loaded ?? (await this.ensure());
    const hash = hashKeyHalves(this.hasher, key);
    const crashid = this.crashIds.size === 0 ? 0 : (this.crashIds.get(key) ?? 0);
    const group = loaded.groups.find(hash[0], hash[1], crashid);
    if (group < 0) return undefined;
    const sample = this.sampleOf(loaded, group);
    sample.key = key;
    return sample;
  }

  /** One call per key: the sample's members with their payload bytes, or undefined. */
  async get(key: string, options: ReadMemberOptions = {}): Promise<MemberData[] | undefined> {
    const sample = await this.find(key);
    if (!sample) return undefined;
    return this.readSample(sample, options);
  }

  private sampleOf(loaded: Loaded, group: number): TaridxSample {
    const { view, groups } = loaded;
    const first = groups.first[group];
    const at = first * ROW_SIZE;
    const crashid = view.getUint32(at + R.crashid, true);
    const members: TaridxMember[] = [];
    if (groups.runs === groups.count) {
      // Contiguous samples (flags bit 0, the usual case): the rows up to the next sample's
      // first are this one's, which spares random reads of the per-row `next` links.
      const end = group + 1 < groups.count ? groups.first[group + 1] : this.header.nRows;
      for (let row = first; row < end; row++) members.push(this.memberAt(view, row));
    } else {
      for (let row = first; row >= 0; row = groups.next[row]) members.push(this.memberAt(view, row));
    }
    return {
      index: group,
      keyhash: joinHash(view.getUint32(at + R.keyhash, true), view.getUint32(at + R.keyhash + 4, true)),
      crashid,
      key: crashid > 0 ? this.crashStems[crashid - 1] : undefined,
      members,
    };
  }

  private memberAt(view: DataView, row: number): TaridxMember {
    const at = row * ROW_SIZE;
    const extid = view.getUint16(at + R.extid, true);
    return {
      row,
      ext: this.extensions[extid],
      extid,
      fid: view.getUint16(at + R.fid, true),
      offset: readU64(view, at + R.offset),
      size: readU64(view, at + R.size),
    };
  }

  /** Members of a sample, optionally only some extensions. */
  members(sample: TaridxSample, ext?: string | readonly string[]): TaridxMember[] {
    if (ext === undefined) return sample.members;
    const wanted = typeof ext === 'string' ? [ext] : ext;
    return sample.members.filter((m) => wanted.includes(m.ext));
  }

  /** The shards in fid order, or undefined when none are reachable. */
  async shards(): Promise<ShardSet | undefined> {
    this.shardSet ??= (async () => {
      const option = this.shardOption;
      if (!option) return undefined;
      if (Array.isArray(option)) return ShardSet.fromSources(option as readonly ByteSource[]);
      if (!this.fold) return undefined;
      return ShardSet.fromDirectory(option as DirectorySource, this.fold);
    })();
    return this.shardSet;
  }

  /** The shard if it is already open (the synchronous fast path of `shard`). */
  private openShard(fid: number): ByteSource | undefined {
    return this.shardsReady?.peek(fid);
  }

  private async shard(fid: number): Promise<ByteSource> {
    const set = await this.shards();
    this.shardsReady = set;
    if (!set) throw this.noShards();
    return set.peek(fid) ?? set.open(fid);
  }

  /** A shard's name for messages, without opening it. */
  private shardName(fid: number): string {
    return this.shardsReady?.names[fid] ?? `shard ${fid}`;
  }

  private noShards(): SourceError {
    return new SourceError(
      `${this.name}: no shards to read from; open the index beside its ${this.fold ?? '<fold>'}_*.tar shards or pass { shards }`,
      this.name,
    );
  }

  /**
   * Lists and opens every shard now, so that `readSampleSync` never has to wait for one
   * (a folder's shards are otherwise opened on first use). Opens one source per shard.
   */
  async openShards(): Promise<void> {
    const set = await this.shards();
    this.shardsReady = set;
    if (!set) return;
    for (let fid = 0; fid < set.count; fid++) await set.open(fid);
  }

  /**
   * Shard `fid` for the synchronous path: open and able to read synchronously, or the
   * error the async path gives (no shards, a fid past the shards), or SourceError when it
   * would need an await (folder not listed or shard not opened yet, no sync read).
   */
  private shardSync(fid: number): ByteSource {
    let set = this.shardsReady;
    if (!set) {
      const option = this.shardOption;
      if (!option || (!Array.isArray(option) && !this.fold)) throw this.noShards();
      if (!Array.isArray(option)) {
        throw new SourceError(
          `${this.name}: shards not opened yet; await reader.openShards() before readSampleSync`,
          this.name,
        );
      }
      set = ShardSet.fromSources(option as readonly ByteSource[]);
      this.shardSet ??= Promise.resolve(set);
      this.shardsReady = set;
    }
    const source = set.peek(fid);
    if (!source) {
      if (fid >= set.count) {
        // ShardSet.open's error: a fid past the listed shards points past the table (A3).
        throw fail('OutOfBounds', set.missingMessage(fid), undefined, set.guessName(fid));
      }
      throw new SourceError(
        `${this.name}: shard ${set.names[fid]} not opened yet; await reader.openShards() before readSampleSync`,
        set.names[fid],
      );
    }
    if (!readsSync(source)) {
      throw new SourceError(
        `${source.name}: this source offers no synchronous read; use readSample`,
        source.name,
      );
    }
    return source;
  }

  /**
   * A member's payload in chunks of at most `chunkSize` bytes (default 4 MiB), each read when
   * the loop asks for it: memory stays at one chunk for members of any size, where the
   * methods returning whole payloads refuse members over MAX_MEMBER_BYTES (1 GiB). With
   * `verify` (default) the member's tar header is checked first, as readSample checks it.
   */
  async *streamMember(member: TaridxMember, options: StreamMemberOptions = {}): AsyncGenerator<Uint8Array> {
    const source = await this.shard(member.fid);
    if (options.verify ?? true) {
      const run = this.startRead([], { verify: true }, options.sample);
      this.verifyHeader(await readHeaderBlock(source, member), 0, member, source.name, run);
    }
    yield* payloadChunks(source, member, options);
  }

  /** A member's payload: `size` bytes at offset + 512 of its shard. */
  async readMember(member: TaridxMember, options: ReadMemberOptions = {}): Promise<Uint8Array> {
    const [out] = await this.readMembers([member], options);
    return out.data;
  }

  /** A sample's payloads (all members, or those of `ext`), coalescing nearby members into one read. */
  readSample(sample: TaridxSample, options: ReadMemberOptions = {}): Promise<MemberData[]> {
    try {
      return this.readMembers(this.members(sample, options.ext), options, sample);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * `readSample` without a promise, for shards with a synchronous read (local files,
   * memory): the same checks, results and errors, less overhead per sample. The shards must
   * be open: pass them as sources, or `await reader.openShards()` first (SourceError
   * otherwise, and for shards with no synchronous read).
   */
  readSampleSync(sample: TaridxSample, options: ReadMemberOptions = {}): MemberData[] {
    const run = this.startRead(this.members(sample, options.ext), options, sample);
    // Each pass either finishes or stops at a run whose shard shardSync opens (or throws for).
    while (!this.readRunsSync(run)) this.shardSync(run.members[run.order[run.i]].fid);
    return run.out;
  }

  /** Throws synchronously: callers turn that into a rejection. */
  private readMembers(
    members: readonly TaridxMember[],
    options: ReadMemberOptions,
    sample?: TaridxSample,
  ): Promise<MemberData[]> {
    const run = this.startRead(members, options, sample);
    // Runs on open shards with a sync read go without awaits (and without an async frame
    // when that is all of them); the others are awaited in readRest.
    return this.readRunsSync(run) ? Promise.resolve(run.out) : this.readRest(run);
  }

  private async readRest(run: MemberRead): Promise<MemberData[]> {
    const { options } = run;
    do {
      const head = run.members[run.order[run.i]];
      const source = this.openShard(head.fid) ?? (await this.shard(head.fid));
      const length = this.planRun(run, source);
      const got = options.reuse
        ? this.readReused(source, head.offset, length, run.i === 0, options)
        : readOwned(source, head.offset, length, options);
      this.fillRun(run, source, got instanceof Uint8Array ? got : await got);
    } while (!this.readRunsSync(run));
    return run.out;
  }

  private startRead(
    members: readonly TaridxMember[],
    options: ReadMemberOptions,
    sample: TaridxSample | undefined,
  ): MemberRead {
    checkWholeReadable(members, (m) => this.shardName((m as TaridxMember).fid));
    // Members in shard order (usually already so), split into runs that one read can cover.
    for (let k = IDENTITY.length; k < members.length; k++) IDENTITY.push(k);
    const order = inShardOrder(members) ? IDENTITY : members.map((_, k) => k);
    if (order !== IDENTITY)
      order.sort((a, b) => members[a].fid - members[b].fid || members[a].offset - members[b].offset);
    return {
      members,
      order,
      out: new Array(members.length),
      options,
      verify: options.verify ?? true,
      sample,
      stem: undefined,
      i: 0,
      j: 0,
    };
  }

  /** Reads runs while their shard is open and reads synchronously; false when the run at `i` needs more. */
  private readRunsSync(run: MemberRead): boolean {
    const { members, order, options } = run;
    while (run.i < members.length) {
      const head = members[order[run.i]];
      const source = this.openShard(head.fid);
      if (source === undefined || !readsSync(source)) return false;
      const length = this.planRun(run, source);
      const got = options.reuse
        ? this.readReused(source, head.offset, length, run.i === 0, options)
        : readOwned(source, head.offset, length, options);
      this.fillRun(run, source, got as Uint8Array);
    }
    return true;
  }

  /** Members [i, j) that one read of `source` covers; returns that read's length (range checked). */
  private planRun(run: MemberRead, source: ByteSource): number {
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

  /** Verifies and hands out the members of the planned run from its bytes; moves on to the next run. */
  private fillRun(run: MemberRead, source: ByteSource, bytes: Uint8Array): void {
    const { members, order, out } = run;
    const headOffset = members[order[run.i]].offset;
    // Read once: the buffer getter is not free and every member's view needs it.
    const buffer = bytes.buffer;
    const base = bytes.byteOffset;
    for (let k = run.i; k < run.j; k++) {
      const m = members[order[k]];
      const at = m.offset - headOffset;
      if (run.verify) this.verifyHeader(bytes, at, m, source.name, run);
      out[order[k]] = {
        row: m.row,
        ext: m.ext,
        extid: m.extid,
        fid: m.fid,
        offset: m.offset,
        size: m.size,
        // A view constructor is much cheaper than subarray() in V8's hot paths.
        data: new Uint8Array(buffer, base + at + TAR_BLOCK, m.size),
      };
    }
    run.i = run.j;
  }

  private scratch = new Uint8Array(0);
  private scratchUsed = 0;
  /** Where a header being verified is, for sizeField's errors (reused: the read path is hot). */
  private readonly where = { file: '', offset: 0 };

  /** Reads into the reader's reusable buffer; a sample's runs share it, the next sample overwrites it. */
  private readReused(
    source: ByteSource,
    offset: number,
    length: number,
    first: boolean,
    options: ReadOptions,
  ): Uint8Array | Promise<Uint8Array> {
    if (first) this.scratchUsed = 0;
    if (this.scratchUsed + length > this.scratch.byteLength) {
      // Earlier runs of this sample keep the old buffer; later samples use the new one.
      this.scratch = new Uint8Array(Math.max(1 << 20, 2 * (this.scratchUsed + length)));
      this.scratchUsed = 0;
    }
    const target = new Uint8Array(this.scratch.buffer, this.scratchUsed, length);
    this.scratchUsed += length;
    return readFilled(source, offset, target, options);
  }

  /**
   * Checks that the header at `at` is the member the row describes. The first member's stem
   * is checked against the sample's key (hash) and kept in `run.stem`, so the sample's other
   * members only need a byte comparison. This runs per member on the random-read path, so the
   * name is scanned once, in place.
   */
  private verifyHeader(
    block: Uint8Array,
    at: number,
    member: TaridxMember,
    file: string,
    run: MemberRead,
  ): void {
    const size = plainOctalSize(block, at);
    if (size !== member.size) this.checkSizeField(block, at, member, file);
    const { end, stemStart, dot } = scanName(block, at);
    const stemEnd = dot < 0 ? end : dot;
    if (!extMatches(block, dot < 0 ? end : dot + 1, end, dot < 0, this.extBytes[member.extid], member.ext)) {
      throw changedError(
        member,
        file,
        `member name ${JSON.stringify(decoder.decode(block.subarray(at, end)))} does not have extension "${member.ext}"`,
      );
    }
    const stem = run.stem;
    if (stem) {
      if (!equalBytesAt(stem, block, stemStart, stemEnd - stemStart))
        throw changedError(member, file, 'members of one sample have different stems');
      return;
    }
    const stemBytes = new Uint8Array(block.buffer, block.byteOffset + stemStart, stemEnd - stemStart);
    if (run.sample && !this.stemIsKey(stemBytes, run.sample)) {
      throw changedError(
        member,
        file,
        `member name's stem ${JSON.stringify(decoder.decode(stemBytes))} is not the sample's key`,
      );
    }
    run.stem = stemBytes;
  }

  /** The size field disagrees with the row (or is not plain octal): the full parse decides which. */
  private checkSizeField(block: Uint8Array, at: number, member: TaridxMember, file: string): void {
    let size: number;
    const where = this.where;
    where.file = file;
    where.offset = member.offset;
    try {
      size = sizeField(block, at, where);
    } catch {
      throw changedError(member, file, 'no tar header at the row offset');
    }
    if (size !== member.size && member.size < OCTAL_SIZE_LIMIT)
      throw changedError(member, file, `tar header says ${size} bytes, the index ${member.size}`);
  }

  /** Whether a member's stem bytes name this sample: its key, or (no key) its keyhash and crash id 0. */
  private stemIsKey(stemBytes: Uint8Array, sample: TaridxSample): boolean {
    let ascii = true;
    const length = stemBytes.byteLength;
    for (let i = 0; i < length; i++) {
      if (stemBytes[i] >= 0x80) {
        ascii = false;
        break;
      }
    }
    // Crash stems, keys and non-ASCII stems compare as text; plain ASCII stems hash in place.
    if (sample.key !== undefined || !ascii || this.crashIds.size > 0) {
      const text = decoder.decode(stemBytes);
      const ok =
        sample.key !== undefined ? text === sample.key : sampleHashMatches(this.hasher, text, sample.keyhash);
      return ok && !(sample.crashid === 0 && this.crashIds.has(text));
    }
    return this.hasher.h64Raw(stemBytes, 0n) === sample.keyhash;
  }

  /**
   * The sample's key: a crash stem from the index, or the stem read back from its first
   * member's tar header (that one 512-byte block, nothing else).
   */
  async key(sample: TaridxSample): Promise<string | undefined> {
    if (sample.key !== undefined) return sample.key;
    // The index stores only the key's hash: without shards beside it the key is unknown, not an error.
    const set = await this.shards();
    if (!set || set.count === 0) return undefined;
    const first = sample.members[0];
    const source = await this.shard(first.fid);
    const { stem } = headerInfo(await readHeaderBlock(source, first));
    if (!sampleHashMatches(this.hasher, stem, sample.keyhash)) {
      throw fail(
        'InvalidValue',
        `row ${first.row}: the tar header's stem ${JSON.stringify(stem)} does not hash to the row's keyhash (the shard changed after indexing?)`,
        first.offset,
        source.name,
      );
    }
    return stem;
  }

  /** What the tar header of a member says (T2 fields and the full path). */
  async memberHeader(member: TaridxMember | number): Promise<TarMemberInfo> {
    const { view } = await this.ensure();
    const m = typeof member === 'number' ? this.memberAt(view, member) : member;
    const source = await this.shard(m.fid);
    const block = await readHeaderBlock(source, m);
    const info = headerInfo(block);
    if ('LKxg'.includes(info.typeflag)) return info;
    info.path = await resolvePath(source, m, block, info.headerName, (row) => this.memberAt(view, row));
    return info;
  }

  async close(): Promise<void> {
    await this.source.close?.();
    const option = this.shardOption as { close?: () => Promise<void> } | undefined;
    if (option && !Array.isArray(option)) await option.close?.();
  }
}

/** One sample (or member list) being read: the members, their shard order, and how far it got. */
interface MemberRead {
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
}

/** Whether readOwned/readReused complete without an await on this source. */
function readsSync(source: ByteSource): boolean {
  return typeof source.readAt === 'function' || typeof source.readSync === 'function';
}

function rowAt(view: DataView, i: number): TaridxRow {
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
function take(length: number): Uint8Array {
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
function readOwned(
  source: ByteSource,
  offset: number,
  length: number,
  options: ReadOptions = {},
): Uint8Array | Promise<Uint8Array> {
  return readFilled(source, offset, take(length), options);
}

/** `target` filled from `offset` through the fastest read the source declares, or Truncated if fewer came. */
function readFilled(
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
function filled(
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

function sampleHashMatches(hasher: XXHashAPI, stem: string, keyhash: bigint): boolean {
  const [lo, hi] = hashKey(hasher, stem);
  return joinHash(lo, hi) === keyhash;
}

function inShardOrder(members: readonly TaridxMember[]): boolean {
  for (let i = 1; i < members.length; i++) {
    const a = members[i - 1];
    const b = members[i];
    if (a.fid > b.fid || (a.fid === b.fid && a.offset > b.offset)) return false;
  }
  return true;
}

/** Whether `b[bStart, bStart + length)` equals all of `a`. */
function equalBytesAt(a: Uint8Array, b: Uint8Array, bStart: number, length: number): boolean {
  if (a.byteLength !== length) return false;
  for (let i = 0; i < length; i++) if (a[i] !== b[bStart + i]) return false;
  return true;
}

function changedError(member: TaridxMember, file: string, what: string): FormatError {
  return fail(
    'InvalidValue',
    `row ${member.row}: ${what} (the shard changed after indexing?)`,
    member.offset,
    file,
  );
}

/** Whether name bytes [start, end) lower-case to `expected` (ASCII compared in place). */
function extMatches(
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

export async function openTaridx(source: ByteSource, options: OpenTaridxOptions = {}): Promise<TaridxReader> {
  return TaridxReader.open(source, options);
}
