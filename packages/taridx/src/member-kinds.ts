import { type Awaitable, type ByteSource, type ReadOptions, readExact } from '@binscope/core';
import { FORMAT, fail, TAR_BLOCK } from './layout.js';
import type { TaridxMember } from './reader-types.js';
import { isExtendedHeader } from './tar.js';

/** Members of one sample closer than this in a shard share one read (sources without sync reads). */
const SPAN_GAP = 64 * 1024;

/**
 * Which rows are tar extended headers (PAX `x`/`g`, GNU `L`/`K`). The index records every
 * header block as a row (T2, as upstream's indexer does), so a PAX shard's `././@PaxHeader`
 * blocks form a sample of their own and GNU tar's `PaxHeaders/<name>` blocks sit beside the
 * member they describe, with its stem and extension. Only the header says which is which:
 * each row's 512-byte header is read once, and the answer kept (one byte per row, allocated
 * on first use).
 */
export class RowKinds {
  /** 0 unknown, 1 member, 2 extended header. */
  private kinds?: Uint8Array;
  /** Where header blocks are read on the synchronous path (one at a time, never kept). */
  private readonly block = new Uint8Array(TAR_BLOCK);
  /**
   * Shards seen to answer synchronously. Learnt from the first read of each (a span): a probe
   * would cost remote shards a request of its own.
   */
  private readonly synchronous = new WeakSet<ByteSource>();

  constructor(private readonly rowCount: number) {}

  /** `members` without extended headers, reading the headers not seen yet. */
  async members(
    members: readonly TaridxMember[],
    shard: (fid: number) => Awaitable<ByteSource>,
    options: ReadOptions = {},
  ): Promise<TaridxMember[]> {
    this.kinds ??= new Uint8Array(this.rowCount);
    const kinds = this.kinds;
    for (let i = 0; i < members.length; ) {
      const m = members[i];
      if (kinds[m.row] !== 0) {
        i++;
        continue;
      }
      const got = shard(m.fid);
      const source = got instanceof Promise ? await got : got;
      if (this.synchronous.has(source)) {
        // Local files and memory: one 512-byte read per header, no payload bytes.
        const got = readExact(source, m.offset, TAR_BLOCK, {
          into: this.block,
          signal: options.signal,
          format: FORMAT,
          what: `tar header of row ${m.row}`,
        });
        kinds[m.row] = isExtendedHeader(got instanceof Promise ? await got : got, 0) ? 2 : 1;
        i++;
      } else {
        i = await this.readSpan(members, i, source, options);
      }
    }
    return members.filter((m) => kinds[m.row] === 1);
  }

  /**
   * The headers of the sample's nearby members in one read: where every read is a round trip
   * (HTTP, object stores, Blobs), and the first read of any shard. Returns the index after the
   * members it covered.
   */
  private async readSpan(
    members: readonly TaridxMember[],
    first: number,
    source: ByteSource,
    options: ReadOptions,
  ): Promise<number> {
    const kinds = this.kinds!;
    const start = members[first].offset;
    let end = start + TAR_BLOCK;
    let j = first + 1;
    for (; j < members.length; j++) {
      const m = members[j];
      // A header past the shard's end is left to its own read, so a cut shard's error names it.
      if (m.fid !== members[first].fid || m.offset < end || m.offset - end > SPAN_GAP) break;
      if (m.offset + TAR_BLOCK > source.size) break;
      end = m.offset + TAR_BLOCK;
    }
    const row = members[first].row;
    const got = readExact(source, start, end - start, {
      signal: options.signal,
      format: FORMAT,
      what: j === first + 1 ? `tar header of row ${row}` : `tar headers of rows ${row}–${members[j - 1].row}`,
    });
    if (!(got instanceof Promise)) this.synchronous.add(source);
    const bytes = got instanceof Promise ? await got : got;
    for (let k = first; k < j; k++)
      kinds[members[k].row] = isExtendedHeader(bytes, members[k].offset - start) ? 2 : 1;
    return j;
  }
}

/** The error for asking for an extended header's payload as if it were a member. */
export function notAMember(member: TaridxMember, file: string, typeflag?: string) {
  const what = typeflag === undefined ? '' : ` (typeflag ${typeflag})`;
  return fail(
    'InvalidValue',
    `row ${member.row} is a tar extended header${what}, not a member; pass { extendedHeaders: true } to read it`,
    member.offset,
    file,
  );
}
