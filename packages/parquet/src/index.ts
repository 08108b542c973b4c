export { parquetExport, parquetFolderExport } from './export.js';
export {
  parquetConverters,
  parquetFormat,
  recordsToParquetConverter,
  tablesToParquetConverter,
} from './magic.js';
export { ROW_GROUP_BYTES, ROW_GROUP_ROWS, writeParquet } from './write.js';
export { openParquet, parquetPlugin, validateParquet } from './plugin.js';
export { ParquetReader } from './read.js';
