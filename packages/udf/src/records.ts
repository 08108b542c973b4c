import {
  type ByteLocation,
  type ColumnBatch,
  type DataRecord,
  type FormatError,
  isBinscopeError,
  type JsonValue,
  type ReadOptions,
  type RecordOptions,
  type Value,
} from '@binscope/core';
import { UdfDataset } from './dataset.js';
import type { TableInfo } from './descriptor.js';
import type { UdfReader, UnloadedDataset } from './read.js';
import { rowCount } from './schema.js';
import { findTable, rowLocation, tableColumns, tableRows } from './tables.js';
import {
  DATA_SHAPE,
  INDEX_NAME,
  KEY_NAME,
  RELATED_NAME,
  STATIC_HEADER_SIZE,
  TYPE_INFO,
  TYPE_NAME,
} from './types.js';

/** Tables with more elements than this show their first values only in the catalogue. */
const RECORD_VALUE_LIMIT = 65_536;
const RECORD_HEAD = 64;

/** The catalogue's fields that hold a table's content: all stored in the table's data. */
const CONTENT = ['values', 'values_head', 'truncated', 'text', 'json', 'file_offsets', 'bytes'];

/** The fields every record of a table carries, the error stand-in's too. */
function tableHead(dataset: UdfDataset, info: TableInfo): Record<string, Value> {
  return {
    dataset: dataset.fileOffset.offset,
    dataset_id: dataset.id,
    table: info.name,
    prim: info.prim,
    dims: info.dims,
    hint: info.hint,
    shape: info.shape,
  };
}

/** One table as a catalogue record's values: its type and its decoded content. */
async function tableValues(
  dataset: UdfDataset,
  info: TableInfo,
  options: ReadOptions,
): Promise<Record<string, Value>> {
  const out = tableHead(dataset, info);
  if (info.typeName !== null) out.type_name = info.typeName;
  if (info.indexName !== null) out.index_name = info.indexName;
  if (info.relatedName !== null) out.related_name = info.relatedName;
  const sliceable = info.prim !== 'custom' && info.hint !== 'text' && info.hint !== 'dataset';
  if (sliceable && info.elementCount > RECORD_VALUE_LIMIT) {
    out.values_head = Array.from(
      (await dataset.readValues(info, 0, RECORD_HEAD, options)) as ArrayLike<number>,
    );
    out.truncated = true;
    return out;
  }
  const table = await dataset.read(info, options);
  if (table.text !== undefined) out.text = table.text;
  else if (table.json !== undefined) out.json = table.json as JsonValue;
  else if (table.fileOffsets)
    out.file_offsets = table.fileOffsets.map((f) => ({ offset: f.offset, size: f.size }));
  else if (table.values) out.values = Array.from(table.values as ArrayLike<number>);
  else out.bytes = table.bytes.byteLength;
  return out;
}

/**
 * Where a table's catalogue record is stored: the table's data (its content), then its
 * descriptor fields by the record keys they hold, then its dataset's static header.
 */
function tableLocations(dataset: UdfDataset, info: TableInfo): ByteLocation[] {
  const file = dataset.reader.source.name;
  const desc = info.descriptorOffset;
  const field = (name: string, offset: number, length: number): ByteLocation => ({
    offset: desc + offset,
    length,
    file,
    field: name,
  });
  const header = { offset: dataset.fileOffset.offset, length: STATIC_HEADER_SIZE, file };
  return [
    { offset: info.dataOffset, length: info.dataSize, file },
    field('table', KEY_NAME, 4),
    field('prim', TYPE_INFO, 2),
    field('dims', TYPE_INFO, 2),
    field('hint', TYPE_INFO, 2),
    field('shape', DATA_SHAPE, 8),
    field('index_name', INDEX_NAME, 4),
    field('related_name', RELATED_NAME, 4),
    field('type_name', TYPE_NAME, 4),
    { ...header, field: 'dataset_id' },
    { ...header, field: 'dataset' },
  ];
}

/** Where a dataset that cannot be loaded is referenced: the FileOffset its record's values come from. */
function unloadedLocations({ ref }: UnloadedDataset, file: string): ByteLocation[] {
  return [
    { offset: ref.from, length: 8, file, field: 'dataset' },
    { offset: ref.from + 8, length: 8, file, field: 'dataset_size' },
    { offset: ref.from, length: 16, file, field: 'referenced_at' },
  ];
}

