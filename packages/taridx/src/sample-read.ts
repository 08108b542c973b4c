import { type Awaitable, type ByteSource, checkRange, type ReadRequest } from '@binscope/core';
import { FORMAT, fail, TAR_BLOCK } from './layout.js';
import { checkWholeReadable } from './member-stream.js';
import type { MemberVerifier } from './member-verify.js';
import type { MemberData, ReadMemberOptions, TaridxMember, TaridxSample } from './reader-types.js';
import { isExtendedHeader } from './tar.js';

/**
 * Reading a sample's payloads: members in shard order, nearby ones coalesced into one read,
 * each member's tar header (which comes in the same read) checked against its row. One code
 * path for every source: runs on shards that answer synchronously (local files, memory) go
 * without a promise, and only a run whose shard answers later continues in `then`.
 */

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

/** What the reads need of the reader: its shards (sync once open) and their names. */
export interface ShardLookup {
  shard(fid: number): Awaitable<ByteSource>;
  shardName(fid: number): string;
}

/** Members of one sample closer than this in a shard are fetched in one read. */
const COALESCE_GAP = 64 * 1024;
const COALESCE_MAX = 16 * 1024 * 1024;

/** 0, 1, 2, …: the member order when members are already in shard order (grown on demand). */
const IDENTITY: number[] = [0, 1, 2, 3, 4, 5, 6, 7];

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

function inShardOrder(members: readonly TaridxMember[]): boolean {
  for (let i = 1; i < members.length; i++) {
    const a = members[i - 1];
    const b = members[i];
    if (a.fid > b.fid || (a.fid === b.fid && a.offset > b.offset)) return false;
  }
  return true;
}

/** What a read hands out: `out`, less the holes where extended headers were left out. */
function membersOut(run: MemberRead): MemberData[] {
  return run.skipped === 0 ? run.out : run.out.filter((m) => m !== undefined);
}

/** The reader's sample reads: its verifier, its reusable buffer (`reuse: true`) and one request object. */
export class SampleReads {
  /** The reusable buffer: a sample's runs share it, the next `reuse` read overwrites it. */
  private scratch = new Uint8Array(0);
  private scratchUsed = 0;
  /**
   * One request object for every read while the shards answer synchronously (nothing is
   * allocated per read). A source that answers later may still look at its request, so after
   * such a read the next ones get a fresh object.
   */
  private request: ReadRequest = {};

  constructor(
    private readonly verifier: MemberVerifier,
    private readonly shards: ShardLookup,
  ) {}

  /**
   * The members' payloads (extended headers left out unless asked for), in the order given.
   * Synchronous when every shard involved is open and answers synchronously; errors of the
   * synchronous part are thrown, those of a later part reject.
   */
  read(
    members: readonly TaridxMember[],
    options: ReadMemberOptions,
    sample: TaridxSample | undefined,
  ): Awaitable<MemberData[]> {
    return this.runs(this.start(members, options, sample));
  }

  /** The verifier's check of one header against its member, for a sample (streaming checks it so). */
  verifyHeader(block: Uint8Array, member: TaridxMember, file: string, sample?: TaridxSample): void {
    this.verifier.verify(block, 0, member, file, this.start([], { verify: true }, sample));
  }

  private start(
    members: readonly TaridxMember[],
    options: ReadMemberOptions,
    sample: TaridxSample | undefined,
  ): MemberRead {
    checkWholeReadable(members, (m) => this.shards.shardName((m as TaridxMember).fid));
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

  /** Reads the runs from `run.i` on: synchronously while shards answer so, then in `then`. */
  private runs(run: MemberRead): Awaitable<MemberData[]> {
    const { members, order } = run;
    while (run.i < members.length) {
      const got = this.shards.shard(members[order[run.i]].fid);
      if (got instanceof Promise) return got.then(() => this.runs(run));
      const bytes = this.readRun(run, got);
      if (bytes instanceof Promise)
        return bytes.then((b) => {
          this.fillRun(run, got, b);
          return this.runs(run);
        });
      this.fillRun(run, got, bytes);
    }
    return membersOut(run);
  }

  /** The bytes of the run at `run.i` (planned here): fresh slab memory, or the reused buffer. */
  private readRun(run: MemberRead, source: ByteSource): Awaitable<Uint8Array> {
    const head = run.members[run.order[run.i]];
    const length = this.plan(run, source);
    const target = run.options.reuse ? this.reusable(length, run.i === 0) : take(length);
    const request = this.request;
    request.into = target;
    request.signal = run.options.signal;
    const got = source.read(head.offset, length, request);
    if (!(got instanceof Promise)) return filled(source, head.offset, got, target);
    this.request = {};
    return got.then((bytes) => filled(source, head.offset, bytes, target));
  }

  /** `length` bytes of the reusable buffer; `first` starts a new sample. */
  private reusable(length: number, first: boolean): Uint8Array {
    if (first) this.scratchUsed = 0;
    if (this.scratchUsed + length > this.scratch.byteLength) {
      // Earlier runs of this sample keep the old buffer; later samples use the new one.
      this.scratch = new Uint8Array(Math.max(1 << 20, 2 * (this.scratchUsed + length)));
      this.scratchUsed = 0;
    }
    const out = new Uint8Array(this.scratch.buffer, this.scratchUsed, length);
    this.scratchUsed += length;
    return out;
  }

  /** Members [i, j) that one read of `source` covers; returns that read's length (range checked). */
  private plan(run: MemberRead, source: ByteSource): number {
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
}

/** `target` holding the bytes read at `offset` (`got`), or Truncated if fewer came. */
function filled(source: ByteSource, offset: number, got: Uint8Array, target: Uint8Array): Uint8Array {
  if (got.byteLength !== target.byteLength)
    throw fail('Truncated', `got ${got.byteLength} of ${target.byteLength} bytes`, offset, source.name);
  if (got !== target) target.set(got);
  return target;
}
