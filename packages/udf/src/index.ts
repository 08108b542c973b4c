export { inspectUdf } from './inspect.js';
export { udfFormat } from './magic.js';
export { openUdf, udfPlugin, validateUdf } from './plugin.js';
export { UdfDataset } from './dataset.js';
export type { DatasetHeader, NameEntry } from './dataset-header.js';
export type { UdfTable } from './decode.js';
export type { TableInfo } from './descriptor.js';
export type { UdfFileHeader } from './header.js';
export { type UdfOpenOptions, UdfReader, type UnloadedDataset } from './read.js';
export { catalogueSchema, tableSchema } from './schema.js';
export type { DatasetRef, DatasetWalk } from './walk.js';
export { type FileOffset, type Hint, hashName, type Prim } from './types.js';
export {
  type DatasetOptions,
  type TableSpec,
  type TextEncoding,
  UdfBuilder,
  type UdfBuilderOptions,
  UdfDatasetBuilder,
} from './write.js';
