export {
  type AsyncPositionalSource,
  canReadAhead,
  ReadAhead,
  type ReadAheadOptions,
} from './ahead.js';
export {
  type Awaitable,
  BlobSource,
  type ByteSource,
  CountingSource,
  checkRange,
  MemorySource,
  type ReadExactOptions,
  type ReadOptions,
  readExact,
  readAwaitable,
  readExactSync,
  readIntoAwaitable,
  throwIfAborted,
} from './bytes.js';
export {
  Cursor,
  type CursorOptions,
  decodeUtf8,
  float16ToNumber,
  encodeFloat16,
  numberToFloat16,
  readU64,
  readU64Big,
  readU64Exact,
} from './cursor.js';
export {
  basename,
  type DirectorySource,
  dirname,
  FileListDirectory,
  MemoryDirectory,
  SubDirectory,
} from './directory.js';
export {
  DTYPE_SIZE,
  type DType,
  maxUnsigned,
  type NumericArray,
  TYPED_ARRAY,
  toTypedArray,
  typedArrayBytes,
} from './dtype.js';
export {
  ERROR_CODES,
  type ErrorCode,
  type ErrorFactory,
  type Finding,
  type FindingWhere,
  FormatError,
  formatErrors,
  isFormatError,
  isSourceError,
  type ParseMode,
  Phase,
  type PhaseRank,
  type Problem,
  ProblemList,
  type ProblemLocation,
  SourceError,
  toFormatError,
  type ValidationReport,
  withLocation,
} from './errors.js';
export { appendAll, maxOf, minOf } from './collections.js';
export { crc32 } from './crc32.js';
export { type CoalescingOptions, CoalescingSource, RequestPool, remoteReads } from './coalesce.js';
export { ForwardReadSource, type ForwardReadsOptions } from './forward.js';
export { fromHex, hexDump, toHex } from './hex.js';
export { HttpSource, type HttpSourceOptions } from './http.js';
export { HttpDirectory, S3Directory } from './remote-directory.js';
export { isHttpUrl, isS3Url, parseS3Url, S3Client, type S3Location, type S3Settings } from './s3.js';
export { S3DirectorySink, type S3DirectorySinkOptions } from './s3-directory-sink.js';
export {
  abortMultipartUpload,
  listMultipartUploads,
  type UnfinishedUpload,
  type WriteRequestOptions,
} from './s3-multipart.js';
export { S3Upload, type S3UploadOptions } from './s3-upload.js';
export {
  type InspectNode,
  type InspectResult,
  inspectResult,
  type LazyChildren,
  type LocatedProblem,
  markProblem,
  node,
  nodesAt,
  type PlainInspectNode,
  toPlainTree,
  unparsedResult,
  walk,
} from './inspect.js';
export {
  int64String,
  type JsonValue,
  MAX_JSON_DEPTH,
  parseBoundedJson,
  toJsonValue,
} from './json.js';
export {
  type AnyFormatPlugin,
  type ByteLocation,
  type ContentField,
  definePlugin,
  directoryTarget,
  type FormatInfo,
  type FormatPlugin,
  type FormatReader,
  fileTarget,
  inspectByOpening,
  type JsonRecord,
  type MagicSignature,
  type OpenOptions,
  type PluginDefinition,
  type ProgressCallback,
  type ProgressEvent,
  type RecordOptions,
  type Summary,
  type Target,
  type ValidateOptions,
} from './plugin.js';
export { nextTurn, pacer } from './pace.js';
export { percentProgress } from './progress.js';
export { clampScore, DETECTION_SCORE, magicScore, nearMissScore } from './detection-score.js';
export {
  type Candidate,
  createRegistry,
  type Detection,
  HEAD_WINDOW,
  matchesMagic,
  type NearMiss,
  nearMisses,
  rankByMagic,
  isRegistryError,
  type LazyFormat,
  type Registry,
  type RegistryEntry,
  RegistryError,
  type RegistryErrorCode,
  SPECIFICATION_VERSIONS,
  TAR_SHARD,
} from './registry.js';
export { alignUp, type ByteSink, concatBytes, MemorySink } from './sink.js';
