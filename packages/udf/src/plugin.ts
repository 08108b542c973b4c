import {
  definePlugin,
  FormatError,
  isFormatError,
  type JsonRecord,
  type JsonValue,
  type RecordOptions,
  type Summary,
  type Target,
  toJsonValue,
  unparsedResult,
  type ValidationReport,
} from '@binscope/core';
import { udfContentFields, udfLocateTable } from './content.js';
import { inspectUdf } from './inspect.js';
import { inspectUdfTarget } from './inspect-target.js';
import { udfFormat } from './magic.js';
import { UdfDataset } from './dataset.js';
import type { TableInfo } from './descriptor.js';
import { FORMAT_ID } from './problems.js';
import { UdfReader, type UnloadedDataset } from './read.js';
import { validateUdf } from './validate.js';

/** Tables with more elements than this show their first values only in records. */
const RECORD_VALUE_LIMIT = 65_536;
const RECORD_HEAD = 64;
/** info() details list at most this many datasets. */
const DETAIL_DATASETS = 1_000;

function fileSource(target: Target) {
  if (target.kind !== 'file') {
    throw new FormatError('BadMagic', 'UDF is a single file, not a directory', { format: FORMAT_ID });
  }
  return target.source;
}

function tableSummary(t: TableInfo): JsonValue {
  return {
    name: t.name,
    prim: t.prim,
    dims: t.dims,
    hint: t.hint,
    shape: t.shape,
    data_size: t.dataSize,
    index_name: t.indexName,
    related_name: t.relatedName,
    type_name: t.typeName,
  };
}

/** One table as a JSON record: its type and its decoded content (A5 JSON conventions). */
export async function tableRecord(dataset: UdfDataset, info: TableInfo): Promise<JsonRecord> {
  const out: JsonRecord = {
    dataset: dataset.fileOffset.offset,
    dataset_id: dataset.id,
    table: info.name,
    prim: info.prim,
    dims: info.dims,
    hint: info.hint,
    shape: info.shape,
  };
  if (info.typeName !== null) out.type_name = info.typeName;
  if (info.indexName !== null) out.index_name = info.indexName;
  if (info.relatedName !== null) out.related_name = info.relatedName;
  const sliceable = info.prim !== 'custom' && info.hint !== 'text' && info.hint !== 'dataset';
  if (sliceable && info.elementCount > RECORD_VALUE_LIMIT) {
    out.values_head = toJsonValue(await dataset.readValues(info, 0, RECORD_HEAD));
    out.truncated = true;
    return out;
  }
  const table = await dataset.read(info);
  if (table.text !== undefined) out.text = table.text;
  else if (table.json !== undefined) out.json = table.json as JsonValue;
  else if (table.fileOffsets)
    out.file_offsets = table.fileOffsets.map((f) => ({ offset: f.offset, size: f.size }));
  else if (table.values) out.values = toJsonValue(table.values);
  else out.bytes = table.bytes.byteLength;
  return out;
}

/**
 * A table that breaks a rule, as a record: its type and the error instead of its content, so
 * one bad table never hides the others (U15). Other failures (I/O) still end the listing.
 */
async function tableRecordOrError(dataset: UdfDataset, info: TableInfo): Promise<JsonRecord> {
  try {
    return await tableRecord(dataset, info);
  } catch (error) {
    if (!isFormatError(error)) throw error;
    return {
      dataset: dataset.fileOffset.offset,
      dataset_id: dataset.id,
      table: info.name,
      prim: info.prim,
      dims: info.dims,
      hint: info.hint,
      shape: info.shape,
      error: { code: error.code, message: error.detail, offset: error.offset ?? null },
    };
  }
}

/** A dataset a DATASET table points at that cannot be loaded: where it is referenced, and why. */
function unloadedRecord(unloaded: UnloadedDataset): JsonRecord {
  const { ref, error } = unloaded;
  return {
    dataset: ref.at.offset,
    dataset_size: ref.at.size,
    referenced_at: ref.from,
    error: { code: error.code, message: error.detail, offset: error.offset ?? null },
  };
}

function notAFile(): ValidationReport {
  return {
    valid: false,
    errors: [{ code: 'BadMagic', message: 'UDF is a single file, not a directory', format: FORMAT_ID }],
    warnings: [],
  };
}

export const udfPlugin = definePlugin<UdfReader>({
  ...udfFormat,

  async open(target, options) {
    return UdfReader.open(fileSource(target), options);
  },

  async info(reader): Promise<Summary> {
    const h = reader.header;
    let datasets = 0;
    let tables = 0;
    const details: JsonValue[] = [];
    for await (const d of reader.walkReporting()) {
      if (!(d instanceof UdfDataset)) {
        // A child that cannot be loaded is listed with its error; the summary goes on (U15).
        if (details.length < DETAIL_DATASETS) {
          const { code, detail } = d.error;
          details.push({ offset: d.ref.at.offset, size: d.ref.at.size, error: `${code}: ${detail}` });
        }
        continue;
      }
      datasets++;
      tables += d.tables.length;
      if (details.length < DETAIL_DATASETS) {
        details.push({
          offset: d.fileOffset.offset,
          size: d.fileOffset.size,
          id: d.id,
          tables: d.tables.map(tableSummary),
        });
      }
    }
    return {
      format: FORMAT_ID,
      title: udfFormat.title,
      version: h.magic,
      counts: { datasets, tables },
      properties: [
        ['file id', h.id],
        ['root', h.root ? { offset: h.root.offset, size: h.root.size } : null],
        ['datasets', datasets],
        ['tables', tables],
        ['file size', reader.source.size],
      ],
      details: { datasets: details, datasets_listed: details.length },
    };
  },

  inspect: (reader, options) => inspectUdf(reader, options),

  async inspectTarget(target, options) {
    if (target.kind !== 'file') {
      const report = notAFile();
      return unparsedResult(target.directory.name, 0, report);
    }
    return inspectUdfTarget(target.source, options);
  },

  async validate(target, options) {
    if (target.kind !== 'file') return notAFile();
    return validateUdf(target.source, options);
  },

  /** One record per table, datasets in walk order (U7), tables in descriptor order. */
  async *records(reader, options: RecordOptions = {}) {
    const skip = options.offset ?? 0;
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const only = options.columns ? new Set(options.columns) : undefined;
    let index = 0;
    let emitted = 0;
    for await (const dataset of reader.walkReporting()) {
      if (!(dataset instanceof UdfDataset)) {
        if (only || index++ < skip) continue;
        if (emitted >= limit) return;
        emitted++;
        yield unloadedRecord(dataset);
        continue;
      }
      for (const info of dataset.tables) {
        if (only && !only.has(info.name)) continue;
        if (index++ < skip) continue;
        if (emitted >= limit) return;
        emitted++;
        yield await tableRecordOrError(dataset, info);
      }
    }
  },

  // Where a table's dataset sits and the offsets a DATASET table holds are layout: `diff`
  // compares the walk positions they point at (contentFields' refs) unless asked for layout.
  layoutFields: ['dataset', 'file_offsets', 'dataset_size', 'referenced_at'],
  contentFields: (reader) => udfContentFields(reader),
  locateRecord: (reader, index) => udfLocateTable(reader, index),
});
