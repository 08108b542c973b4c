import {
  type DataRecord,
  type FormatPlugin,
  type JsonValue,
  type RecordOptions,
  type Summary,
  toJsonValue,
} from '@binscope/core';
import { scdlContentFields, scdlLocateRow } from './content.js';
import { inspectScdl, inspectScdlTarget } from './inspect.js';
import { scdlFormat } from './magic.js';
import { openScdl, type ScdlReader } from './read.js';
import { archiveDirectory, validateScdl } from './validate.js';

async function info(reader: ScdlReader): Promise<Summary> {
  const varIndex = reader.varIndex;
  const obsIndex = reader.obsIndex;
  const counts: Record<string, number> = {
    rows: reader.numRows,
    nnz: reader.nnz,
    arrays: reader.header.arrays.length,
    featureIndices: reader.header.featureIndices.length,
  };
  if (varIndex && varIndex.blockCount > 0) counts.columns = await reader.numColumns();
  const properties: Array<[string, JsonValue]> = [
    ['schema version', reader.version],
    ['rows', reader.numRows],
    ['non-zeros', reader.nnz],
    ['density', reader.numRows && counts.columns ? reader.nnz / (reader.numRows * counts.columns) : null],
    ['data dtype', reader.data.dtype],
    ['row_ptr dtype', reader.rowPtr.dtype],
    ['col_ptr dtype', reader.colPtr.dtype],
    ['var blocks', varIndex?.blockCount ?? 0],
    ['obs blocks', obsIndex?.blockCount ?? 0],
    ['files', reader.files.length],
  ];
  if (reader.warnings.length) properties.push(['warnings', reader.warnings.map((w) => w.message)]);
  const details: { [key: string]: JsonValue } = {
    arrays: reader.header.arrays.map((a) => ({ name: a.name, length: a.length, dtype: a.dtype })),
    featureIndices: reader.header.featureIndices.map((f) => ({
      name: f.name,
      length: f.length,
      files: f.files,
    })),
  };
  for (const [key, index] of [
    ['var', varIndex],
    ['obs', obsIndex],
  ] as const) {
    if (!index) continue;
    const blocks: JsonValue[] = [];
    for (let b = 0; b < index.blockCount; b++) {
      const block = index.block(b);
      blocks.push({
        label: block.label ?? null,
        start: block.start,
        end: block.end,
        columns: await index.columns(b).catch(() => []),
      });
    }
    details[key] = blocks;
  }
  return { format: 'scdl', title: scdlFormat.title, version: reader.version, counts, properties, details };
}

/** Rows as `{row, indices, values}` (the CLI's JSON Lines shape), read in batches. */
async function* records(reader: ScdlReader, options: RecordOptions = {}): AsyncGenerator<DataRecord> {
  const start = Math.max(0, options.offset ?? 0);
  const end = Math.min(reader.numRows, options.limit === undefined ? reader.numRows : start + options.limit);
  if (start >= end) return;
  for await (const batch of reader.batches({ start, end, signal: options.signal, batchBytes: 1 << 20 })) {
    const count = batch.indptr.length - 1;
    for (let k = 0; k < count; k++) {
      const row = batch.row(k);
      const index = batch.start + k;
      yield {
        index,
        values: { row: index, indices: toJsonValue(row.indices), values: toJsonValue(row.values) },
      };
    }
  }
}

// Written out (not core's definePlugin): SCDL's own open/validate/inspectTarget stay until its
// full v2 migration gives it the one parse.
export const scdlPlugin: FormatPlugin<ScdlReader> = {
  ...scdlFormat,
  open: (target, options) => openScdl(archiveDirectory(target), options),
  info,
  inspect: (reader, options) => inspectScdl(reader, options),
  inspectTarget: inspectScdlTarget,
  validate: validateScdl,
  records,
  contentFields: (reader, options) => scdlContentFields(reader, options),
  locateRecord: (reader, index, options) => scdlLocateRow(reader, index, options),
};
