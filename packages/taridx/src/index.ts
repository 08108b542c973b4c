/** @binscope/taridx: random access to tar-shard samples through a .taridx index. Browser-safe. */
export { type IndexOptions, type IndexResult, indexShards, type ShardInput } from './indexer.js';
export type { TaridxHeader, TaridxRow } from './layout.js';
export { taridxFormat } from './magic.js';
export { taridxPlugin } from './plugin.js';
export {
  type ListMembersOptions,
  type MemberData,
  type OpenTaridxOptions,
  openTaridx,
  type ReadMemberOptions,
  type StreamMemberOptions,
  type TarMemberInfo,
  type TaridxMember,
  TaridxReader,
  type TaridxSample,
} from './read.js';
export { MAX_MEMBER_BYTES, STREAM_CHUNK } from './member-stream.js';
export { listShards, ShardSet } from './shards.js';
export {
  indexShardRange,
  type MergeResult,
  mergeIndexes,
  type PartialIndexResult,
  type PartialRange,
  parseShardRange,
  type ShardRange,
} from './partial.js';
export { validateTaridx } from './validate.js';
export { encodeTaridx, type PackedRows, TaridxBuilder, type TaridxContent } from './write.js';
