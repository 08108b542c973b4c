import type { ByteLocation, DataRecord, ReadOptions, RecordOptions, Value } from '@binscope/core';
import { type ObsField, obsValue } from './obs-fields.js';
import type { RawArray } from './raw-array.js';
import { MATRIX_FIELDS, type ScdlReader } from './read.js';

/** Entries [from, from + count) of a matrix array file, named by the record field they hold. */
function slice(array: RawArray, from: number, count: number, field: string): ByteLocation {
  return { offset: from * array.itemSize, length: count * array.itemSize, file: array.file, field };
}

/** Where a row with entries [a, b) is stored: what `locateRecord` and records' `locations` say. */
function rowLocations(reader: ScdlReader, index: number, a: number, b: number): ByteLocation[] {
  return [
    slice(reader.data, a, b - a, 'values'),
    slice(reader.colPtr, a, b - a, 'indices'),
    slice(reader.rowPtr, index, 2, 'row'),
  ];
}

/**
 * Where row `index` is stored: its values' slice of data.npy, its column indices' slice of
 * col_ptr.npy (the records' `values` and `indices`), and its two row_ptr.npy entries.
 */
export async function scdlLocateRow(
  reader: ScdlReader,
  index: number,
  options: ReadOptions & { table?: string } = {},
): Promise<ByteLocation[]> {
  if (options.table !== undefined) return [];
  if (!Number.isSafeInteger(index) || index < 0 || index >= reader.numRows) return [];
  const [a, b] = await reader.rowExtent(index, options);
  return rowLocations(reader, index, a, b);
}

/** The obs values of row `index` by field name (null outside every obs block). */
async function obsValues(
  reader: ScdlReader,
  index: number,
  fields: readonly ObsField[],
): Promise<Map<string, Value>> {
  const out = new Map<string, Value>();
  const obs = fields.length > 0 ? await reader.obs(index) : undefined;
  for (const { field, column } of fields) {
    const at = obs ? obs.columns.indexOf(column) : -1;
    out.set(field.name, obsValue(at < 0 ? null : obs!.values[at], field.type));
  }
  return out;
}

/**
 * The rows as DataRecords of `reader.schema`, read in batches: `row` (its number),
 * `indices` and `values` as plain lists (uint64 values as bigints), then the obs feature
 * columns of the row (null where absent), in the order of `columns` when given. With
 * `locations`, each matrix field's slice of its file.
 */
export async function* scdlRecords(
  reader: ScdlReader,
  options: RecordOptions = {},
): AsyncGenerator<DataRecord> {
  if (options.table !== undefined)
    throw new RangeError(`${reader.directory.name}: SCDL has one table of rows, not "${options.table}"`);
  const all = [...MATRIX_FIELDS, ...reader.obsFields.map((o) => o.field.name)];
  const wanted = (options.columns ?? all).filter((name) => all.includes(name));
  const obsWanted = reader.obsFields.filter((o) => wanted.includes(o.field.name));
  const start = Math.max(0, options.offset ?? 0);
  const end = Math.min(reader.numRows, options.limit === undefined ? reader.numRows : start + options.limit);
  if (start >= end) return;
  for await (const batch of reader.batches({ start, end, signal: options.signal, batchBytes: 1 << 20 })) {
    const count = batch.indptr.length - 1;
    for (let k = 0; k < count; k++) {
      const index = batch.start + k;
      const row = batch.row(k);
      const obs = await obsValues(reader, index, obsWanted);
      const values: Record<string, Value> = {};
      for (const name of wanted) {
        if (name === 'row') values.row = index;
        else if (name === 'indices') values.indices = Array.from(row.indices);
        else if (name === 'values') values.values = Array.from(row.values as ArrayLike<number | bigint>);
        else values[name] = obs.get(name) ?? null;
      }
      if (!options.locations) {
        yield { index, values };
        continue;
      }
      const a = batch.firstEntry + batch.indptr[k];
      const located: Record<string, ByteLocation[]> = {};
      for (const location of rowLocations(reader, index, a, a + row.values.length))
        if (location.field! in values) located[location.field!] = [location];
      yield { index, values, locations: located };
    }
  }
}
