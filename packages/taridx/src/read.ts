import type {
  Awaitable,
  ByteSource,
  FormatReader,
  Problem,
  ProblemList,
  ReadOptions,
  Schema,
  SourceError,
  TableInfo,
} from '@binscope/core';
import { readU64 } from '@binscope/core/binary';
import type { XXHashAPI } from 'xxhash-wasm';
import type { RowGroups } from './groups.js';
import { hashKeyHalves, sampleHashMatches } from './hash.js';
import { fail, FORMAT, joinHash, R, ROW_SIZE, type TaridxHeader, type TaridxRow } from './layout.js';
import { headerInfo, readHeaderBlock, resolvePath, type TarMemberInfo } from './member-header.js';
import { notAMember, RowKinds } from './member-kinds.js';
import { payloadChunks } from './member-stream.js';
import { MemberVerifier } from './member-verify.js';
import type { ParsedIndex } from './parse.js';
import type {
  ListMembersOptions,
  MemberData,
  OpenTaridxOptions,
  ReadMemberOptions,
  StreamMemberOptions,
  TaridxMember,
  TaridxSample,
} from './reader-types.js';
import { CappedErrors, checkRows, readRows, rowAt } from './rows.js';
import { SampleReads } from './sample-read.js';
import { indexSchema, samplesTable } from './schema.js';
import { foldOf, ReaderShards, type ShardSet } from './shards.js';
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

interface Loaded {
  rows: Uint8Array;
  view: DataView;
  groups: RowGroups;
}

/**
 * A lazy TARIDX reader. Opening reads the header and text blocks; the rows are read and
 * checked once, on first use, and grouped into samples with a hash index over
 * (keyhash, crashid) so that `find(key)` is O(1). Payloads come from the shards through
 * byte sources, one positional read per run of nearby members. Methods that may need I/O
 * return `Awaitable`s: a value at once when nothing has to be waited for (rows loaded,
 * shards that answer synchronously), so loaders over local files pay no promise per sample.
 */
export class TaridxReader implements FormatReader {
  readonly format = FORMAT;
  /** The main records: `{key, crashid, members: [{ext, fid, offset, size}]}`. */
  readonly schema: Schema = indexSchema;
  /** `samples`: the key and one bytes field per extension, read from the shards. */
  readonly tables: readonly TableInfo[];
  readonly header: TaridxHeader;
  readonly extensions: readonly string[];
  readonly crashStems: readonly string[];
  readonly warnings: readonly Problem[];
  private loaded?: Loaded;
  private loading?: Promise<Loaded>;
  private readonly shardSet: ReaderShards;
  private readonly crashIds: Map<string, number>;
  private readonly reads: SampleReads;
  private readonly kinds: RowKinds;
  /** What close() closes besides the shards it opened: what its opener handed over (`own`). */
  private readonly owned: Array<{ close?(): Promise<void> }> = [];

  /**
   * @internal Made by the plugin's open (`openTaridx`), after a clean parse. `problems` is that
   * strict read's list: the rows, checked on first use, continue it.
   */
  constructor(
    readonly source: ByteSource,
    parsed: ParsedIndex,
    private readonly problems: ProblemList,
    private readonly hasher: XXHashAPI,
    options: OpenTaridxOptions,
    shards: OpenTaridxOptions['shards'],
  ) {
    this.header = parsed.header;
    this.extensions = parsed.extensions;
    this.crashStems = parsed.crashStems;
    this.warnings = parsed.warnings;
    this.tables = [samplesTable(parsed.extensions)];
    this.crashIds = new Map(parsed.crashStems.map((stem, i) => [stem, i + 1]));
    this.kinds = new RowKinds(parsed.header.nRows);
    this.shardSet = new ReaderShards(shards, options.fold ?? foldOf(source.name), source.name);
    const verifier = new MemberVerifier(
      hasher,
      this.crashIds,
      parsed.extensions.map((e) => encoder.encode(e)),
    );
    this.reads = new SampleReads(verifier, this.shardSet);
  }

