import { BinscopeError } from './errors.js';
import { type JsonValue, jsonLine } from './json.js';
import type { JsonRecord } from './record-json.js';

/**
 * The text encodings of records every app writes the same way (the CLI's `cat --format`, the
 * web page's export): records as `recordToJson` makes them, one line each.
 */
export interface RecordTextFormat {
  readonly id: 'csv' | 'jsonl';
  readonly title: string;
  /** Of a file holding it, without the dot. */
  readonly extension: string;
  readonly mediaType: string;
}

export const RECORD_TEXT_FORMATS: readonly RecordTextFormat[] = [
  { id: 'csv', title: 'CSV', extension: 'csv', mediaType: 'text/csv' },
  { id: 'jsonl', title: 'JSON Lines', extension: 'jsonl', mediaType: 'application/x-ndjson' },
];

const JSON_RAW_CONTROL = /[\u007f-\u009f]/g;

/**
 * JSON text with DEL and C1 controls escaped too (JSON.stringify escapes only C0), so no byte
 * of a file reaches a terminal as a control. They can only stand inside strings, where
 * `\u007f` means the same character: the document is equal.
 */
export function printableJson(json: string): string {
  return json.replace(JSON_RAW_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One line of JSON Lines (without its newline) for a record or any JSON value: `jsonLine`, printable. */
export function recordJsonText(value: JsonValue): string {
  return printableJson(jsonLine(value));
}

function isNegativeZero(value: unknown): boolean {
  return value === 0 && 1 / (value as number) < 0;
}

/** One CSV field (RFC 4180 quoting): null and absent empty, -0 as "-0", JSON for anything nested. */
export function csvField(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '';
  const text =
    typeof value === 'object' ? recordJsonText(value) : isNegativeZero(value) ? '-0' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Records whose fields hold lists or objects, asked for as CSV. */
export class CsvShapeError extends BinscopeError {
  readonly _tag = 'CsvShapeError' as const;
  override readonly name = 'CsvShapeError';
  constructor(
    /** The fields of the first record that are not scalars. */
    readonly columns: readonly string[],
  ) {
    super(
      `CSV needs flat records, but ${columns.map((c) => JSON.stringify(c)).join(', ')} hold lists or objects; use JSON Lines`,
    );
  }
}

/**
 * Lines of text for records in one of RECORD_TEXT_FORMATS, each ending in "\n". CSV takes its
 * columns from the first record and writes them as the header line before it; records holding
 * lists or objects are refused there (CsvShapeError) rather than squeezed into cells.
 */
export function recordTextLines(format: RecordTextFormat['id']): (record: JsonRecord) => string {
  if (format === 'jsonl') return (record) => `${recordJsonText(record)}\n`;
  let columns: string[] | undefined;
  return (record) => {
    let head = '';
    if (!columns) {
      const names = Object.keys(record);
      const nested = names.filter((c) => record[c] !== null && typeof record[c] === 'object');
      if (nested.length > 0) throw new CsvShapeError(nested);
      columns = names;
      head = `${columns.map(csvField).join(',')}\n`;
    }
    return `${head}${columns.map((c) => csvField(record[c])).join(',')}\n`;
  };
}
