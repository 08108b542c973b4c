export { scdlFormat, scdlHeaderFile, scdlNearMiss } from './magic.js';
export { openScdl, scdlPlugin, validateScdl } from './plugin.js';
export {
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
  type CsrChunk,
  type CsrMatrix,
  denseToCsr,
  type FeatureBlock,
  type FeatureColumn,
  type FeatureColumnType,
  type FeatureIndices,
  type FeatureValues,
  type IntegerArrayLike,
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
export { inspectScdl } from './inspect.js';
