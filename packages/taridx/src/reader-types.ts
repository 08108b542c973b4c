import type { ByteSource, DirectorySource, ReadOptions } from '@binscope/core';
import type { StreamChunkOptions } from './member-stream.js';

/** The public shapes of the reader: what it is opened with and what it hands out. */

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
  /** Stream a tar extended header's payload too (else, with `verify`, it is an error). */
  extendedHeaders?: boolean;
}

export interface ListMembersOptions extends ReadOptions {
  /** Only these extensions. */
  ext?: string | readonly string[];
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
  /**
   * Also hand out tar extended headers (typeflag `x`, `g`, `L`, `K`: PAX records, GNU long
   * names) that the index records as rows, as upstream's indexer does (T2). Default false:
   * they are never members, and are left out (their header comes in the same read anyway).
   */
  extendedHeaders?: boolean;
}
