import {
  type CsvShapeError,
  isBinscopeError,
  type JsonRecord,
  type JsonValue,
  recordJsonText,
  recordTextLines,
} from '@binscope/core';
import { appendAll, maxOf } from '@binscope/core/binary';
import { CliError, EXIT } from './errors.js';
import { printable, printableJson } from './printable.js';
import type { Output } from './io.js';

export type RecordFormat = 'table' | 'jsonl' | 'csv' | 'json';
export const RECORD_FORMATS: readonly RecordFormat[] = ['table', 'jsonl', 'csv', 'json'];

/** Streams records out in one format; `end` closes the document (a JSON array, a table). */
export interface RecordWriter {
  write(record: JsonRecord): Promise<void>;
  /** `failure`: the error that cut the stream short; a JSON array holds it as its last entry. */
  end(failure?: unknown): Promise<void>;
}

export function recordWriter(format: RecordFormat, out: Output): RecordWriter {
  switch (format) {
    case 'jsonl':
      return {
        write: (record) => out.write(`${jsonText(record)}\n`),
        end: () => out.flush(),
      };
    case 'json':
      return jsonArrayWriter(out);
    case 'csv':
      return csvWriter(out);
    case 'table':
      return tableWriter(out);
  }
}

function jsonArrayWriter(out: Output): RecordWriter {
  let first = true;
  return {
    async write(record) {
      await out.write(`${first ? '[\n' : ',\n'}${jsonText(record)}`);
      first = false;
    },
    async end(failure) {
      // Closed either way, so the document parses; the error says it is not the whole answer.
      if (failure !== undefined) await this.write(failure as JsonRecord);
      await out.write(first ? '[]\n' : '\n]\n');
      await out.flush();
    },
  };
}

/** JSON text of a record: core's one JSON Lines encoding (the web page's export writes the same). */
export const jsonText = recordJsonText;

/**
 * CSV fits flat records (SCBF rows); records holding arrays or objects (SCDL rows, TARIDX
 * samples) are refused before anything is printed rather than squeezed into cells. The text is
 * core's (recordTextLines), which the web page's export writes too.
 */
function csvWriter(out: Output): RecordWriter {
  const lines = recordTextLines('csv');
  return {
    async write(record) {
      let text: string;
      try {
        text = lines(record);
      } catch (error) {
        if (!isBinscopeError(error, 'CsvShapeError')) throw error;
        const nested = (error as CsvShapeError).columns;
        throw new CliError(
          `--format csv needs flat records, but ${nested.map((c) => JSON.stringify(c)).join(', ')} hold lists or objects; use --format jsonl`,
          EXIT.usage,
        );
      }
      await out.write(text);
    },
    async end() {
      await out.flush();
    },
  };
}

const TABLE_PAGE = 100;
const MAX_CELL = 40;

export function cellText(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  // Control characters would break the grid; show them escaped.
  return printable(text);
}

