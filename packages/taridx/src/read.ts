import {
  type ByteSource,
  type DirectorySource,
  type FormatReader,
  type Problem,
  ProblemList,
  type ReadOptions,
  readU64,
  SourceError,
} from '@binscope/core';
import type { XXHashAPI } from 'xxhash-wasm';
import type { RowGroups } from './groups.js';
import { hashKeyHalves, loadHasher } from './hash.js';
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
import {
  inShardOrder,
  type MemberRead,
  membersOut,
  planRun,
  ScratchBuffer,
  readOwned,
  readsSync,
  rowAt,
  sampleHashMatches,
} from './member-bytes.js';
import { notAMember, RowKinds } from './member-kinds.js';
import { MemberVerifier } from './member-verify.js';
import { openIndex } from './parse.js';
import type {
  ListMembersOptions,
  MemberData,
  OpenTaridxOptions,
  ReadMemberOptions,
  StreamMemberOptions,
  TaridxMember,
  TaridxSample,
} from './reader-types.js';
import { CappedErrors, checkRows, readRows } from './rows.js';
import { headerInfo, readHeaderBlock, resolvePath, type TarMemberInfo } from './member-header.js';
import { checkWholeReadable, payloadChunks } from './member-stream.js';
import { foldOf, ShardSet } from './shards.js';
import { isExtendedHeader, typeflagOf } from './tar.js';

export type { TarMemberInfo } from './member-header.js';
export type {
  ListMembersOptions,
  MemberData,
  OpenTaridxOptions,
  ReadMemberOptions,
  StreamMemberOptions,
  TaridxMember,
  TaridxSample,
} from './reader-types.js';

const encoder = new TextEncoder();
/** 0, 1, 2, …: the member order when members are already in shard order (grown on demand). */
const IDENTITY: number[] = [0, 1, 2, 3, 4, 5, 6, 7];

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
  private readonly verifier: MemberVerifier;
  private readonly scratch = new ScratchBuffer();
  private readonly kinds: RowKinds;

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
    this.kinds = new RowKinds(header.nRows);
    this.verifier = new MemberVerifier(
      hasher,
      this.crashIds,
      extensions.map((e) => encoder.encode(e)),
    );
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

  /** One call per key: the sample's members with payloads, or undefined (also for `@PaxHeader`). */
  async get(key: string, options: ReadMemberOptions = {}): Promise<MemberData[] | undefined> {
    const sample = await this.find(key);
    if (!sample) return undefined;
    const data = await this.readSample(sample, options);
    if (data.length === 0 && options.ext === undefined && sample.members.length > 0) return undefined;
    return data;
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

  /** A sample's rows (optionally only some extensions), extended headers included: no I/O. */
  members(sample: TaridxSample, ext?: string | readonly string[]): TaridxMember[] {
    if (ext === undefined) return sample.members;
    const wanted = typeof ext === 'string' ? [ext] : ext;
    return sample.members.filter((m) => wanted.includes(m.ext));
  }

  /**
   * `members` without the tar extended headers (PAX, GNU long names) the index records as
   * rows, from each row's 512-byte header (read once). Empty for `@PaxHeader`-like "samples".
   */
  async listMembers(sample: TaridxSample, options: ListMembersOptions = {}): Promise<TaridxMember[]> {
    const shard = (fid: number) => this.openShard(fid) ?? this.shard(fid);
    return this.kinds.members(this.members(sample, options.ext), shard, options);
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
      const block = await readHeaderBlock(source, member, options);
      this.verifier.verify(block, 0, member, source.name, run);
      if (!options.extendedHeaders && isExtendedHeader(block, 0))
        throw notAMember(member, source.name, typeflagOf(block, 0));
    }
    yield* payloadChunks(source, member, options);
  }

  /** A member's payload: `size` bytes at offset + 512 of its shard (an extended header: InvalidValue). */
  async readMember(member: TaridxMember, options: ReadMemberOptions = {}): Promise<Uint8Array> {
    const [out] = await this.readMembers([member], options);
    if (!out) throw notAMember(member, this.shardName(member.fid));
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
    return membersOut(run);
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
    return this.readRunsSync(run) ? Promise.resolve(membersOut(run)) : this.readRest(run);
  }

  private async readRest(run: MemberRead): Promise<MemberData[]> {
    const { options } = run;
    do {
      const head = run.members[run.order[run.i]];
      const source = this.openShard(head.fid) ?? (await this.shard(head.fid));
      const length = planRun(run, source);
      const got = options.reuse
        ? this.scratch.read(source, head.offset, length, run.i === 0, options)
        : readOwned(source, head.offset, length, options);
      this.fillRun(run, source, got instanceof Uint8Array ? got : await got);
    } while (!this.readRunsSync(run));
    return membersOut(run);
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
      skipped: 0,
    };
  }

  /** Reads runs while their shard is open and reads synchronously; false when the run at `i` needs more. */
  private readRunsSync(run: MemberRead): boolean {
    const { members, order, options } = run;
    while (run.i < members.length) {
      const head = members[order[run.i]];
      const source = this.openShard(head.fid);
      if (source === undefined || !readsSync(source)) return false;
      const length = planRun(run, source);
      const got = options.reuse
        ? this.scratch.read(source, head.offset, length, run.i === 0, options)
        : readOwned(source, head.offset, length, options);
      this.fillRun(run, source, got as Uint8Array);
    }
    return true;
  }

  /** Verifies and hands out the members of the planned run from its bytes; moves on to the next run. */
  private fillRun(run: MemberRead, source: ByteSource, bytes: Uint8Array): void {
    const { members, order, out } = run;
    const headOffset = members[order[run.i]].offset;
    // Read once: the buffer getter is not free and every member's view needs it.
    const buffer = bytes.buffer;
    const base = bytes.byteOffset;
    const extended = run.options.extendedHeaders;
    for (let k = run.i; k < run.j; k++) {
      const m = members[order[k]];
      const at = m.offset - headOffset;
      if (run.verify) this.verifier.verify(bytes, at, m, source.name, run);
      // Its header came in this read: an extended header is left out, never a member.
      if (!extended && isExtendedHeader(bytes, at)) {
        run.skipped++;
        continue;
      }
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

export async function openTaridx(source: ByteSource, options: OpenTaridxOptions = {}): Promise<TaridxReader> {
  return TaridxReader.open(source, options);
}
