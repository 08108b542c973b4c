import { isCanonicalFloat, isCanonicalInt32 } from './python.js';
import type { ScbfReader } from './read.js';
import { extensionsOf } from './extend.js';
import { plainColumns } from './dictionary.js';
import type { ColumnInput } from './write.js';
import type { ScbfType } from './layout.js';

/**
 * Null cells (extension kind 3). SCBF v1 has no nulls (S6: an empty CSV cell is `""`, and
 * its column utf8). With the null bitmap extension, a column whose non-empty cells are all
 * int32 (or all float64) text by S7 keeps that type: its empty cells become nulls, stored
 * as 0 in the block (what upstream reads) and flagged in the footer's bitmap (what binscope
 * reads back as `null`, and writes back to CSV as an empty cell).
 */
export function isNullAt(bitmap: Uint8Array | undefined, row: number): boolean {
  return bitmap !== undefined && ((bitmap[row >> 3] >> (row & 7)) & 1) === 1;
}

export type NullableValues = readonly (number | null)[];

/**
 * Columns whose numeric values may be `null` → placeholder 0 and a bitmap per column that
 * has any null, ready for `writeScbf(sink, columns, {extensions: {nulls}})`.
 */
export function splitNulls(
  columns: readonly (Omit<ColumnInput, 'values'> & { values: ColumnInput['values'] | NullableValues })[],
): {
  columns: ColumnInput[];
  nulls: Map<number, Uint8Array>;
} {
  const nulls = new Map<number, Uint8Array>();
  const out = columns.map((column, c) => {
    const values = column.values;
    if (ArrayBuffer.isView(values) || !values.some((v) => v === null)) return column as ColumnInput;
    const bitmap = new Uint8Array(Math.ceil(values.length / 8));
    const filled = values.map((v, r) => {
      if (v !== null) return v;
      bitmap[r >> 3] |= 1 << (r & 7);
      return 0;
    });
    nulls.set(c, bitmap);
    return { ...column, values: filled as number[] };
  });
  return { columns: out, nulls };
}

/** The type a utf8 column of CSV cells gets once empty cells may be null; utf8 when it stays text. */
function nullableType(cells: readonly string[]): ScbfType {
  let empty = 0;
  let int = true;
  let float = true;
  for (let i = 0; i < cells.length && (int || float); i++) {
    const text = cells[i];
    if (text === '') {
      empty++;
      continue;
    }
    if (int && !isCanonicalInt32(text)) int = false;
    if (float && !isCanonicalFloat(text)) float = false;
  }
  // All empty: nothing says the column is numeric, so it stays text.
  if (empty === 0 || empty === cells.length) return 'utf8';
  return int ? 'int32' : float ? 'float64' : 'utf8';
}

/**
 * A CSV-derived file's columns with S6's utf8 fallback undone where only empty cells caused
 * it: those columns come back numeric with their empty cells null. Other columns are
 * returned as read (existing nulls kept, dictionary columns as their strings). Holds the
 * file's decoded columns in memory.
 */
export async function nullableColumns(
  reader: ScbfReader,
  options: { retype?: boolean } = {},
): Promise<{ columns: ColumnInput[]; nulls: Map<number, Uint8Array> }> {
  const footer = await extensionsOf(reader);
  const existing = footer?.nulls ?? new Map<number, Uint8Array>();
  const plain = await plainColumns(reader, footer?.dictionaries ?? new Map());
  const columns = plain.map((column, index) => {
    if (column.type !== 'utf8') {
      const bitmap = existing.get(index);
      if (!bitmap) return column;
      return {
        ...column,
        values: Array.from(column.values as ArrayLike<number>, (v, r) => (isNullAt(bitmap, r) ? null : v)),
      };
    }
    const texts = column.values as string[];
    const type = options.retype === false ? 'utf8' : nullableType(texts);
    if (type === 'utf8') return column;
    return { name: column.name, type, values: texts.map((t) => (t === '' ? null : Number(t))) };
  });
  return splitNulls(columns);
}

/** Each column's null bitmap (by column index), from the file's extension footer. */
export async function nullBitmaps(reader: ScbfReader): Promise<ReadonlyMap<number, Uint8Array>> {
  return (await extensionsOf(reader))?.nulls ?? new Map();
}

/** Empties the texts of null rows; `start` is the row number of texts[0]. */
export function blankNulls(texts: string[], bitmap: Uint8Array | undefined, start: number): void {
  if (!bitmap) return;
  for (let r = 0; r < texts.length; r++) if (isNullAt(bitmap, start + r)) texts[r] = '';
}
