import {
  type ByteLocation,
  type ColumnBatch,
  type DataRecord,
  isBinscopeError,
  type NdArrayValue,
  type NumericArray,
  type ReadOptions,
  type RecordOptions,
  type TableInfo as RecordTable,
  type Value,
} from '@binscope/core';
import { UdfDataset } from './dataset.js';
import { checkIndexTable, type UdfTable } from './decode.js';
import type { TableInfo } from './descriptor.js';
import type { UdfReader } from './read.js';
import { describeType, rowCount, rowKind, rowShape, tableSchema } from './schema.js';
import { type FileOffset, fileOffsetKey, PRIM_SIZE } from './types.js';

/**
 * Every UDF table as a table of records, named by where it sits in the file's graph: a table
 * of the root dataset by its own name (`title`), one of a dataset reached through element `i`
 * of a DATASET table `T` by that dataset's path, `T[i]/`, then its name (`meshes[0]/vertices`;
 * `T/` for a scalar DATASET table). A dataset's path is that of its first reference in walk
 * order (U7). The rare name taken already (two tables of one name in a dataset, a name that
 * holds `/` or `[`) gets `#2`, `#3`, … — names are unique in a file, and the same for every
 * copy of it, wherever a writer put its datasets.
 */
export interface NamedTable {
  name: string;
  dataset: UdfDataset;
  info: TableInfo;
}

/** A numeric table is read this many elements at a time: memory stays bounded whatever its size. */
const CHUNK_ELEMENTS = 65_536;

/** Where a named table is: its dataset and its place among the dataset's descriptors. */
interface TableAddress {
  at: FileOffset;
  index: number;
}

/**
 * The names a reader's walks have given, so looking a table up again (an export of every
 * table, table after table) loads its dataset instead of walking the file again. One entry per
 * table, made only when tables are asked for by name.
 */
interface TableIndex {
  readonly addresses: Map<string, TableAddress>;
  /** A walk named every table: a name not in `addresses` is no table. */
  complete: boolean;
}

const indexes = new WeakMap<UdfReader, TableIndex>();

function indexOf(reader: UdfReader): TableIndex {
  let index = indexes.get(reader);
  if (!index) indexes.set(reader, (index = { addresses: new Map(), complete: false }));
  return index;
}

/** The tables of the file, named, in walk order: datasets that cannot be loaded have none. */
export async function* namedTables(reader: UdfReader, options: ReadOptions = {}): AsyncGenerator<NamedTable> {
  const index = indexOf(reader);
  const taken = new Set<string>();
  /** Each dataset's path, set by its first reference. */
  const paths = new Map<string, string>();
  const unique = (base: string) => {
    let name = base;
    for (let k = 2; taken.has(name); k++) name = `${base}#${k}`;
    taken.add(name);
    return name;
  };
  for await (const dataset of reader.walkReporting()) {
    options.signal?.throwIfAborted();
    if (!(dataset instanceof UdfDataset)) continue;
    const path = paths.get(fileOffsetKey(dataset.fileOffset)) ?? '';
    for (const info of dataset.tables) {
      const name = unique(path + info.name);
      index.addresses.set(name, { at: dataset.fileOffset, index: info.index });
      yield { name, dataset, info };
      for (const [i, at] of (await references(dataset, info)).entries()) {
        const key = fileOffsetKey(at);
        if ((at.offset !== 0 || at.size !== 0) && !paths.has(key))
          paths.set(key, `${path}${info.name}${info.dims === 0 ? '' : `[${i}]`}/`);
      }
    }
  }
  index.complete = true;
}

/** The datasets a DATASET table references; none for other tables and one that does not decode. */
async function references(dataset: UdfDataset, info: TableInfo): Promise<readonly FileOffset[]> {
  if (info.hint !== 'dataset' || dataset.broken.has(info.index)) return [];
  try {
    return (await dataset.read(info)).fileOffsets ?? [];
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    return [];
  }
}

