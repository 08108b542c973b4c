import {
  type ContentField,
  type ColumnBatch,
  type DataRecord,
  definePlugin,
  type FormatPlugin,
  type LazyFormat,
  type ProblemList,
  type RecordOptions,
  type Summary,
  type TargetOf,
  typeName,
  withLocation,
} from '@binscope/core';
import { layoutTree } from './inspect.js';
import { type ArrowLayout, emptyLayout, parseFile, parseStream } from './layout.js';
import { arrowFormat, arrowsFormat } from './magic.js';
import { ArrowReader } from './read.js';

/**
 * One parse for each of the two IPC framings. Validate and inspect modes keep what was found
 * before a break (the tree of a cut file still shows its magic, schema and batches).
 */
async function parse(
  kind: 'file' | 'stream',
  input: TargetOf<'file'>,
  problems: ProblemList,
): Promise<ArrowLayout> {
  const layout = emptyLayout(kind, input.source);
  layout.problems = problems;
  try {
    await (kind === 'file' ? parseFile(layout, problems) : parseStream(layout, problems));
  } catch (error) {
    if (problems.mode === 'read') throw error;
    problems.capture(error);
  }
  return layout;
}

/** Validate and inspect modes: every batch and dictionary read and decoded, each on its own. */
async function deepChecks(format: string, layout: ArrowLayout, problems: ProblemList): Promise<void> {
  if (!layout.schema || problems.hasErrors()) return;
  const reader = new ArrowReader(format, layout, problems);
  for (let i = 0; i < reader.batchCount; i++)
    await problems.attempt(() => reader.batch(i, problems), { scope: `record batch ${i}` });
}

async function summarize(format: LazyFormat, reader: ArrowReader): Promise<Summary> {
  const rows = await reader.rowCount();
  const { layout } = reader;
  return {
    format: format.id,
    title: format.title,
    counts: { rows, columns: reader.schema.fields.length, batches: reader.batchCount },
    properties: [
      ['rows', rows],
      ['columns', reader.schema.fields.length],
      ['record batches', reader.batchCount],
      ['dictionary batches', layout.dictionaries.length],
      ['file size', layout.source.size],
    ],
    details: {
      schema: reader.arrowSchema.fields.map((f) => ({
        name: f.name,
        type: String(f.type),
        nullable: f.nullable,
        ...(f.metadata.size ? { metadata: Object.fromEntries(f.metadata) } : {}),
      })),
    },
  };
}

async function contentFields(reader: ArrowReader): Promise<ContentField[]> {
  const fields: ContentField[] = reader.schema.fields.map((f, i) => ({
    path: `schema.fields[${i}]`,
    value: { name: f.name, type: f.metadata?.type ?? typeName(f.type), nullable: f.nullable === true },
  }));
  fields.push({ path: 'counts.rows', value: await reader.rowCount() });
  fields.push({ path: 'counts.batches', value: reader.batchCount, layout: true });
  return fields;
}

async function* records(reader: ArrowReader, options: RecordOptions = {}): AsyncGenerator<DataRecord> {
  if (options.table !== undefined)
    throw new RangeError(`${reader.name}: an Arrow file has its records only, no table "${options.table}"`);
  try {
    yield* reader.records(options);
  } catch (error) {
    throw withLocation(error, { file: reader.name, format: reader.format });
  }
}

/** The records as column runs (`capabilities.columns`): one a record batch. */
async function columns(
  reader: ArrowReader,
  options: RecordOptions = {},
): Promise<AsyncIterable<ColumnBatch> | undefined> {
  if (options.table !== undefined || options.where || options.locations) return undefined;
  return located(reader, reader.columnRuns(options));
}

/** Errors of a run as records() names them: with the file and format. */
async function* located(reader: ArrowReader, runs: AsyncIterable<ColumnBatch>): AsyncGenerator<ColumnBatch> {
  try {
    yield* runs;
  } catch (error) {
    throw withLocation(error, { file: reader.name, format: reader.format });
  }
}

function arrowPluginOf(format: LazyFormat, kind: 'file' | 'stream'): FormatPlugin<ArrowReader> {
  const { load: _load, detect: _detect, ...info } = format;
  return definePlugin<ArrowLayout, ArrowReader, 'file'>({
    ...info,
    kind: 'file',
    parse: (input, problems) => parse(kind, input, problems),
    reader: (layout, _input) =>
      new ArrowReader(format.id, layout, (layout.problems as ProblemList).fork({ mode: 'read' })),
    deepChecks: (layout, _input, problems) => deepChecks(format.id, layout, problems),
    tree: (layout) => layoutTree(layout),
    inspect: async (reader) => layoutTree(reader.layout),
    info: (reader) => summarize(format, reader),
    records,
    contentFields,
    capabilities: { columns },
    locateRecord: async (reader, index) => {
      const at = await reader.locate(index);
      return at ? [{ offset: at.offset, length: at.metaLength + at.bodyLength }] : [];
    },
  });
}

/** Arrow IPC files (`.arrow`, `.feather` v2): the footer read at open, batches on demand. */
export const arrowPlugin = arrowPluginOf(arrowFormat, 'file');
/** Arrow IPC streams (`.arrows`): every message's metadata read at open, batches on demand. */
export const arrowsPlugin = arrowPluginOf(arrowsFormat, 'stream');
