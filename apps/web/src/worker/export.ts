import {
  ANY_FORMAT,
  type ConverterInfo,
  fieldsByName,
  isBinscopeError,
  memoryScratch,
  type ProgressCallback,
  RECORD_TEXT_FORMATS,
  type RecordOptions,
  type RecordsInput,
  type RecordTextFormat,
  recordsInput,
  recordTextLines,
  recordToJson,
  runConverter,
  type Schema,
} from '@binscope/core';
import type { ExportRequest, ExportResult, ExportView } from '../protocol';
import { BlobExportSink, type ExportSink, FileHandleExportSink, MAX_DOWNLOAD } from './export-sink';
import { type Reading, reading } from './records';
import { registry } from './registry';
import type { Session } from './session';

/** Converters that take the records of any format and write one file: each is an export. */
function fileExporters(): ConverterInfo[] {
  return registry().converters.filter((c) => c.from === ANY_FORMAT && c.output === 'file');
}

/**
 * What the data view's Export control offers: core's record texts (the CLI's `cat --format`
 * encodings), then every converter from any format with a file output, as the registry lists
 * them (a package that adds one adds an entry here, named by its own declaration).
 */
export function exportViews(): { exports: ExportView[]; maxDownload: number } {
  const texts: ExportView[] = RECORD_TEXT_FORMATS.map((f) => ({
    id: `text:${f.id}`,
    title: f.title,
    extension: f.extension,
    mediaType: f.mediaType,
  }));
  const converters: ExportView[] = fileExporters().map((c) => ({
    id: `converter:${c.id}`,
    title: c.title,
    extension: c.extensions[0] ?? c.to,
    mediaType: 'application/octet-stream',
  }));
  return { exports: [...texts, ...converters], maxDownload: MAX_DOWNLOAD };
}

interface Window {
  table: string;
  /** Records expected, for progress. */
  total?: number;
  columns?: readonly string[];
  offset: number;
  limit?: number;
}

/** The records an export asked for: a table, its chosen fields, and a window of it or all of it. */
function windowOf(r: Reading, request: ExportRequest): Window {
  const names = r.schema.fields.map((f) => f.name);
  const columns = request.columns?.filter((c) => names.includes(c));
  const asked = columns && columns.length < names.length ? columns : undefined;
  if (columns && columns.length === 0) throw new Error('choose at least one field to export');
  const offset = Math.max(0, Math.floor(request.window?.offset ?? 0));
  const limit = request.window ? Math.max(0, Math.floor(request.window.limit)) : undefined;
  return { table: r.table, columns: asked, offset, limit, total: request.total };
}

function recordOptions(w: Window, signal: AbortSignal): RecordOptions {
  const options: RecordOptions = { offset: w.offset, signal };
  if (w.limit !== undefined) options.limit = w.limit;
  if (w.columns) options.columns = w.columns;
  if (w.table) options.table = w.table;
  return options;
}

/**
 * CSV or JSON Lines exactly as the CLI's `cat --format csv|jsonl` prints the same records: the
 * format's own CSV dialect when its plugin declares one, else core's encoding of each record
 * as `recordToJson` makes it.
 */
async function writeText(
  r: Reading,
  format: RecordTextFormat['id'],
  w: Window,
  sink: ExportSink,
  signal: AbortSignal,
  onProgress: ProgressCallback,
): Promise<number> {
  const encoder = new TextEncoder();
  const options = recordOptions(w, signal);
  const total = w.limit ?? w.total;
  const csv = r.plugin.capabilities?.csv;
  if (format === 'csv' && csv) {
    for await (const chunk of csv(r.reader, options)) {
      signal.throwIfAborted();
      await sink.write(encoder.encode(chunk));
      onProgress({ phase: 'writing', done: sink.position });
    }
    return -1;
  }
  const line = recordTextLines(format);
  let count = 0;
  for await (const record of r.plugin.records(r.reader, options)) {
    signal.throwIfAborted();
    await sink.write(encoder.encode(line(await recordToJson(r.schema, record))));
    count++;
    if (count % 256 === 0) onProgress({ phase: 'records', done: count, total });
    if (w.limit !== undefined && count >= w.limit) break;
  }
  onProgress({ phase: 'records', done: count, total });
  return count;
}

/**
 * The asked records as an input of their own: its main records are the chosen table's window
 * with the chosen fields, and it has no further tables. A converter from any format then
 * writes exactly what the data view shows, whichever table that is.
 */
function windowInput(r: Reading, w: Window, name: string): RecordsInput {
  const whole = recordsInput(r.plugin, r.reader, name);
  const fields = fieldsByName(r.schema);
  const schema: Schema = w.columns ? { ...r.schema, fields: w.columns.map((c) => fields.get(c)!) } : r.schema;
  const tableOption = w.table ? { table: w.table } : {};
  // What the window asks of the table, whichever way its records are read.
  const windowed = (options: RecordOptions = {}): RecordOptions => {
    const skip = Math.max(0, options.offset ?? 0);
    const left = w.limit === undefined ? undefined : Math.max(0, w.limit - skip);
    const limit = left === undefined ? options.limit : Math.min(left, options.limit ?? left);
    const columns = options.columns ?? w.columns;
    return {
      ...options,
      ...tableOption,
      offset: w.offset + skip,
      ...(limit === undefined ? {} : { limit }),
      ...(columns ? { columns } : {}),
    };
  };
  return {
    ...whole,
    schema,
    tables: async function* () {},
    records: (options) => r.plugin.records(r.reader, windowed(options)),
    columns: whole.columns ? (options) => whole.columns!(windowed(options)) : undefined,
    valueSource: whole.valueSource
      ? (index, field, options) => whole.valueSource!(index, field, { ...options, ...tableOption })
      : undefined,
  };
}

/**
 * Exports records of the session's open reader: a window (the records shown) or a whole
 * table, streamed page by page from the plugin's records into the user's file (File System
 * Access) or into a Blob the page downloads. Nothing leaves the browser.
 */
export async function exportSession(
  session: Session,
  request: ExportRequest,
  signal: AbortSignal,
  onProgress: ProgressCallback,
): Promise<ExportResult> {
  const r = await reading(session, request.table, signal);
  const w = windowOf(r, request);
  const view = exportViews().exports.find((e) => e.id === request.exporter);
  if (!view) throw new Error(`no export ${request.exporter} for this file`);
  const sink = request.file
    ? await FileHandleExportSink.open(request.file)
    : new BlobExportSink(view.mediaType);
  const name = session.name;
  const warnings: string[] = [];
  let records: number | undefined;
  try {
    const text = RECORD_TEXT_FORMATS.find((f) => `text:${f.id}` === view.id);
    if (text) {
      const count = await writeText(r, text.id, w, sink, signal, onProgress);
      records = count < 0 ? undefined : count;
    } else {
      const info = fileExporters().find((c) => `converter:${c.id}` === view.id)!;
      const converter = await info.load();
      const scratch = memoryScratch();
      try {
        const input = windowInput(r, w, name);
        const options = { scratch, values: request.values ?? {}, signal, onProgress };
        const report = await runConverter(info, converter, input, { kind: 'file', sink }, options);
        for (const warning of report.warnings) warnings.push(warning.message);
      } finally {
        scratch.close();
      }
    }
    const done = await sink.finish();
    return { title: view.title, ...done, records, saved: !!request.file, warnings };
  } catch (error) {
    await sink.abort();
    if (isBinscopeError(error, 'CsvShapeError')) throw new Error(error.message);
    throw error;
  }
}
