/** @binscope/taridx: random access to tar-shard samples through a .taridx index. Browser-safe. */
export { type IndexOptions, type IndexResult, indexShards, type ShardInput } from './indexer.js';
export type { TaridxHeader, TaridxRow } from './layout.js';
export { taridxConverters, tarShardFormat, tarToTaridxConverter, taridxFormat } from './magic.js';
export { MAX_MEMBER_BYTES, STREAM_CHUNK } from './member-stream.js';
export {
  indexShardRange,
  type MergeResult,
  mergeIndexes,
  type PartialIndexResult,
  type PartialRange,
  parseShardRange,
  type ShardRange,
} from './partial.js';
export { openTaridx, taridxPlugin, validateTaridx } from './plugin.js';
export {
  type ListMembersOptions,
  type MemberData,
  type OpenTaridxOptions,
  type ReadMemberOptions,
  type StreamMemberOptions,
  type TarMemberInfo,
  type TaridxMember,
  TaridxReader,
  type TaridxSample,
} from './read.js';
export { mediaTypeOf, SAMPLES_TABLE } from './schema.js';
export { listShards, ShardSet } from './shards.js';
export { encodeTaridx, type PackedRows, type TaridxContent } from './encode.js';
export { TaridxBuilder } from './write.js';
