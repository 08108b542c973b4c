import { toJsonValue } from '@binscope/core';
import { type ColumnValues, cellExtensions, decodeCodes, isNullAt, type ScbfReader } from '@binscope/scbf';
import { serializeError } from '../session';
import type { ViewProvider } from '../views';
import { type Json, pageOf } from './common';

/** Inflated columns kept between pages, up to this many bytes in all (each column is one zlib stream). */
const CACHE_BUDGET = 256 << 20;

interface ColumnCache {
  bytes: number;
  columns: Map<string, ColumnValues>;
}

/** An SCBF page: the chosen columns only (the others' blocks are never read), rows [offset, offset+limit). */
export const scbfView: ViewProvider = async (session, query, signal) => {
  const reader = session.reader as ScbfReader;
  if (query.op !== 'page') throw new Error(`unknown SCBF view query ${query.op}`);
  const all = reader.columns;
  const wanted = Array.isArray(query.columns) ? query.columns.map(String) : all.map((c) => c.name);
  const selected = all.filter((c) => wanted.includes(c.name));
  const { start, end } = pageOf(query, reader.rowCount, 500);
  let cache = session.cache.get('scbf:columns') as ColumnCache | undefined;
  if (!cache) session.cache.set('scbf:columns', (cache = { bytes: 0, columns: new Map() }));

  const cells: Json[][] = Array.from({ length: end - start }, () => []);
  // One column that cannot be read (a corrupt zlib stream) must not hide the others.
  const errors: Record<string, Json> = {};
  for (const [k, column] of selected.entries()) {
    try {
      await readColumnPage(reader, column, cache, cells, start, end, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      errors[column.name] = serializeError(error) as unknown as Json;
      // A stream that failed part-way may have filled some rows: the column is blank in all.
      for (const row of cells) {
        row.length = k;
        row.push(null);
      }
    }
  }
  // Null bitmap extension: the blocks hold a placeholder 0 where the footer says null.
  // Dictionary extension: the blocks hold int32 codes of the footer's strings.
  const { nulls, dictionaries } = await cellExtensions(reader);
  selected.forEach((column, k) => {
    if (column.name in errors) return;
    const bitmap = nulls.get(column.index);
    if (bitmap) for (let r = start; r < end; r++) if (isNullAt(bitmap, r)) cells[r - start][k] = null;
    const dictionary = dictionaries.get(column.index);
    if (!dictionary) return;
    try {
      for (let r = start; r < end; r++) {
        const code = cells[r - start][k];
        if (typeof code === 'number')
          cells[r - start][k] = decodeCodes([code], dictionary, column, reader.source.name, r)[0];
      }
    } catch (error) {
      // A code past its dictionary marks this column only, like an unreadable block.
      errors[column.name] = serializeError(error) as unknown as Json;
    }
  });
  return {
    json: {
      total: reader.rowCount,
      columns: all.map((c) => ({
        name: c.name,
        type: dictionaries.has(c.index) ? 'utf8 (dictionary)' : c.type,
        // Where each compressed block is, so a cell can point at the block that holds it.
        blocks: c.blocks.map((b) => ({
          role: b.role,
          offset: b.offset,
          compressed: b.compressedSize,
          uncompressed: b.uncompressedSize,
        })),
      })),
      selected: selected.map((c) => c.name),
      start,
      rows: cells,
      errors,
    },
  };
};

/** Appends one column's values for rows [start, end) to `cells`, from the cache or a stream. */
async function readColumnPage(
  reader: ScbfReader,
  column: ScbfReader['columns'][number],
  cache: ColumnCache,
  cells: Json[][],
  start: number,
  end: number,
  signal: AbortSignal,
): Promise<void> {
  let values = cache.columns.get(column.name);
  const size = column.blocks.reduce((sum, b) => sum + b.uncompressedSize, 0);
  if (!values && cache.bytes + size <= CACHE_BUDGET) {
    values = await reader.readColumn(column.index, { signal });
    cache.columns.set(column.name, values);
    cache.bytes += size;
  }
  if (values) {
    for (let r = start; r < end; r++) {
      cells[r - start].push(toJsonValue('get' in values ? values.get(r) : values[r]));
    }
  } else {
    // Too big to keep: stream this column's page (inflating up to the page, no more).
    let r = 0;
    for await (const row of reader.rows({
      columns: [column.index],
      offset: start,
      limit: end - start,
      signal,
    })) {
      cells[r++].push(toJsonValue(row[column.name]));
    }
  }
}
