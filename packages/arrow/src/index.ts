/** @binscope/arrow: records of any format to Arrow IPC, and Arrow IPC read lazily. Browser-safe. */
export {
  ARROW_MAGIC,
  arrowConverters,
  arrowFormat,
  arrowFormats,
  arrowsFormat,
  recordsToArrowConverter,
  recordsToArrowsConverter,
} from './magic.js';
export { arrowFileConverter, arrowStreamConverter, encodePng } from './export.js';
export { BatchBuilder, DEFAULT_BATCH_BYTES, DEFAULT_BATCH_ROWS } from './batches.js';
export { arrowField, arrowType, type ExportSchema, exportSchema, JSON_EXTENSION } from './schema-out.js';
export { SinkWriter } from './ipc-writer.js';
export { arrowPlugin, arrowsPlugin } from './plugin.js';
export { ArrowReader } from './read.js';
export { coreField, coreSchema } from './schema-in.js';
