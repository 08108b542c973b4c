/**
 * @binscope/core: the contract. Plugin and converter types, the registry, errors, the
 * inspection tree, schemas, values and records, byte sources and the few helpers every format
 * needs. Binary helpers are in `@binscope/core/binary`, remote sources in `/http` and `/s3`,
 * local files in `/node`.
 */
export {
  type Awaitable,
  BlobSource,
  type ByteSource,
  CountingSource,
  checkRange,
  copyInto,
  MemorySource,
  type ReadExactOptions,
  type ReadOptions,
  type ReadRequest,
  readExact,
  throwIfAborted,
} from './bytes.js';
export {
  type ComparedFile,
  type CompareOptions,
  type Comparison,
  compareContent,
  type Difference,
  type DifferenceLocation,
  type DifferenceSide,
} from './compare.js';
export {
  ANY_FORMAT,
  chooseRecords,
  type Converter,
  type ConverterInfo,
  type ConvertInput,
  type ConvertOptions,
  type ConvertOutput,
  type ConvertReport,
  type OptionSpec,
  type OptionValues,
  problemError,
  type RecordsChoice,
  type RecordsInput,
  recordsInput,
  runConverter,
  type StreamInput,
} from './convert.js';
export {
  type TabularField,
  type TabularOptions,
  type TabularType,
  type TabularValue,
  tabularField,
  tabularType,
  tabularValue,
} from './tabular.js';
export { definePlugin, type PluginDefinition, type TargetOf } from './define-plugin.js';
export { clampScore, DETECTION_SCORE, magicScore, nearMissScore } from './detection-score.js';
export {
  basename,
  type DirectorySource,
  dirname,
  FileListDirectory,
  MemoryDirectory,
  SubDirectory,
} from './directory.js';
export type { DType, NumericArray } from './dtype.js';
export {
  BinscopeError,
  type BinscopeErrorOf,
  type BinscopeErrorTag,
  ERROR_CODES,
  type ErrorCode,
  type ErrorFactory,
  type Finding,
  type FindingWhere,
  FormatError,
  formatErrors,
  isBinscopeError,
  type ParseMode,
  Phase,
  type PhaseRank,
  plainProblem,
  type Problem,
  ProblemList,
  type ProblemLocation,
  RegistryError,
  type RegistryErrorCode,
  SourceError,
  type SourceErrorDetails,
  type SourceErrorReason,
  toFormatError,
  type ValidationReport,
  WhereSyntaxError,
  withLocation,
} from './errors.js';
export {
  type InspectNode,
  type InspectResult,
  inspectResult,
  type LazyChildren,
  type LocatedProblem,
  markProblem,
  markProblems,
  node,
  nodesAlong,
  nodesAt,
  type PlainInspectNode,
  toPlainTree,
  unparsedResult,
  walk,
} from './inspect.js';
export {
  int64String,
  jsonLine,
  jsonSourceOf,
  type JsonValue,
  MAX_JSON_DEPTH,
  parseBoundedJson,
  toJsonValue,
  withJsonSource,
} from './json.js';
export {
  type AnyFormatPlugin,
  type ContentField,
  directoryTarget,
  type FormatInfo,
  type FormatPlugin,
  type FormatReader,
  type FormatRole,
  fileTarget,
  type LazyFormat,
  type MagicSignature,
  type OpenOptions,
  type PluginCapabilities,
  type ProgressCallback,
  type ProgressEvent,
  type RecordOptions,
  SPECIFICATION_VERSION,
  type Summary,
  type Target,
  type ValidateOptions,
} from './plugin.js';
export { nextTurn, pacer } from './pace.js';
export { percentProgress } from './progress.js';
export {
  cellText,
  type JsonRecord,
  recordCells,
  recordToJson,
  valueToJson,
} from './record-json.js';
export {
  type Candidate,
  createRegistry,
  type Detection,
  HEAD_WINDOW,
  matchesMagic,
  type NearMiss,
  nearMisses,
  rankByMagic,
  type Registry,
  type RegistryEntry,
} from './registry.js';
export {
  type ByteLocation,
  type ColumnBatch,
  type DataRecord,
  type Field,
  fieldsByName,
  fieldTypeName,
  type ImageValue,
  type LogicalType,
  type NdArrayValue,
  type Schema,
  type TableInfo,
  typeName,
  type Value,
} from './schema.js';
export { memoryScratch, type Scratch, type ScratchFile } from './scratch.js';
export type { ByteSink, DirectorySink } from './sink.js';
export { compareValue, parseWhere, type RowFilter, type WhereCondition, type WhereOp } from './where.js';
export {
  CsvShapeError,
  csvField,
  printableJson,
  RECORD_TEXT_FORMATS,
  type RecordTextFormat,
  recordJsonText,
  recordTextLines,
} from './record-text.js';
