export type { DataSpill, FieldSpec, MldfWriterOptions, SampleInput } from './write.js';
export { MldfWriter, MemorySpill, writeMldf } from './write.js';
export type {
  AllocEntry,
  ImageValue,
  IterateOptions,
  MldfOpenOptions,
  MldfSample,
  MldfValue,
  NdArray,
  SampleOptions,
  ValueInfo,
} from './values.js';
export { MldfLazyText, MldfReader } from './read.js';
export type { FieldType, MldfField, MldfHeader, MldfLayout, NdArrayLayout, NdDtype } from './layout.js';
export { MLDF_MAGIC, mldfFormat } from './magic.js';
export { mldfPlugin, openMldf, validateMldf } from './plugin.js';
export { inspectMldf } from './inspect.js';
export type { MldfChecksums, MldfRegion } from './checksum.js';
export { storedChecksums, verifyMldfChecksums } from './checksum.js';