/** A record's locations by field, for the fields it holds: the same places locateRecord gives. */
function locationsByField(list: readonly ByteLocation[], values: DataRecord['values']) {
  const out: Record<string, ByteLocation[]> = {};
  for (const location of list) {
    const names = location.field === undefined ? CONTENT : [location.field];
    for (const name of names) if (values[name] !== undefined) (out[name] ??= []).push(location);
  }
  return out;
}

/** `values` with only the fields asked for, in the order asked. */
function pick(values: Record<string, Value>, columns: readonly string[] | undefined): Record<string, Value> {
  if (!columns) return values;
  const out: Record<string, Value> = {};
  for (const name of columns) if (values[name] !== undefined) out[name] = values[name];
  return out;
}

/**
 * One catalogue record per table, datasets in walk order (U7), tables in descriptor order. A
 * table that breaks a rule is a record of its type with `error` (its problem), and a dataset
 * that cannot be loaded one with where it is referenced: one bad table never hides the others
 * (U15). Other failures (I/O) end the listing.
 */
async function* catalogue(reader: UdfReader, options: RecordOptions): AsyncGenerator<DataRecord> {
  const skip = Math.max(0, options.offset ?? 0);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const file = reader.source.name;
  let index = 0;
  let emitted = 0;
  const make = (values: Record<string, Value>, where: () => ByteLocation[], problem?: FormatError) => {
    const picked = pick(values, options.columns);
    const record: { -readonly [K in keyof DataRecord]: DataRecord[K] } = { index: index - 1, values: picked };
    if (options.locations) record.locations = locationsByField(where(), picked);
    if (problem) record.problem = problem.toProblem();
    return record;
  };
  for await (const dataset of reader.walkReporting()) {
    const tables = dataset instanceof UdfDataset ? dataset.tables : [undefined];
    for (const info of tables) {
      if (index++ < skip) continue;
      if (emitted++ >= limit) return;
      if (!(dataset instanceof UdfDataset)) {
        const { ref, error } = dataset;
        const values = { dataset: ref.at.offset, dataset_size: ref.at.size, referenced_at: ref.from };
        yield make(values, () => unloadedLocations(dataset, file), error);
        continue;
      }
      const where = () => tableLocations(dataset, info!);
      let values: Record<string, Value>;
      try {
        values = await tableValues(dataset, info!, options);
      } catch (error) {
        if (!isBinscopeError(error, 'FormatError')) throw error;
        yield make(tableHead(dataset, info!), where, error);
        continue;
      }
      yield make(values, where);
    }
  }
}

/**
 * The records of a UDF file: without `table`, the catalogue (`catalogueSchema`); with one of
 * the names `capabilities.tables` lists, that table's rows (`tableSchema`).
 */
export async function* udfRecords(
  reader: UdfReader,
  options: RecordOptions = {},
): AsyncGenerator<DataRecord> {
  if (options.table === undefined) {
    yield* catalogue(reader, options);
    return;
  }
  yield* tableRows(await findTable(reader, options.table, options), options);
}

/** A numeric table's rows as runs of typed values (`capabilities.columns`); the catalogue is not stored by column. */
export async function udfColumns(
  reader: UdfReader,
  options: RecordOptions = {},
): Promise<AsyncIterable<ColumnBatch> | undefined> {
  if (options.table === undefined) return undefined;
  return tableColumns(await findTable(reader, options.table, options), options);
}

/**
 * Where record `index` is stored: of the catalogue (one record per table, or per dataset that
 * cannot be loaded, as udfRecords numbers them), or with `table`, of that table's rows.
 */
export async function udfLocateRecord(
  reader: UdfReader,
  index: number,
  options: ReadOptions & { table?: string } = {},
): Promise<ByteLocation[]> {
  if (!Number.isSafeInteger(index) || index < 0) return [];
  if (options.table !== undefined) {
    const table = await findTable(reader, options.table, options);
    return index < rowCount(table.info) ? [rowLocation(table, index)] : [];
  }
  let seen = 0;
  for await (const d of reader.walkReporting()) {
    if (!(d instanceof UdfDataset)) {
      if (seen++ === index) return unloadedLocations(d, reader.source.name);
      continue;
    }
    if (index < seen + d.tables.length) return tableLocations(d, d.tables[index - seen]);
    seen += d.tables.length;
  }
  return [];
}
