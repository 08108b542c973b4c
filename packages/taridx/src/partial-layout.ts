import { H, HEADER_SIZE } from './layout.js';

/**
 * A partial index (what `indexShardRange` writes for `mergeIndexes`) is a structurally valid
 * .taridx with two differences from a whole one:
 * - its crash table lists every distinct stem, in order of first appearance, and each row's
 *   crashid names its stem there (a whole index lists only stems that collide with an
 *   earlier one): a merge must know whether equal hashes in two partials are one stem or two;
 * - the header's 7 reserved bytes (which readers ignore) say which shards it covers:
 *   byte 57 'P', then u16 first fid, u16 last fid, u16 shard count − 1, little-endian.
 * Its fids are the fold's own (shard `first` has fid `first`), so merging keeps rows as they are.
 */
export interface PartialRange {
  /** First shard covered (its fid in the whole fold). */
  first: number;
  /** Last shard covered, inclusive. */
  last: number;
  /** Shards in the whole fold. */
  total: number;
}

export const PARTIAL_MARK = 0x50; // 'P'

export function markPartial(out: Uint8Array, range: PartialRange): void {
  const view = new DataView(out.buffer, out.byteOffset, HEADER_SIZE);
  out[H.reserved] = PARTIAL_MARK;
  view.setUint16(H.reserved + 1, range.first, true);
  view.setUint16(H.reserved + 3, range.last, true);
  view.setUint16(H.reserved + 5, range.total - 1, true);
}

/** The range a partial index's header states (from its 7 reserved bytes), or undefined for a whole index. */
export function partialRange(reserved: Uint8Array): PartialRange | undefined {
  if (reserved.byteLength < HEADER_SIZE - H.reserved || reserved[0] !== PARTIAL_MARK) return undefined;
  const view = new DataView(reserved.buffer, reserved.byteOffset, reserved.byteLength);
  return {
    first: view.getUint16(1, true),
    last: view.getUint16(3, true),
    total: view.getUint16(5, true) + 1,
  };
}
