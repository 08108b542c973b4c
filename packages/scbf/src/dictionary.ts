import { FormatError } from '@binscope/core';
import { Cursor } from '@binscope/core/binary';
import { FORMAT, type ScbfColumn } from './layout.js';
import type { ScbfReader } from './read.js';
import { type ColumnStatistics, compareBytes } from './statistics.js';
import { Utf8Column } from './utf8.js';
import type { ColumnInput } from './write.js';
import { recordColumn } from './footer-record.js';

/**
 * Dictionary encoding (extension kind 4, opt-in). A utf8 column with few distinct values is
 * stored as an int32 column of codes, and its distinct strings in the footer. Upstream (and
 * any reader without the extension) then reads the codes as plain int32 numbers, not the
 * strings: such files say so in `info` and `validate` warns. binscope maps codes back to
 * strings in records, `cat`, CSV and the web table.
 *
 * Payload: count u32, then per column: column index u32 (an int32 column), entries u32, and
 * each entry as u32 length + UTF-8. Every code must index an entry (`OutOfBounds`).
 */
export type Dictionaries = ReadonlyMap<number, readonly string[]>;

const encoder = new TextEncoder();

export function encodeDictionaries(dictionaries: Dictionaries): Uint8Array {
  const parts: Uint8Array[] = [];
  const head = (n: number) => {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n, true);
    parts.push(b);
  };
  head(dictionaries.size);
  for (const [column, entries] of [...dictionaries].sort((a, b) => a[0] - b[0])) {
    head(column);
    head(entries.length);
    for (const entry of entries) {
      const bytes = encoder.encode(entry);
      head(bytes.length);
      parts.push(bytes);
    }
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function decodeDictionaries(
  payload: Uint8Array,
  columns: readonly ScbfColumn[],
  at: number,
  file: string,
): Map<number, string[]> {
  const cursor = new Cursor(payload, { format: FORMAT, file, base: at });
  const where = (offset: number) => ({ offset, file, format: FORMAT });
  const count = cursor.u32();
  const out = new Map<number, string[]>();
  for (let i = 0; i < count; i++) {
    const { column, index, columnAt } = recordColumn(cursor, columns, 'dictionary', file);
    if (column.type !== 'int32')
      throw new FormatError(
        'SchemaMismatch',
        `dictionary for ${column.type} column "${column.name}" (codes are int32)`,
        where(columnAt),
      );
    if (out.has(index))
      throw new FormatError('InvalidValue', `second dictionary for column "${column.name}"`, where(columnAt));
    const entries = cursor.u32();
    // Each entry takes at least its 4-byte length: a count the payload cannot hold fails here, before any allocation.
    if (entries * 4 > cursor.remaining)
      throw new FormatError(
        'Truncated',
        `dictionary of column "${column.name}" claims ${entries} entries`,
        where(columnAt + 4),
      );
    const list: string[] = [];
    for (let e = 0; e < entries; e++) list.push(cursor.utf8(cursor.u32(), 'dictionary entry'));
    out.set(index, list);
  }
  if (cursor.remaining !== 0)
    throw new FormatError(
      'CountMismatch',
      `dictionary record has ${cursor.remaining} bytes left over`,
      where(cursor.offset),
    );
  return out;
}

/** `auto`: a utf8 column gets a dictionary when it has at most this share of distinct values. */
const AUTO_SHARE = 0.25;
const AUTO_MAX_ENTRIES = 1 << 16;

/**
 * Columns with `--dictionary auto` applied: each utf8 column with few distinct values
 * (at most a quarter of its rows, and 65,536) becomes int32 codes in first-appearance
 * order, its strings going to the returned dictionaries.
 */
export function dictionaryColumns(columns: readonly ColumnInput[]): {
  columns: ColumnInput[];
  dictionaries: Map<number, string[]>;
} {
  const dictionaries = new Map<number, string[]>();
  const out = columns.map((column, c) => {
    if (column.type !== 'utf8' || column.values.length < 4) return column;
    const values = column.values as readonly string[];
    const limit = Math.min(AUTO_MAX_ENTRIES, Math.floor(values.length * AUTO_SHARE));
    const codes = new Map<string, number>();
    for (const v of values) {
      if (!codes.has(v)) codes.set(v, codes.size);
      if (codes.size > limit) return column;
    }
    dictionaries.set(c, [...codes.keys()]);
    return {
      name: column.name,
      type: 'int32' as const,
      values: Int32Array.from(values, (v) => codes.get(v)!),
    };
  });
  return { columns: out, dictionaries };
}

/** A dictionary column's codes as strings; a code past the dictionary is `OutOfBounds`. */
export function decodeCodes(
  codes: ArrayLike<number>,
  dictionary: readonly string[],
  column: ScbfColumn,
  file: string,
  firstRow = 0,
  isNull?: (row: number) => boolean,
): (string | null)[] {
  const out = new Array<string | null>(codes.length);
  for (let i = 0; i < codes.length; i++) {
    if (isNull?.(firstRow + i)) {
      out[i] = null;
      continue;
    }
    const text = dictionary[codes[i]];
    if (text === undefined)
      throw new FormatError(
        'OutOfBounds',
        `column "${column.name}" row ${firstRow + i}: code ${codes[i]} is past its dictionary of ${dictionary.length}`,
        { offset: column.blocks[0].offset, file, format: FORMAT },
      );
    out[i] = text;
  }
  return out;
}

/** A reader's columns for a rewrite: dictionary columns decoded back to utf8 strings. */
export async function plainColumns(reader: ScbfReader, dictionaries: Dictionaries): Promise<ColumnInput[]> {
  const out: ColumnInput[] = [];
  for (const column of reader.columns) {
    const values = await reader.readColumn(column.index);
    const dictionary = dictionaries.get(column.index);
    if (values instanceof Utf8Column) out.push({ name: column.name, type: 'utf8', values: values.toArray() });
    else if (dictionary)
      out.push({
        name: column.name,
        type: 'utf8',
        values: decodeCodes(values, dictionary, column, reader.source.name) as string[],
      });
    else out.push({ name: column.name, type: column.type, values });
  }
  return out;
}

/**
 * The text range of a dictionary column, from its entries: what `--where` compares strings
 * with (the footer's statistics of such a column describe its int32 codes). Entries the
 * codes never use only widen the range, so skipping by it stays safe.
 */
export function dictionaryRange(dictionary: readonly string[]): ColumnStatistics {
  const range: ColumnStatistics = { type: 'utf8', nullCount: 0, distinct: dictionary.length };
  let min: Uint8Array | undefined;
  let max: Uint8Array | undefined;
  for (const entry of dictionary) {
    const bytes = encoder.encode(entry);
    if (!min || compareBytes(bytes, min) < 0) {
      min = bytes;
      range.minText = entry;
    }
    if (!max || compareBytes(bytes, max) > 0) {
      max = bytes;
      range.maxText = entry;
    }
  }
  return range;
}

/** The first code of a dictionary column outside its dictionary, as [row, code]; undefined when all fit. */
export function firstBadCode(
  codes: ArrayLike<number>,
  entries: number,
  firstRow = 0,
): [number, number] | undefined {
  for (let i = 0; i < codes.length; i++)
    if (codes[i] < 0 || codes[i] >= entries) return [firstRow + i, codes[i]];
  return undefined;
}
