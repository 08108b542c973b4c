import type { ByteSource, ReadOptions } from '@binscope/core';
import { fail } from './layout.js';
import { readHeaderBlock } from './member-header.js';
import type { TaridxMember } from './reader-types.js';
import { isExtendedHeader } from './tar.js';

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

  constructor(private readonly rowCount: number) {}

  /** `members` without extended headers, reading the headers not seen yet. */
  async members(
    members: readonly TaridxMember[],
    shard: (fid: number) => ByteSource | Promise<ByteSource>,
    options: ReadOptions = {},
  ): Promise<TaridxMember[]> {
    this.kinds ??= new Uint8Array(this.rowCount);
    const kinds = this.kinds;
    const out: TaridxMember[] = [];
    for (const m of members) {
      if (kinds[m.row] === 0) {
        const source = await shard(m.fid);
        const block = await readHeaderBlock(source, m, options);
        kinds[m.row] = isExtendedHeader(block, 0) ? 2 : 1;
      }
      if (kinds[m.row] === 1) out.push(m);
    }
    return out;
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
