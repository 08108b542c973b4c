export { scdlFormat, scdlHeaderFile, scdlNearMiss } from './magic.js';
export { scdlPlugin } from './plugin.js';
export {
  openScdl,
  ScdlReader,
  FeatureIndex,
  type FeatureValue,
  type IndexArray,
  type NeighborGraphReader,
  type ObsRecord,
  type RowBatch,
  type ScdlOpenOptions,
  type SparseRow,
  type VarFeatures,
} from './read.js';
export type { FeatureBlockInfo, FeatureTable } from './features.js';
export {
  type ArchiveSink,
  type ArchiveStream,
  type CsrChunk,
  type CsrMatrix,
  denseToCsr,
  type FeatureBlock,
  type FeatureColumn,
  type FeatureColumnType,
  type FeatureIndices,
  type FeatureValues,
  type IntegerArrayLike,
  MemoryArchiveSink,
  type NeighborGraph,
  type NumericArrayLike,
  type ScdlDataDType,
  type ScdlIndexDType,
  ScdlWriter,
  type ScdlWriteOptions,
  type ScdlWriteResult,
  smallestUnsignedDType,
  writeScdl,
  writeScdlToMemory,
} from './write.js';
export {
  PACKAGE_VERSION,
  arrayFile,
  parseHeader,
  SCHEMA_VERSION,
  type ArrayDescriptor,
  type FeatureIndexDescriptor,
  type ScdlDType,
  type ScdlHeader,
  serializeHeader,
} from './header.js';
export { validateScdl } from './validate.js';
export { inspectScdl } from './inspect.js';
