import type { ByteLocation, ColumnBatch, DataRecord, RecordOptions, Value } from '@binscope/core';
import { applyCells, cellExtensions } from './cells.js';
import type { ScbfReader } from './read.js';
import { Utf8Column } from './utf8.js';
import { excludedBy } from './where.js';

/**
 * Where row `index` is stored: in each column's compressed block(s), one location per
 * column (its strings block for utf8), named by the column. A row has no byte range of its
 * own inside a deflate stream, so the block holding it is the finest honest answer.
 */
export function scbfLocateRow(reader: ScbfReader, index: number): ByteLocation[] {
  if (!Number.isSafeInteger(index) || index < 0 || index >= reader.rowCount) return [];
  const file = reader.source.name;
  return reader.columns.map((c) => {
    const block = c.blocks[c.blocks.length - 1];
    return { offset: block.offset, length: block.compressedSize, file, field: c.name };
  });
}

/** Each column's location, as scbfLocateRow gives it: the same for every row. */
function columnLocations(reader: ScbfReader): Record<string, readonly ByteLocation[]> {
  const out: Record<string, ByteLocation[]> = {};
  for (const location of scbfLocateRow(reader, 0)) out[location.field!] = [location];
  return out;
}

/**
 * The rows as DataRecords of `reader.schema`: int32 and float64 as numbers (NaN, ±Infinity
 * and -0 as they are), utf8 as strings, null where the footer's bitmap says so, a dictionary
 * column's codes as its strings. Values hold the columns asked for, in that order. With
 * `where` (core's parseWhere against `reader.schema`; the plugin declares capabilities.filter),
 * only matching rows, `offset`/`limit` counting matches, and nothing read at all when the
 * statistics exclude a condition (`onSkip` is told why).
 */
export async function* scbfRecords(
  reader: ScbfReader,
  options: RecordOptions = {},
): AsyncGenerator<DataRecord> {
  if (options.table !== undefined)
    throw new RangeError(`${reader.source.name}: SCBF has one table of rows, not "${options.table}"`);
  const cells = await cellExtensions(reader);
  const locations = options.locations ? columnLocations(reader) : undefined;
  const located = (values: Record<string, Value>) => {
    if (!locations) return undefined;
    const out: Record<string, readonly ByteLocation[]> = {};
    for (const name in values) out[name] = locations[name];
    return out;
  };
  const where = options.where;
  if (!where) {
    let index = Math.max(0, options.offset ?? 0);
    for await (const row of reader.rows(options)) {
      if (cells.any) applyCells(row, reader, cells, index);
      yield { index: index++, values: row, locations: located(row) };
    }
    return;
  }
  const reason = excludedBy(reader, where.conditions);
  if (reason !== undefined) {
    options.onSkip?.({ fields: reader.columnNames, reason });
    return;
  }
  const wanted = options.columns ?? reader.columnNames;
  const needed = [...new Set([...wanted, ...where.fields])];
  let skip = Math.max(0, options.offset ?? 0);
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  if (left <= 0) return;
  let index = -1;
  for await (const row of reader.rows({ columns: needed, signal: options.signal })) {
    index++;
    if (cells.any) applyCells(row, reader, cells, index);
    if (!where.matchesValues(row)) continue;
    if (skip > 0) {
      skip--;
      continue;
    }
    const values: Record<string, Value> = {};
    for (const name of wanted) values[name] = row[name];
    yield { index, values, locations: located(values) };
    if (--left <= 0) return;
  }
}

/**
 * The rows as runs of columns (`capabilities.columns`): each decoded batch's int32 and float64
 * arrays as they are, a utf8 column's strings as an array. Only for a file whose cells are
 * their values (no null bitmap or dictionary in the footer) and a read without `where`;
 * otherwise undefined, and records() is the way.
 */
export async function scbfColumns(
  reader: ScbfReader,
  options: RecordOptions = {},
): Promise<AsyncIterable<ColumnBatch> | undefined> {
  if (options.table !== undefined || options.where || options.locations) return undefined;
  if ((await cellExtensions(reader)).any) return undefined;
  return columnRuns(reader, options);
}

async function* columnRuns(reader: ScbfReader, options: RecordOptions): AsyncGenerator<ColumnBatch> {
  for await (const batch of reader.batches(options)) {
    const columns: Record<string, ArrayLike<Value>> = {};
    for (let c = 0; c < batch.columns.length; c++) {
      const values = batch.values[c];
      columns[batch.columns[c].name] = values instanceof Utf8Column ? values.toArray() : values;
    }
    yield { offset: batch.start, rows: batch.length, columns };
  }
}