  /**
   * Opens an index: the same as `openTaridx(source, options)` (the plugin's open), kept as a
   * static for callers of the earlier API.
   */
  static async open(source: ByteSource, options: OpenTaridxOptions = {}): Promise<TaridxReader> {
    const { openTaridx } = await import('./plugin.js');
    return openTaridx(source, options);
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
  /** The fold the shards belong to (`<fold>_*.tar`): the index's name without `.taridx`, or as given. */
  get fold(): string | undefined {
    return this.shardSet.fold;
  }

  /** Reads, checks and groups the rows (once). Every other row or sample method calls it. */
  async load(options: ReadOptions = {}): Promise<void> {
    await this.ensure(options);
  }

  private ensure(options: ReadOptions = {}): Awaitable<Loaded> {
    if (this.loaded) return this.loaded;
    this.loading ??= (async () => {
      const rows = await readRows(this.source, this.header, this.header.nRows, options);
      const parsed = {
        header: this.header,
        extensions: [...this.extensions],
        crashStems: [...this.crashStems],
        warnings: [],
      };
      // The same row checks as validate, continuing the strict read that opened the index:
      // the first error in A2 order is thrown.
      const groups = checkRows(parsed, rows, this.hasher, new CappedErrors(this.problems));
      this.problems.checkpoint();
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

  /** Sample `i` in order of first appearance: at once when the rows are loaded (`load()`). */
  sample(i: number): Awaitable<TaridxSample> {
    const loaded = this.loaded ?? this.ensure();
    return loaded instanceof Promise
      ? loaded.then((l) => this.checkedSample(l, i))
      : this.checkedSample(loaded, i);
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
   * indexed canonical stem is caught when payloads are read with `verify` (the sample found
   * carries `key`, which the members' stems must equal).
   */
  find(key: string): Awaitable<TaridxSample | undefined> {
    const loaded = this.loaded ?? this.ensure();
    if (loaded instanceof Promise) return loaded.then(() => this.find(key));
    const hash = hashKeyHalves(this.hasher, key);
    const crashid = this.crashIds.size === 0 ? 0 : (this.crashIds.get(key) ?? 0);
    const group = loaded.groups.find(hash[0], hash[1], crashid);
    if (group < 0) return undefined;
    const sample = this.sampleOf(loaded, group);
    sample.key = key;
    return sample;
  }

  /** One call per key: the sample's members with payloads, or undefined (also for `@PaxHeader`). */
  get(key: string, options: ReadMemberOptions = {}): Awaitable<MemberData[] | undefined> {
    const found = this.find(key);
    if (found instanceof Promise) return found.then((sample) => this.payloadsOf(sample, options));
    return this.payloadsOf(found, options);
  }

  private payloadsOf(
    sample: TaridxSample | undefined,
    options: ReadMemberOptions,
  ): Awaitable<MemberData[] | undefined> {
    if (!sample) return undefined;
    const data = this.readSample(sample, options);
    const some = (list: MemberData[]) =>
      list.length === 0 && options.ext === undefined && sample.members.length > 0 ? undefined : list;
    return data instanceof Promise ? data.then(some) : some(data);
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
    return this.kinds.members(this.members(sample, options.ext), (fid) => this.shardSet.shard(fid), options);
  }

  /** The shards in fid order, or undefined when none are reachable. */
  shards(): Promise<ShardSet | undefined> {
    return this.shardSet.list();
  }

  /** The typed error for payloads asked of a reader without shards (SourceError, reason `missing`), naming what is missing. */
  missingShards(): SourceError {
    return this.shardSet.missing();
  }

  /** Shard `fid` (opened on first use), at once when it is open; a SourceError when there are no shards. */
  shard(fid: number): Awaitable<ByteSource> {
    return this.shardSet.shard(fid);
  }

  /**
   * A member's payload in chunks of at most `chunkSize` bytes (default 4 MiB), each read when
   * the loop asks for it: memory stays at one chunk for members of any size, where the
   * methods returning whole payloads refuse members over MAX_MEMBER_BYTES (1 GiB). With
   * `verify` (default) the member's tar header is checked first, as readSample checks it.
   */
  async *streamMember(member: TaridxMember, options: StreamMemberOptions = {}): AsyncGenerator<Uint8Array> {
    const source = await this.shard(member.fid);
    if (options.verify ?? true) await this.verifyMember(member, source, options);
    yield* payloadChunks(source, member, options);
  }

  /**
   * Checks a member's tar header against its row (and `sample`'s key): the check of every
   * payload read. An extended header is refused unless `extendedHeaders`.
   */
  async verifyMember(
    member: TaridxMember,
    source: ByteSource,
    options: StreamMemberOptions = {},
  ): Promise<void> {
    const block = await readHeaderBlock(source, member, options);
    this.reads.verifyHeader(block, member, source.name, options.sample);
    if (!options.extendedHeaders && isExtendedHeader(block, 0))
      throw notAMember(member, source.name, typeflagOf(block, 0));
  }

  /** A member's payload: `size` bytes at offset + 512 of its shard (an extended header: InvalidValue). */
  async readMember(member: TaridxMember, options: ReadMemberOptions = {}): Promise<Uint8Array> {
    const [out] = await this.reads.read([member], options, undefined);
    if (!out) throw notAMember(member, this.shardSet.shardName(member.fid));
    return out.data;
  }

  /**
   * A sample's payloads (all members, or those of `ext`), coalescing nearby members into one
   * read, each member's tar header checked (`verify`, default on: size, extension and stem
   * must match the row, so a shard changed after indexing is an error, not wrong bytes).
   * Synchronous when every shard it needs is open and answers synchronously (local files,
   * memory): loaders check `instanceof Promise` and pay no promise per sample.
   */
  readSample(sample: TaridxSample, options: ReadMemberOptions = {}): Awaitable<MemberData[]> {
    return this.reads.read(this.members(sample, options.ext), options, sample);
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

  /**
   * Makes close() close these too: for an opener that opened the index's source or its folder
   * itself and hands the reader on (`openTaridxFile`), so whoever opened them still closes them.
   */
  own(...opened: Array<{ close?(): Promise<void> } | undefined>): this {
    for (const o of opened) if (o) this.owned.push(o);
    return this;
  }

  /** Closes the shards the reader opened from its folder, and what it was handed to own; never its target. */
  async close(): Promise<void> {
    await this.shardSet.close();
    for (const o of this.owned.splice(0)) await o.close?.();
  }
}