/** A table as `capabilities.tables` lists it. */
export function recordTable(table: NamedTable): RecordTable {
  const { info, dataset } = table;
  return {
    name: table.name,
    title: `table ${JSON.stringify(info.name)} (${describeType(info)}) of dataset ${JSON.stringify(dataset.id)} at ${dataset.fileOffset.offset}`,
    schema: tableSchema(info),
    count: rowCount(info),
  };
}

/**
 * The table called `name`: from the names earlier walks gave (loading its dataset), else by
 * walking the file as far as it; a RangeError naming it when the file has none.
 */
export async function findTable(
  reader: UdfReader,
  name: string,
  options: ReadOptions = {},
): Promise<NamedTable> {
  const index = indexOf(reader);
  const known = index.addresses.get(name);
  if (known) {
    const dataset = await reader.dataset(known.at);
    return { name, dataset, info: dataset.tables[known.index] };
  }
  if (!index.complete)
    for await (const table of namedTables(reader, options)) if (table.name === name) return table;
  throw new RangeError(`${reader.source.name}: UDF has no table ${JSON.stringify(name)}`);
}

/** Bytes of one row of a table stored plainly (numeric, TEXT, DATASET), or undefined. */
function rowBytes(info: TableInfo): number | undefined {
  const kind = rowKind(info);
  if (info.compressInfo !== 0 || kind === 'json' || kind === 'bytes') return undefined;
  return elementsPerRow(info) * PRIM_SIZE[info.prim];
}

/**
 * Where row `index` of a table is: its own bytes where rows are stored side by side, the
 * table's data otherwise (a JSON document, opaque bytes, a compressed stream).
 */
export function rowLocation(table: NamedTable, index: number): ByteLocation {
  const { info } = table;
  const file = table.dataset.reader.source.name;
  const size = rowBytes(info);
  const field = info.name;
  if (size === undefined || info.dims === 0)
    return { offset: info.dataOffset, length: info.dataSize, file, field };
  return { offset: info.dataOffset + index * size, length: size, file, field };
}

/**
 * The rows of one table as records of its schema (`tableSchema`), `offset` and `limit`
 * counting rows. A numeric table stored plainly is read a piece at a time (its INDEX or RANGE
 * values checked piece by piece); other tables are read whole, as `dataset.read` decodes them.
 * A table that breaks a rule throws its FormatError.
 */
export async function* tableRows(table: NamedTable, options: RecordOptions = {}): AsyncGenerator<DataRecord> {
  const { info, dataset } = table;
  const count = rowCount(info);
  const first = Math.min(count, Math.max(0, Math.floor(options.offset ?? 0)));
  const end = Math.min(count, first + Math.max(0, options.limit ?? Number.POSITIVE_INFINITY));
  const wanted = !options.columns || options.columns.includes(info.name);
  const record = (index: number, value: Value): DataRecord =>
    options.locations && wanted
      ? { index, values: { [info.name]: value }, locations: { [info.name]: [rowLocation(table, index)] } }
      : { index, values: wanted ? { [info.name]: value } : {} };
  // A table whose descriptor breaks a rule says so, whatever the window.
  const broken = dataset.broken.get(info.index);
  if (broken) throw broken;
  if (first >= end) {
    // An empty table's payload is still checked (a JSON table of shape [0] must hold `[]`).
    if (count === 0) await dataset.read(info, options);
    return;
  }
  const per = elementsPerRow(info);
  if (rowKind(info) === 'numeric' && info.compressInfo === 0) {
    const rows = Math.max(1, Math.floor(CHUNK_ELEMENTS / Math.max(1, per)));
    for (let r = first; r < end; r += rows) {
      const stop = Math.min(end, r + rows);
      const values = await dataset.readValues(info, r * per, stop * per, options);
      if (info.hint === 'index' || info.hint === 'range') checkIndexTable(dataset, info, values, r * per);
      for (let i = r; i < stop; i++) yield record(i, numericRow(info, values, (i - r) * per, per));
    }
    return;
  }
  const decoded = await dataset.read(info, options);
  for (let i = first; i < end; i++) yield record(i, decodedRow(info, decoded, i, per));
}

