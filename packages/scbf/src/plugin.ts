import {
  type ByteSource,
  definePlugin,
  fileTarget,
  type OpenOptions,
  type Summary,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { scbfContentFields } from './content.js';
import { scbfToCsvChunks } from './csv.js';
import { withExtensions } from './extensions-info.js';
import { inspectParse, inspectScbf } from './inspect.js';
import { scbfFormat } from './magic.js';
import { readFooterState, ScbfReader } from './read.js';
import { scbfColumns, scbfLocateRow, scbfRecords } from './records.js';
import { checkScbf, parseScbf, type ScbfParse } from './validate.js';

function summarize(reader: ScbfReader): Summary {
  const { header, columns, source } = reader;
  let compressed = 0;
  let uncompressed = 0;
  for (const column of columns) {
    for (const block of column.blocks) {
      compressed += block.compressedSize;
      uncompressed += block.uncompressedSize;
    }
  }
  return {
    format: scbfFormat.id,
    title: scbfFormat.title,
    version: 'SCBFv1',
    counts: { rows: header.totalRows, columns: columns.length },
    properties: [
      ['version', 'SCBFv1'],
      ['rows', header.totalRows],
      ['columns', columns.length],
      ['schema', columns.map((c) => `${c.name}: ${c.type}`).join(', ')],
      ['file size', source.size],
      ['compressed column data', compressed],
      ['uncompressed column data', uncompressed],
    ],
    details: {
      schema: columns.map((c) => ({
        name: c.name,
        type: c.type,
        compressedBytes: c.blocks.reduce((s, b) => s + b.compressedSize, 0),
        uncompressedBytes: c.blocks.reduce((s, b) => s + b.uncompressedSize, 0),
      })),
      schemaJson: header.schemaJson,
      metaTableOffset: header.metaTableOffset,
    },
  };
}

const { load: _load, ...info } = scbfFormat;

/**
 * The SCBF plugin: one parse (header and metadata table) in core's three modes, the payload
 * and footer checks of validate and inspect, the tree, and the reader's verbs. Capabilities:
 * `where` pushed down (statistics skip blocks), the S8 CSV dialect, a sample.
 */
export const scbfPlugin = definePlugin<ScbfParse, ScbfReader, 'file'>({
  ...info,
  kind: 'file',
  parse: parseScbf,
  // The footer is read once, here: the schema needs it (nulls, dictionaries).
  reader: async (parsed, _input, options) =>
    new ScbfReader(parsed.layout!, await readFooterState(parsed.layout!, options)),
  deepChecks: (parsed, _input, problems, options) => checkScbf(parsed, problems, options),
  tree: (parsed) => inspectParse(parsed),
  info: async (reader) => withExtensions(summarize(reader), reader),
  // The footer is drawn when it parses; a broken one is validate's (and inspectTarget's) to report.
  inspect: async (reader) => inspectScbf(reader, reader.footer.extensions),
  records: scbfRecords,
  contentFields: async (reader) => scbfContentFields(reader),
  locateRecord: async (reader, index) => scbfLocateRow(reader, index),
  capabilities: {
    filter: true,
    columns: scbfColumns,
    // The S8 dialect, the same chunks the SCBF → CSV converter writes.
    csv: (reader, options = {}) =>
      scbfToCsvChunks(reader, {
        columns: options.columns,
        offset: options.offset,
        limit: options.limit,
        signal: options.signal,
      }),
    // Loaded when asked: the sample goes through the CSV converter, which readers never need.
    sample: async (out, options) => (await import('./sample.js')).writeScbfSample(out, options),
  },
});

/**
 * Opens an SCBF file lazily: reads the header, the column metadata table and the extension
 * footer, and checks them (S1, S2, S5's counts and sizes, block bounds). Throws the first
 * defect as a FormatError. Column data is read per column, on request. Closing the reader
 * leaves `source` open: it is the caller's.
 */
export function openScbf(source: ByteSource, options: OpenOptions = {}): Promise<ScbfReader> {
  return scbfPlugin.open(fileTarget(source), options);
}

/**
 * Every S-rule, each defect with its taxonomy class and byte offset, first defect first in
 * A2's order. Never throws for bad input.
 */
export function validateScbf(source: ByteSource, options: ValidateOptions = {}): Promise<ValidationReport> {
  return scbfPlugin.validate(fileTarget(source), options);
}