function clip(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/**
 * A grid for a terminal. Column widths come from the first page, so output starts at once
 * and memory stays bounded however many rows follow.
 */
function tableWriter(out: Output): RecordWriter {
  let page: JsonRecord[] | undefined = [];
  let columns: string[] = [];
  let widths: number[] = [];
  let numeric: boolean[] = [];

  const row = (cells: string[]) =>
    cells
      .map((c, i) =>
        numeric[i] ? clip(c, widths[i]).padStart(widths[i]) : clip(c, widths[i]).padEnd(widths[i]),
      )
      .join('  ')
      .trimEnd();

  const startTable = async () => {
    const rows = page ?? [];
    page = undefined;
    const seen = new Set<string>();
    for (const r of rows) for (const k of Object.keys(r)) seen.add(k);
    columns = [...seen];
    const budget = Math.max(
      MAX_CELL,
      Math.floor((out.columns - 2 * columns.length) / Math.max(1, columns.length)),
    );
    widths = columns.map((c) =>
      Math.min(
        budget,
        Math.max(
          c.length,
          maxOf(rows, (r) => cellText(r[c]).length, 0),
        ),
      ),
    );
    numeric = columns.map(
      (c) =>
        rows.length > 0 && rows.every((r) => r[c] === undefined || r[c] === null || typeof r[c] === 'number'),
    );
    if (columns.length === 0) return;
    await out.line(row(columns));
    await out.line(widths.map((w) => '─'.repeat(w)).join('  '));
    for (const r of rows) await out.line(row(columns.map((c) => cellText(r[c]))));
  };

  return {
    async write(record) {
      if (page) {
        page.push(record);
        if (page.length >= TABLE_PAGE) await startTable();
        return;
      }
      await out.line(row(columns.map((c) => cellText(record[c]))));
    },
    async end() {
      if (page) await startTable();
      await out.flush();
    },
  };
}

/** A JSON document on stdout: the `--json` contract. */
export async function printJson(out: Output, value: unknown): Promise<void> {
  await out.write(`${printableJson(prettyJson(value))}\n`);
  await out.flush();
}

/**
 * JSON.stringify's indented text, except that a float -0 is written `-0.0`, as core's jsonLine
 * writes it (A5): JSON would print 0, and `diff --json` would show a change of sign as 0 against 0.
 */
export function prettyJson(value: unknown): string {
  // A mark no value can hold: a fresh random token, written in place of each -0, then swapped.
  const mark = `binscope-negative-zero-${Math.random().toString(36).slice(2)}`;
  let marked = false;
  const text = JSON.stringify(
    value,
    (_key, v) => {
      if (typeof v !== 'number' || !Object.is(v, -0)) return v;
      marked = true;
      return mark;
    },
    2,
  );
  return marked ? text.replaceAll(JSON.stringify(mark), '-0.0') : text;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = -1;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]} (${n.toLocaleString('en-US')} bytes)`;
}

function isScalar(value: JsonValue): boolean {
  return value === null || typeof value !== 'object';
}

function scalarText(v: JsonValue): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function listText(values: readonly JsonValue[], maxItems: number): string {
  const shown = values.slice(0, maxItems).map(scalarText).join(', ');
  return `[${shown}${values.length > maxItems ? `, … ${values.length - maxItems} more` : ''}]`;
}

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isFlatValue(v: JsonValue): boolean {
  return isScalar(v) || (Array.isArray(v) && v.every(isScalar));
}

/** Rows of objects as an aligned grid of their flat fields; nested lists follow, labelled. */
function grid(
  items: readonly { [key: string]: JsonValue }[],
  indent: string,
  label: string,
  maxItems: number,
): string[] {
  const shown = items.slice(0, maxItems);
  const columns: string[] = [];
  for (const item of shown)
    for (const [k, v] of Object.entries(item)) if (isFlatValue(v) && !columns.includes(k)) columns.push(k);
  const cells = shown.map((item) =>
    columns.map((c) => {
      const v = item[c];
      if (v === undefined) return '';
      return clip(Array.isArray(v) ? listText(v, 8) : scalarText(v), MAX_CELL);
    }),
  );
  const widths = columns.map((c, i) =>
    Math.max(
      c.length,
      maxOf(cells, (r) => r[i].length, 0),
    ),
  );
  const line = (row: string[]) => `${indent}${row.map((c, i) => c.padEnd(widths[i])).join('  ')}`.trimEnd();
  const lines = [line(columns), ...cells.map(line)];
  if (items.length > maxItems) lines.push(`${indent}… ${items.length - maxItems} more`);
  shown.forEach((item, i) => {
    for (const [k, v] of Object.entries(item)) {
      if (isFlatValue(v)) continue;
      lines.push(`${indent}${label}[${i}].${k}:`);
      appendAll(lines, outline(v, `${indent}  `, maxItems));
    }
  });
  return lines;
}

/**
 * JSON values for a person (info details): "key: value" lines, lists of records as
 * aligned grids, long lists cut at `maxItems`.
 */
export function outline(value: JsonValue, indent = '', maxItems = 20): string[] {
  if (Array.isArray(value)) {
    if (value.every(isScalar)) return [`${indent}${listText(value, maxItems)}`];
    if (value.every(isObject)) return grid(value as { [key: string]: JsonValue }[], indent, '', maxItems);
    const lines: string[] = [];
    value.slice(0, maxItems).forEach((item, i) => {
      lines.push(`${indent}[${i}]:`);
      appendAll(lines, outline(item, `${indent}  `, maxItems));
    });
    if (value.length > maxItems) lines.push(`${indent}… ${value.length - maxItems} more`);
    return lines;
  }
  if (isObject(value)) {
    const lines: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (isScalar(v)) lines.push(`${indent}${k}: ${scalarText(v)}`);
      else if (Array.isArray(v) && v.every(isScalar)) lines.push(`${indent}${k}: ${listText(v, maxItems)}`);
      else if (Array.isArray(v) && v.length > 0 && v.every(isObject)) {
        lines.push(`${indent}${k}:`);
        appendAll(lines, grid(v as { [key: string]: JsonValue }[], `${indent}  `, k, maxItems));
      } else {
        lines.push(`${indent}${k}:`);
        appendAll(lines, outline(v, `${indent}  `, maxItems));
      }
    }
    return lines;
  }
  return [`${indent}${scalarText(value)}`];
}
