import {
  ANY_FORMAT,
  type ConverterInfo,
  DETECTION_SCORE,
  type LazyFormat,
  type OptionSpec,
} from '@binscope/core';

/**
 * Arrow IPC as data, for detection and for the app's format and converter lists: this entry
 * (`@binscope/arrow/magic`) imports no parser and no apache-arrow; `load` brings them in.
 */

/** `ARROW1`: the IPC file magic, at the start (padded to 8 bytes) and at the very end. */
export const ARROW_MAGIC = 'ARROW1';

/** The Arrow IPC file format (random access: a footer lists every record batch). */
export const arrowFormat: LazyFormat = {
  specificationVersion: 2,
  id: 'arrow',
  title: 'Apache Arrow IPC file',
  kind: 'file',
  role: 'format',
  extensions: ['arrow', 'feather'],
  mimeTypes: ['application/vnd.apache.arrow.file'],
  magic: [{ offset: 0, bytes: ARROW_MAGIC }],
  load: () => import('./plugin.js').then((m) => m.arrowPlugin),
};

/** Bytes 0-3 of every message of a current IPC stream: the continuation marker 0xFFFFFFFF. */
const CONTINUATION = 0xffffffff;

/**
 * An IPC stream has no magic: it starts with the continuation marker, a metadata length and a
 * flatbuffer Message. This checks what can be checked without a flatbuffer parser (a sane,
 * 8-aligned length and a root offset inside the metadata), and answers below any real
 * signature so a stream never shadows a format that has one.
 */
function looksLikeStream(head: Uint8Array): boolean {
  if (head.length < 16) return false;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint32(0, true) !== CONTINUATION) return false;
  const length = view.getInt32(4, true);
  if (length < 8 || length % 8 !== 0 || length > 1 << 26) return false;
  const root = view.getUint32(8, true);
  return root >= 4 && root < length;
}

/** The Arrow IPC stream format (read forward; `.arrows`, or a pipe). */
export const arrowsFormat: LazyFormat = {
  specificationVersion: 2,
  id: 'arrows',
  title: 'Apache Arrow IPC stream',
  kind: 'file',
  role: 'format',
  extensions: ['arrows'],
  mimeTypes: ['application/vnd.apache.arrow.stream'],
  magic: [],
  async detect(target, head) {
    if (target.kind !== 'file') return 0;
    return looksLikeStream(head) ? DETECTION_SCORE.partialMagic / 2 : 0;
  },
  load: () => import('./plugin.js').then((m) => m.arrowsPlugin),
};

/** The options every export of records declares (named as @binscope/parquet names them). */
const EXPORT_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'table',
    type: 'string',
    valueName: 'NAME',
    description: "the table to export (default: the file's primary table, else its main records)",
  },
  {
    name: 'indexOnly',
    type: 'boolean',
    description: 'export the main records even when a primary table holds the data (a TARIDX index)',
  },
  {
    name: 'images',
    type: 'string',
    choices: ['struct', 'png'],
    description: 'images as a struct of height, width, channels, pixels (default) or as PNG bytes',
  },
  {
    name: 'batchRows',
    type: 'number',
    description: 'most rows per record batch (default 65,536; a batch also ends near 64 MiB)',
  },
];

/** Records of any format → an Arrow IPC file. */
export const recordsToArrowConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'records-to-arrow',
  from: ANY_FORMAT,
  to: 'arrow',
  title: 'records → Arrow IPC file',
  output: 'file',
  extensions: ['arrow', 'feather'],
  options: EXPORT_OPTIONS,
  load: () => import('./export.js').then((m) => m.arrowFileConverter),
};

/** Records of any format → an Arrow IPC stream (what `--to arrows` writes to `-`, stdout). */
export const recordsToArrowsConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'records-to-arrows',
  from: ANY_FORMAT,
  to: 'arrows',
  title: 'records → Arrow IPC stream',
  output: 'file',
  extensions: ['arrows'],
  options: EXPORT_OPTIONS,
  load: () => import('./export.js').then((m) => m.arrowStreamConverter),
};

export const arrowFormats: readonly LazyFormat[] = [arrowFormat, arrowsFormat];
export const arrowConverters: readonly ConverterInfo[] = [recordsToArrowConverter, recordsToArrowsConverter];
