import {
  definePlugin,
  isFormatError,
  type ReadOptions,
  type JsonRecord,
  type RecordOptions,
  SourceError,
  type Summary,
  type Target,
  toJsonValue,
} from '@binscope/core';
import { scbfContentFields, scbfLocateRow } from './content.js';
import { scbfToCsvChunks } from './csv.js';
import { inspectScbf } from './inspect.js';
import { inspectScbfTarget } from './inspect-target.js';
import { extensionsOf } from './extend.js';
import { scbfFormat } from './magic.js';
import { openScbf, type ScbfReader } from './read.js';
import { validateScbf } from './validate.js';
import { applyCells, cellExtensions } from './cells.js';
import { withExtensions } from './extensions-info.js';

function fileSource(target: Target) {
  if (target.kind !== 'file') throw new SourceError('SCBF is a single file, not a directory');
  return target.source;
}

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

async function* records(reader: ScbfReader, options: RecordOptions = {}): AsyncGenerator<JsonRecord> {
  const floats = new Set(reader.columns.filter((c) => c.type === 'float64').map((c) => c.name));
  const cells = await cellExtensions(reader);
  let index = Math.max(0, options.offset ?? 0);
  for await (const row of reader.rows({
    columns: options.columns,
    offset: options.offset,
    limit: options.limit,
    signal: options.signal,
  })) {
    if (floats.size)
      for (const name of floats) if (name in row) row[name] = toJsonValue(row[name]) as number | string;
    const record: JsonRecord = row;
    if (cells.any) applyCells(record, reader, cells, index);
    index++;
    yield record;
  }
}

async function footerIfReadable(reader: ScbfReader, options?: ReadOptions) {
  try {
    return await extensionsOf(reader, [], options);
  } catch (error) {
    if (isFormatError(error)) return undefined;
    throw error;
  }
}

/** The SCBF plugin for the core registry (CLI, web page). */
export const scbfPlugin = definePlugin<ScbfReader>({
  ...scbfFormat,
  open: (target, options) => openScbf(fileSource(target), options),
  info: async (reader) => withExtensions(summarize(reader), reader),
  // The footer is drawn when it parses; a broken one is validate's (and inspectTarget's) to report.
  inspect: async (reader, options) => inspectScbf(reader, await footerIfReadable(reader, options)),
  inspectTarget: (target, options) => inspectScbfTarget(fileSource(target), options),
  validate: (target, options) => validateScbf(fileSource(target), options),
  records,
  // The S8 dialect, the same chunks scbfToCsv writes to a file.
  csv: (reader, options = {}) =>
    scbfToCsvChunks(reader, {
      columns: options.columns,
      offset: options.offset,
      limit: options.limit,
      signal: options.signal,
    }),
  contentFields: async (reader) => scbfContentFields(reader),
  locateRecord: async (reader, index) => scbfLocateRow(reader, index),
});
