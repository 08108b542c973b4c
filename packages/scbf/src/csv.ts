import type { ScbfType } from './layout.js';
import { isCanonicalFloat, isCanonicalInt32, pyFloatRepr } from './python.js';
import type { RowOptions, ScbfReader } from './read.js';
import { cellExtensions } from './cells.js';
import { decodeCodes } from './dictionary.js';
import { blankNulls } from './nulls.js';
import { Utf8Column } from './utf8.js';

/**
 * The S8 CSV dialect and the S7 inference rules: comma, `"` quoting only when a field holds
 * `,` `"` CR or LF (quotes doubled), a row of one empty field written `""`, `\n` line ends,
 * a header row. With these, CSV → SCBF → CSV is byte-identical.
 */

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record with its line end. */
export function csvLine(fields: readonly string[]): string {
  // An empty line would read back as no record at all.
  if (fields.length === 1 && fields[0] === '') return '""\n';
  let line = '';
  for (let i = 0; i < fields.length; i++) line += (i ? ',' : '') + csvField(fields[i]);
  return `${line}\n`;
}

/** A cell as the CSV holds it: ints as decimals, floats as Python repr, strings as-is. */
export function cellText(value: number | string, type: ScbfType): string {
  if (type === 'float64') return pyFloatRepr(value as number);
  return typeof value === 'number' ? String(value) : value;
}

/** S7 inference over a column's cells, one cell at a time. */
export class TypeInference {
  /** The type all cells seen so far allow; undefined before the first cell. */
  type: ScbfType | undefined;
  observe(text: string): ScbfType {
    switch (this.type) {
      case 'utf8':
        return 'utf8';
      case 'int32':
        if (!isCanonicalInt32(text)) this.type = 'utf8';
        return this.type;
      case 'float64':
        if (!isCanonicalFloat(text)) this.type = 'utf8';
        return this.type;
      default:
        this.type = inferCellType(text);
        return this.type;
    }
  }
  /** S7: a column without rows is utf8. */
  get result(): ScbfType {
    return this.type ?? 'utf8';
  }
}

/** The narrowest type one cell allows (S6: an empty cell is utf8). */
export function inferCellType(text: string): ScbfType {
  if (isCanonicalInt32(text)) return 'int32';
  if (isCanonicalFloat(text)) return 'float64';
  return 'utf8';
}

/** S7 for a whole column of cells. */
export function inferColumnType(cells: Iterable<string>): ScbfType {
  const inference = new TypeInference();
  for (const cell of cells) if (inference.observe(cell) === 'utf8') return 'utf8';
  return inference.result;
}

/**
 * SCBF → CSV text in the S8 dialect, streamed in chunks of about `batchRows` rows.
 * Browser-safe: write the chunks wherever they go.
 */
export async function* scbfToCsvChunks(reader: ScbfReader, options: RowOptions = {}): AsyncGenerator<string> {
  const columns = options.columns ? options.columns.map((k) => reader.column(k)) : [...reader.columns];
  yield csvLine(columns.map((c) => c.name));
  const single = columns.length === 1;
  const { nulls, dictionaries } = await cellExtensions(reader);
  for await (const batch of reader.batches({
    ...options,
    columns: columns.map((c) => c.index),
    batchRows: options.batchRows ?? 16384,
  })) {
    const texts: string[][] = batch.values.map((values, c) => {
      const dictionary = dictionaries.get(columns[c].index);
      if (!dictionary || values instanceof Utf8Column) return columnTexts(values, columns[c].type);
      return decodeCodes(values, dictionary, columns[c], reader.source.name, batch.start) as string[];
    });
    // A null cell (null bitmap extension) was an empty CSV cell.
    for (const [c, column] of columns.entries()) blankNulls(texts[c], nulls.get(column.index), batch.start);
    const lines = new Array<string>(batch.length);
    for (let r = 0; r < batch.length; r++) {
      if (single) {
        const t = texts[0][r];
        lines[r] = t === '' ? '""' : csvField(t);
        continue;
      }
      let line = csvField(texts[0][r]);
      for (let c = 1; c < texts.length; c++) line += `,${csvField(texts[c][r])}`;
      lines[r] = line;
    }
    yield lines.length ? `${lines.join('\n')}\n` : '';
  }
}

function columnTexts(values: Int32Array | Float64Array | Utf8Column, type: ScbfType): string[] {
  if (values instanceof Utf8Column) return values.toArray();
  const out = new Array<string>(values.length);
  if (type === 'float64') for (let i = 0; i < values.length; i++) out[i] = pyFloatRepr(values[i]);
  else for (let i = 0; i < values.length; i++) out[i] = String(values[i]);
  return out;
}
