import { type Dictionaries, decodeCodes } from './dictionary.js';
import { isNullAt } from './nulls.js';
import type { ScbfReader } from './read.js';

/** What the footer changes about cell values: null rows and dictionary-coded columns. */
export interface CellExtensions {
  nulls: ReadonlyMap<number, Uint8Array>;
  dictionaries: Dictionaries;
  /** False when neither applies, so callers can skip the per-row work. */
  any: boolean;
}

/** The footer's cell extensions, as read when the reader was opened (its error if it does not parse). */
export async function cellExtensions(reader: ScbfReader): Promise<CellExtensions> {
  if (reader.footer.error) throw reader.footer.error;
  const footer = reader.footer.extensions;
  const nulls = footer?.nulls ?? new Map<number, Uint8Array>();
  const dictionaries = footer?.dictionaries ?? new Map<number, string[]>();
  return { nulls, dictionaries, any: nulls.size > 0 || dictionaries.size > 0 };
}

/** Sets a record's (row `row`) null cells to null and its dictionary codes to their strings. */
export function applyCells(
  record: Record<string, unknown>,
  reader: ScbfReader,
  cells: CellExtensions,
  row: number,
): void {
  for (const [index, bitmap] of cells.nulls) {
    const name = reader.columns[index].name;
    if (name in record && isNullAt(bitmap, row)) record[name] = null;
  }
  for (const [index, dictionary] of cells.dictionaries) {
    const column = reader.columns[index];
    const code = record[column.name];
    if (typeof code === 'number')
      record[column.name] = decodeCodes([code], dictionary, column, reader.source.name, row)[0];
  }
}
