/**
 * The obs and var dataframes of an AnnData written from an SCDL archive: its feature indices
 * (obs_features/, var_features/; one parquet table per block) as columns, typed from the
 * parquet footers. The inverse of what the `.h5ad → SCDL` conversion stores (C11): a table
 * whose only column is the index it stored for a frame without columns becomes the index again.
 */
import { throwIfAborted } from '@binscope/core';
import type { FeatureColumnType, FeatureIndex, FeatureValue, ScdlReader } from '@binscope/scdl';
import { promoteColumnTypes } from './column-types.js';
import { scdlError } from './h5ad-error.js';

/** One column of a frame: a type the AnnData writer knows, one value per row (null where absent). */
export interface FrameColumn {
  name: string;
  type: FeatureColumnType;
  values: FeatureValue[];
}

export interface Frame {
  rows: number;
  /** The index (cell or gene names), or undefined for anndata's default "0".."n-1". */
  index: string[] | undefined;
  columns: FrameColumn[];
}

/** The column the `.h5ad → SCDL` conversion stores a frame's index in when it has no columns. */
export const INDEX_COLUMN = { obs: 'obs_feature_id', var: 'var_feature_id' } as const;

/** A parquet column's Arrow type name (FeatureIndex.parquetInfo) as a frame column type. */
function columnType(arrow: string): FeatureColumnType {
  if (/^u?int(8|16|32|64)$/.test(arrow) || arrow === 'bool') return arrow as FeatureColumnType;
  if (arrow === 'halffloat') return 'float16';
  if (arrow === 'float') return 'float32';
  if (arrow === 'double') return 'float64';
  // Strings, and binary columns, which the feature tables give as hex text.
  return 'string';
}

/** Column names and types over every block with a table, in the order blocks first name them. */
async function columnTypes(index: FeatureIndex): Promise<Map<string, FeatureColumnType>> {
  const types = new Map<string, FeatureColumnType>();
  for (let b = 0; b < index.blockCount; b++) {
    if (!index.block(b).file) continue;
    for (const { name, type } of (await index.parquetInfo(b)).columns) {
      const t = columnType(type);
      const seen = types.get(name);
      types.set(name, seen ? promoteColumnTypes(seen, t) : t);
    }
  }
  return types;
}

/** The stored index column back as the index, when it is the frame's only column (C11's inverse). */
function withIndex(rows: number, columns: FrameColumn[], indexColumn: string): Frame {
  const [only] = columns;
  if (
    columns.length === 1 &&
    only.name === indexColumn &&
    only.type === 'string' &&
    only.values.every((v) => typeof v === 'string')
  )
    return { rows, index: only.values as string[], columns: [] };
  return { rows, index: undefined, columns };
}

/**
 * obs: one value per matrix row from the block covering it; null for a row outside every
 * block, or in a block whose table lacks the column. A block's table must hold exactly its
 * rows, and no block may reach past the matrix.
 */
export async function obsFrame(reader: ScdlReader, signal?: AbortSignal): Promise<Frame> {
  const rows = reader.numRows;
  const index = reader.obsIndex;
  if (!index || index.blockCount === 0) return { rows, index: undefined, columns: [] };
  const types = await columnTypes(index);
  const columns: FrameColumn[] = [...types].map(([name, type]) => ({
    name,
    type,
    values: new Array<FeatureValue>(rows).fill(null),
  }));
  const byName = new Map(columns.map((c) => [c.name, c]));
  for (let b = 0; b < index.blockCount; b++) {
    throwIfAborted(signal);
    const block = index.block(b);
    if (!block.file) continue;
    if (block.end > rows)
      throw scdlError(
        'CountMismatch',
        block.file,
        `${block.file}: obs block ${b} covers rows ${block.start}..${block.end}, the matrix has ${rows} rows`,
      );
    const table = await index.table(b);
    if (table.numRows !== block.end - block.start)
      throw scdlError(
        'CountMismatch',
        block.file,
        `${block.file} has ${table.numRows} rows, its obs block covers ${block.end - block.start}`,
      );
    table.columns.forEach((name, k) => {
      const into = byName.get(name)!.values;
      const from = table.values[k];
      for (let r = 0; r < from.length; r++) into[block.start + r] = from[r];
    });
  }
  return withIndex(rows, columns, INDEX_COLUMN.obs);
}

function sameTable(a: { columns: string[]; values: FeatureValue[][] }, b: typeof a): boolean {
  if (a.columns.length !== b.columns.length || a.columns.some((c, k) => c !== b.columns[k])) return false;
  return a.values.every(
    (column, k) => column.length === b.values[k].length && column.every((v, r) => v === b.values[k][r]),
  );
}

/**
 * var: the features of the archive's column space. An AnnData has one var table, so every
 * var block must hold the same table (an archive of files with different genes is refused:
 * its rows' column indices mean different genes). Without var features, the columns are
 * numbered up to the largest column index.
 */
export async function varFrame(reader: ScdlReader, signal?: AbortSignal): Promise<Frame> {
  const index = reader.varIndex;
  if (!index || index.blockCount === 0) {
    const rows = await reader.numColumns(undefined, { signal });
    return { rows, index: undefined, columns: [] };
  }
  const first = index.block(0);
  if (!first.file)
    throw scdlError(
      'UnsupportedFeature',
      reader.directory.name,
      'var block 0 has no table: the genes are unknown',
    );
  const table = await index.table(0);
  for (let b = 1; b < index.blockCount; b++) {
    throwIfAborted(signal);
    const other = index.block(b).file ? await index.table(b) : undefined;
    if (!other || !sameTable(table, other))
      throw scdlError(
        'UnsupportedFeature',
        reader.directory.name,
        `var blocks 0 and ${b} hold different features: the archive's rows use several gene spaces, and an AnnData has one var table (convert each part separately)`,
      );
  }
  const types = await columnTypes(index);
  const columns = table.columns.map((name, k) => ({
    name,
    type: types.get(name) ?? 'string',
    values: table.values[k],
  }));
  return withIndex(table.numRows, columns, INDEX_COLUMN.var);
}
