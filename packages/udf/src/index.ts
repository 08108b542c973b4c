export { inspectUdf } from './inspect.js';
export { udfFormat } from './magic.js';
export { udfPlugin } from './plugin.js';
export {
  type DatasetHeader,
  type DatasetRef,
  type NameEntry,
  openUdf,
  type TableInfo,
  UdfDataset,
  type UdfFileHeader,
  type UdfOpenOptions,
  UdfReader,
  type UdfTable,
  type UnloadedDataset,
} from './read.js';
export { type FileOffset, type Hint, hashName, type Prim } from './types.js';
export { validateUdf } from './validate.js';
export {
  type DatasetOptions,
  type TableSpec,
  type TextEncoding,
  UdfBuilder,
  type UdfBuilderOptions,
  UdfDatasetBuilder,
} from './write.js';
