import {
  type ByteSource,
  type ContentField,
  definePlugin,
  fileTarget,
  type OpenOptions,
  type Summary,
  typeName,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { chunkRange, type ParquetLayout, parseLayout } from './footer.js';
import { parquetTree } from './inspect.js';
import { parquetFormat } from './magic.js';
import { compressorsFor, decodeError, ParquetReader, parquetRecords } from './read.js';
import { FIELDS_KEY } from './write-schema.js';

const { load: _load, ...info } = parquetFormat;

function summarize(reader: ParquetReader): Summary {
  const { metadata } = reader;
  const codecs = new Set(metadata.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data?.codec ?? '?')));
  const kv = (metadata.key_value_metadata ?? []).filter((e) => e.key !== FIELDS_KEY);
  return {
    format: parquetFormat.id,
    title: parquetFormat.title,
    version: String(metadata.version),
    counts: {
      rows: reader.rows,
      columns: reader.schema.fields.length,
      rowGroups: metadata.row_groups.length,
    },
    properties: [
      ['rows', reader.rows],
      ['columns', reader.schema.fields.length],
      [
        'schema',
        reader.schema.fields.map((f) => `${f.name}: ${f.metadata?.type ?? typeName(f.type)}`).join(', '),
      ],
      ['row groups', metadata.row_groups.length],
      ['compression', [...codecs].join(', ') || 'none'],
      ['created by', metadata.created_by ?? null],
      ['file size', reader.source.size],
      ['footer', `${reader.layout.footer?.length} bytes at ${reader.layout.footer?.offset}`],
    ],
    details: {
      schema: reader.schema.fields.map((f) => ({
        name: f.name,
        type: typeName(f.type),
        parquet: f.metadata?.type ?? null,
      })),
      rowGroups: metadata.row_groups.map((g) => ({
        rows: Number(g.num_rows),
        bytes: Number(g.total_compressed_size ?? g.total_byte_size),
      })),
      keyValueMetadata: kv.map((e) => ({ key: e.key, value: e.value ?? null })),
    },
  };
}

/** What `diff` compares: the schema, the row count and the footer's key-value entries; row groups are layout. */
function contentFields(reader: ParquetReader): ContentField[] {
  const fields: ContentField[] = [{ path: 'counts.rows', value: reader.rows }];
  reader.schema.fields.forEach((f, i) => {
    fields.push({ path: `schema.fields[${i}].name`, value: f.name });
    fields.push({ path: `schema.fields[${i}].type`, value: f.metadata?.type ?? typeName(f.type) });
    fields.push({ path: `schema.fields[${i}].nullable`, value: f.nullable === true });
  });
  for (const e of reader.metadata.key_value_metadata ?? [])
    fields.push({ path: `metadata.${e.key}`, value: e.value ?? null });
  fields.push({ path: 'rowGroups', value: reader.metadata.row_groups.length, layout: true });
  return fields;
}

/** Validate and inspect: every row group decodes (one at a time, so memory holds one group). */
async function decodeAll(
  layout: ParquetLayout,
  options: ValidateOptions,
  reader: ParquetReader,
): Promise<void> {
  for (let g = 0; g < reader.groupStarts.length - 1; g++) {
    try {
      const rows = await reader.readRows(
        g,
        reader.groupStarts[g],
        reader.groupStarts[g + 1],
        undefined,
        options,
      );
      for (const row of rows) for (const plan of reader.columns) plan.convert(row[plan.field.name]);
    } catch (error) {
      throw decodeError(error, layout, g);
    }
    options.onProgress?.({
      phase: 'row groups',
      done: g + 1,
      total: reader.groupStarts.length - 1,
      unit: 'items',
    });
  }
}

async function openReader(layout: ParquetLayout): Promise<ParquetReader> {
  const metadata = layout.metadata!;
  return new ParquetReader({ ...layout, metadata }, await compressorsFor(metadata));
}

/**
 * The Parquet plugin: one parse (magic, footer, the row groups' ranges) in core's three
 * modes; validate and inspect also decode every row group. Records are read a row group at a
 * time through the byte source: `info` reads the footer alone.
 */
export const parquetPlugin = definePlugin<ParquetLayout, ParquetReader, 'file'>({
  ...info,
  kind: 'file',
  parse: (input, problems, options) => parseLayout(input.source, problems, options),
  reader: (layout) => openReader(layout),
  async deepChecks(layout, _input, problems, options) {
    if (!layout.metadata || problems.hasErrors()) return;
    await problems.attempt(async () => decodeAll(layout, options, await openReader(layout)));
  },
  tree: (layout) => parquetTree(layout),
  info: async (reader) => summarize(reader),
  inspect: async (reader) => parquetTree(reader.layout),
  records: parquetRecords,
  contentFields: async (reader) => contentFields(reader),
  async locateRecord(reader, index) {
    if (!Number.isSafeInteger(index) || index < 0 || index >= reader.rows) return [];
    const group = reader.metadata.row_groups[reader.groupOf(index)];
    // A row's values are spread over its group's column chunks (page offsets need the page index).
    return group.columns.flatMap((c) => {
      if (!c.meta_data) return [];
      const { start, end } = chunkRange(c.meta_data);
      return [{ offset: start, length: end - start, field: c.meta_data.path_in_schema[0] }];
    });
  },
});

/** Opens a Parquet file lazily: reads its footer (and nothing of its data) and checks it. */
export function openParquet(source: ByteSource, options: OpenOptions = {}): Promise<ParquetReader> {
  return parquetPlugin.open(fileTarget(source), options);
}

/** Every defect of a Parquet file (the footer, every row group decoded). Never throws for bad input. */
export function validateParquet(
  source: ByteSource,
  options: ValidateOptions = {},
): Promise<ValidationReport> {
  return parquetPlugin.validate(fileTarget(source), options);
}
