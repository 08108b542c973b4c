import { zlibName as zlibBackend } from '#zlib';

export {
  csvToScbfConverter,
  recordsToScbfConverter,
  SCBF_MAGIC,
  scbfConverters,
  scbfFormat,
  scbfToCsvConverter,
} from './magic.js';
export { openScbf, scbfPlugin, validateScbf } from './plugin.js';
export {
  type CellValue,
  type ColumnValues,
  type FooterState,
  type RangeOptions,
  type Row,
  type RowOptions,
  type ScbfBatch,
  ScbfReader,
} from './read.js';
export type { BlockRole, ScbfBlock, ScbfColumn, ScbfHeader, ScbfSchemaColumn, ScbfType } from './layout.js';
export { Utf8Column } from './utf8.js';
export { inspectScbf } from './inspect.js';
export {
  type ColumnInput,
  columnsFromRows,
  encodeScbf,
  schemaJson,
  type WriteOptions,
  writeScbf,
} from './write.js';
export {
  cellText,
  csvField,
  csvLine,
  inferCellType,
  inferColumnType,
  scbfToCsvChunks,
  TypeInference,
} from './csv.js';
export { isCanonicalFloat, isCanonicalInt32, pyFloatRepr, pyJsonDumps } from './python.js';

/** The zlib this build inflates with: 'node:zlib' under Node, 'pako' elsewhere (package.json `imports`). */
export const zlibName: string = zlibBackend;
export type { ColumnStatistics } from './statistics.js';
export type { ScbfExtensions } from './extensions.js';
export { encodeFooter, FOOTER_MAGIC, readExtensions } from './extensions.js';
export {
  type ExtensionChoice,
  extensionsOf,
  scbfExtensionFooter,
  statisticsOf,
  verifyBlockChecksums,
} from './extend.js';
export { type RewriteChoice, writeExtended, writeRewritten } from './rewrite.js';
export { isNullAt, nullableColumns, nullBitmaps, splitNulls } from './nulls.js';
export { applyCells, type CellExtensions, cellExtensions } from './cells.js';
export {
  decodeCodes,
  type Dictionaries,
  dictionaryColumns,
  dictionaryRange,
  plainColumns,
} from './dictionary.js';
