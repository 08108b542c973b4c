import {
  type Awaitable,
  type ByteSource,
  checkRange,
  type ReadOptions,
  type ReadRequest,
  readExact,
} from '@binscope/core';
import { FORMAT, fail, TAR_BLOCK } from './layout.js';

/**
 * Members too big to hand out as one Uint8Array. A tar member can be any size (T6 allows
 * 64-bit sizes); a typed array cannot (4 GiB in Node 20, less in browsers), and holding a
 * 1.5 GB image to copy it to a file is not what anyone asked for.
 */

/**
 * Largest member `readMember`, `readSample` and `get` return whole: 1 GiB. Bigger members
 * raise UnsupportedFeature; `streamMember` and the plugin's `valueSource` read any size.
 */
export const MAX_MEMBER_BYTES = 1 << 30;
/** Default chunk of `streamMember`. */
export const STREAM_CHUNK = 4 << 20;

export interface StreamChunkOptions extends ReadOptions {
  /** Bytes per chunk (default 4 MiB): memory use is one chunk, whatever the member's size. */
  chunkSize?: number;
}

/** Where a member's payload is: what streaming needs of a row. */
export interface PayloadLocation {
  row: number;
  offset: number;
  size: number;
}

/** Throws UnsupportedFeature for the first member over MAX_MEMBER_BYTES. */
export function checkWholeReadable(
  members: readonly PayloadLocation[],
  file: (m: PayloadLocation) => string,
): void {
  for (const m of members) {
    if (m.size > MAX_MEMBER_BYTES) {
      throw fail(
        'UnsupportedFeature',
        `row ${m.row}: member of ${m.size} bytes is larger than the ${MAX_MEMBER_BYTES} bytes read in one piece; read it in chunks with reader.streamMember(member)`,
        m.offset,
        file(m),
      );
    }
  }
}

/** The payload `size` bytes at offset + 512, one range-checked read per chunk, each read when asked for. */
export async function* payloadChunks(
  source: ByteSource,
  member: PayloadLocation,
  options: StreamChunkOptions = {},
): AsyncGenerator<Uint8Array> {
  const chunkSize = options.chunkSize ?? STREAM_CHUNK;
  if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0 || chunkSize > MAX_MEMBER_BYTES)
    throw new RangeError(`chunkSize must be an integer in 1..${MAX_MEMBER_BYTES}, got ${chunkSize}`);
  const start = member.offset + TAR_BLOCK;
  const what = `payload of row ${member.row} (shard ${source.name})`;
  checkRange(source, start, member.size, { format: FORMAT, what });
  for (let done = 0; done < member.size; ) {
    const length = Math.min(chunkSize, member.size - done);
    yield await readExact(source, start + done, length, { format: FORMAT, what, signal: options.signal });
    done += length;
  }
}

/**
 * A member's payload as a ByteSource: byte `i` of it is byte `offset + 512 + i` of its shard.
 * Nothing is held: each read goes to the shard (with the caller's request, so `into` and
 * synchronous answers pass through), so a caller streams a member of any size in pieces.
 * Closing it leaves the shard open: the shard is its reader's.
 */
export class MemberSource implements ByteSource {
  readonly size: number;
  private readonly start: number;

  constructor(
    private readonly shard: ByteSource,
    member: PayloadLocation,
    readonly name: string,
  ) {
    this.start = member.offset + TAR_BLOCK;
    this.size = member.size;
    checkRange(shard, this.start, member.size, {
      format: FORMAT,
      what: `payload of row ${member.row} (shard ${shard.name})`,
    });
  }

  read(offset: number, length: number, request?: ReadRequest): Awaitable<Uint8Array> {
    const start = Math.min(Math.max(0, offset), this.size);
    const end = Math.min(this.size, start + Math.max(0, length));
    return this.shard.read(this.start + start, end - start, request);
  }

  async close(): Promise<void> {}
}