/**
 * The rows of a numeric table stored plainly with one number a row, as runs of its typed
 * values (`capabilities.columns`), read and checked a piece at a time exactly as `tableRows`
 * reads them; undefined for any other table (tableRows then gives its records).
 */
export function tableColumns(
  table: NamedTable,
  options: RecordOptions = {},
): AsyncIterable<ColumnBatch> | undefined {
  const { info } = table;
  if (rowKind(info) !== 'numeric' || info.compressInfo !== 0 || rowShape(info).length !== 0) return undefined;
  if (options.locations) return undefined;
  return numericRuns(table, options);
}

async function* numericRuns(table: NamedTable, options: RecordOptions): AsyncGenerator<ColumnBatch> {
  const { info, dataset } = table;
  const broken = dataset.broken.get(info.index);
  if (broken) throw broken;
  const count = rowCount(info);
  const first = Math.min(count, Math.max(0, Math.floor(options.offset ?? 0)));
  const end = Math.min(count, first + Math.max(0, options.limit ?? Number.POSITIVE_INFINITY));
  const wanted = !options.columns || options.columns.includes(info.name);
  for (let r = first; r < end; r += CHUNK_ELEMENTS) {
    const stop = Math.min(end, r + CHUNK_ELEMENTS);
    const values = await dataset.readValues(info, r, stop, options);
    if (info.hint === 'index' || info.hint === 'range') checkIndexTable(dataset, info, values, r);
    yield { offset: r, rows: stop - r, columns: wanted ? { [info.name]: values } : {} };
  }
}

function numericRow(info: TableInfo, values: NumericArray, at: number, per: number): Value {
  const shape = rowShape(info);
  if (shape.length === 0) return values[at];
  const array: NdArrayValue = {
    dtype: info.prim as NdArrayValue['dtype'],
    shape,
    data: values.subarray(at, at + per) as NumericArray,
  };
  return array;
}

/** Row `index` of a table read whole. */
function decodedRow(info: TableInfo, table: UdfTable, index: number, per: number): Value {
  switch (rowKind(info)) {
    case 'bytes':
      return table.bytes;
    case 'json':
      return (info.dims === 0 ? table.json : (table.json as Value[])[index]) as Value;
    case 'text': {
      const text = table.text!;
      return typeof text === 'string' ? text : nest(info, text, index);
    }
    case 'dataset':
      return nest(
        info,
        table.fileOffsets!.map((f) => ({ offset: f.offset, size: f.size })),
        index,
      );
    default:
      return numericRow(info, table.values!, index * per, per);
  }
}

/** Elements in one row of a numeric table: the product of its element axes (1 for plain values). */
function elementsPerRow(info: TableInfo): number {
  let per = 1;
  for (const n of rowShape(info)) per *= n;
  return per;
}

/**
 * Row `index` of items stored row-major over the declared axes: the item itself in a 1D table
 * (and the only one of a scalar), nested lists over the declared axes after the first otherwise.
 */
function nest<T extends Value>(info: TableInfo, items: readonly T[], index: number): Value {
  if (info.dims <= 1) return items[info.dims === 0 ? 0 : index];
  const inner = info.shape.slice(1, info.dims);
  const build = (axis: number, start: number): Value => {
    if (axis === inner.length) return items[start];
    let stride = 1;
    for (let a = axis + 1; a < inner.length; a++) stride *= inner[a];
    return Array.from({ length: inner[axis] }, (_, k) => build(axis + 1, start + k * stride));
  };
  let perRow = 1;
  for (const n of inner) perRow *= n;
  return build(0, index * perRow);
}
