import {
  type AnyFormatPlugin,
  type DataRecord,
  type FormatReader,
  fieldsByName,
  type RecordOptions,
  type Schema,
} from '@binscope/core';
import type { LocationView, RecordsPage, RecordView, SerializedError, ViewValue } from '../protocol';
import { bytesView, DETAIL_LIMITS, PAGE_LIMITS, viewValue } from './cells';
import type { Session } from './session';
import { serializeError } from './session';

/** Records a page shows at most. */
const MAX_PAGE = 500;
/** A column whose first records all fail alike is taken as unreadable for the page. */
const SAME_FAILURES = 3;

export interface Reading {
  plugin: AnyFormatPlugin;
  reader: FormatReader;
  schema: Schema;
  table: string;
  session: Session;
  signal: AbortSignal;
}

export async function reading(session: Session, table: string, signal: AbortSignal): Promise<Reading> {
  const { plugin, reader } = session;
  if (!plugin || !reader) throw new Error('no reader is open for this file');
  const schema =
    table === ''
      ? reader.schema
      : (reader.tables?.find((t) => t.name === table) ?? (await session.catalogue?.find(table, signal)))
          ?.schema;
  if (!schema) throw new Error(`no table "${table}" in this file`);
  return { plugin, reader, schema, table, session, signal };
}

/** Up to `limit` records from `offset`, with their locations. */
async function read(r: Reading, offset: number, limit: number, columns?: string[]): Promise<DataRecord[]> {
  const options: RecordOptions = { offset, limit, locations: true, signal: r.signal };
  if (r.table) options.table = r.table;
  if (columns) options.columns = columns;
  const out: DataRecord[] = [];
  for await (const record of r.plugin.records(r.reader, options)) {
    out.push(record);
    if (out.length >= limit) break;
  }
  return out;
}

const sameError = (a: SerializedError, b: SerializedError) =>
  a.code === b.code && a.message === b.message && a.offset === b.offset;

/**
 * A page of records as the page draws them. When the page cannot be read whole (a broken
 * file), each column is read alone, and a column that fails record by record, so every value
 * that can be read is shown and each one that cannot carries its own error; a column that
 * fails alike from its first records on is marked once, as the column's.
 */
export async function recordsPage(
  session: Session,
  request: { table: string; offset: number; limit: number; columns?: string[] },
  signal: AbortSignal,
): Promise<RecordsPage> {
  const r = await reading(session, request.table, signal);
  const names = r.schema.fields.map((f) => f.name);
  const columns = request.columns ? names.filter((n) => request.columns!.includes(n)) : names;
  // Every column asked: let the plugin read its records its own way.
  const asked = columns.length === names.length ? undefined : columns;
  const offset = Math.max(0, Math.floor(request.offset) || 0);
  const limit = Math.max(1, Math.min(MAX_PAGE, Math.floor(request.limit) || 50));
  const page: RecordsPage = { table: r.table, offset, columns, records: [], more: false, columnErrors: {} };
  const views = new Map<number, RecordView>();
  try {
    const records = await read(r, offset, limit + 1, asked);
    page.more = records.length > limit;
    for (const record of records.slice(0, limit)) merge(r, views, record, columns);
  } catch (error) {
    if (signal.aborted) throw error;
    for (const column of columns) {
      const more = await readColumn(r, views, page, column, offset, limit);
      page.more ||= more;
    }
    // Nothing at all could be read: the page's own error says why.
    if (views.size === 0) throw error;
  }
  page.records = [...views.values()].sort((a, b) => a.index - b.index);
  return page;
}

/** One column of the page alone, then record by record if it fails; true when records follow. */
async function readColumn(
  r: Reading,
  views: Map<number, RecordView>,
  page: RecordsPage,
  column: string,
  offset: number,
  limit: number,
): Promise<boolean> {
  try {
    const records = await read(r, offset, limit + 1, [column]);
    for (const record of records.slice(0, limit)) merge(r, views, record, [column]);
    return records.length > limit;
  } catch (error) {
    if (r.signal.aborted) throw error;
  }
  const failures: Array<[number, SerializedError]> = [];
  let readable = 0;
  for (let index = offset; index < offset + limit; index++) {
    try {
      const [record] = await read(r, index, 1, [column]);
      if (!record) break;
      merge(r, views, record, [column]);
      readable++;
    } catch (error) {
      if (r.signal.aborted) throw error;
      failures.push([index, serializeError(error)]);
      const [, first] = failures[0];
      if (
        readable === 0 &&
        failures.length >= SAME_FAILURES &&
        failures.every(([, e]) => sameError(e, first))
      )
        break;
    }
  }
  const [, first] = failures[0] ?? [];
  if (first && readable === 0 && failures.every(([, e]) => sameError(e, first))) {
    page.columnErrors[column] = first;
    return false;
  }
  for (const [index, error] of failures) {
    const view = viewOf(views, index);
    view.errors = { ...view.errors, [column]: error };
  }
  return false;
}

function viewOf(views: Map<number, RecordView>, index: number): RecordView {
  let view = views.get(index);
  if (!view) views.set(index, (view = { index, values: {}, locations: {} }));
  return view;
}

/** Adds a record's values (of `columns`) and their locations to its view. */
function merge(r: Reading, views: Map<number, RecordView>, record: DataRecord, columns: string[]): void {
  const fields = fieldsByName(r.schema);
  const view = viewOf(views, record.index);
  for (const name of columns) {
    const value = record.values[name];
    if (value !== undefined) view.values[name] = viewValue(fields.get(name)?.type, value, PAGE_LIMITS);
    const places = record.locations?.[name];
    if (places?.length) view.locations[name] = places.map((l) => location(r, l));
  }
  if (record.problem) view.problem = serializeError(record.problem);
}

function location(r: Reading, l: { file?: string; offset: number; length?: number }): LocationView {
  const file = r.session.files.fromPlugin(l.file);
  return { ...(file === undefined ? {} : { file }), offset: l.offset, length: l.length ?? 1 };
}

/**
 * One value at detail size. A byte string the plugin can stream (`capabilities.valueSource`)
 * is read from its source, up to the detail limit, whatever its size.
 */
export async function valueDetail(
  session: Session,
  request: { table: string; index: number; field: string },
  signal: AbortSignal,
): Promise<ViewValue> {
  const r = await reading(session, request.table, signal);
  const field = fieldsByName(r.schema).get(request.field);
  if (!field) throw new Error(`no field "${request.field}"`);
  const stream = r.plugin.capabilities?.valueSource;
  if (field.type.kind === 'bytes' && stream) {
    const options = { signal, ...(r.table ? { table: r.table } : {}) };
    const source = await stream(r.reader, request.index, request.field, options);
    if (source) {
      try {
        const length = Math.min(source.size, DETAIL_LIMITS.whole);
        const bytes = await source.read(0, length, { signal });
        return bytesView(bytes, source.size, field.type.mediaType, DETAIL_LIMITS);
      } finally {
        await source.close?.();
      }
    }
  }
  const [record] = await read(r, request.index, 1, [request.field]);
  const value = record?.values[request.field];
  if (value === undefined) throw new Error(`record ${request.index} has no ${request.field}`);
  return viewValue(field.type, value, DETAIL_LIMITS);
}
