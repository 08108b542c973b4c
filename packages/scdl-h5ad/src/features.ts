import type { FeatureBlock, FeatureColumn } from '@binscope/scdl';
import type { Column, ColumnType, DataFrame } from './anndata.js';
import { promoteColumnTypes, valueAs } from './column-types.js';

/** C11: a table's columns (categoricals already plain values), or its index as one column. */
export function featureColumns(frame: DataFrame, indexName: string): FeatureColumn[] {
  if (frame.columns.length > 0) return frame.columns.map(toFeatureColumn);
  if (frame.rows > 0) return [toFeatureColumn({ ...frame.index(), name: indexName })];
  return [];
}

export function toFeatureColumn(column: Column): FeatureColumn {
  return { name: column.name, type: column.type, values: column.values as FeatureColumn['values'] };
}

export function blockRows(columns: FeatureColumn[]): number {
  return columns.length === 0 ? 0 : columns[0].values.length;
}

/** Upstream's are_dicts_equal: same column names (any order) and equal values; NaN/None never equal. */
export function sameFeatures(a: FeatureColumn[], b: FeatureColumn[]): boolean {
  if (a.length !== b.length) return false;
  const byName = new Map(b.map((c) => [c.name, c]));
  for (const column of a) {
    const other = byName.get(column.name);
    if (!other || other.values.length !== column.values.length) return false;
    const x = column.values as ArrayLike<unknown>;
    const y = other.values as ArrayLike<unknown>;
    for (let i = 0; i < x.length; i++) if (!sameValue(x[i], y[i])) return false;
  }
  return true;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a === typeof b) return a === b;
  const numeric = (v: unknown) => typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';
  return numeric(a) && numeric(b) && Number(a) === Number(b);
}

/** C12 for var: a block identical to the previous one only extends its row range. */
export function appendVarBlock(
  blocks: FeatureBlock[],
  columns: FeatureColumn[],
  rows: number,
  label: string,
): void {
  const last = blocks[blocks.length - 1];
  if (last && sameFeatures(last.columns, columns)) {
    last.rows += rows;
    return;
  }
  blocks.push({ label, rows, columns });
}

/**
 * C12 for obs: a block with the same column names as the previous one is appended to it
 * (keeping the first label; columns in the newer block's order, as upstream's dict merge).
 * A table with no columns adds no block, as upstream skips empty feature dicts.
 */
export function appendObsBlock(
  blocks: FeatureBlock[],
  columns: FeatureColumn[],
  rows: number,
  label: string,
): void {
  if (columns.length === 0 || blockRows(columns) === 0) return;
  const last = blocks[blocks.length - 1];
  if (last && last.columns.length === columns.length) {
    const previous = new Map(last.columns.map((c) => [c.name, c]));
    if (columns.every((c) => previous.has(c.name))) {
      last.columns = columns.map((c) => concatColumns(previous.get(c.name)!, c));
      last.rows += rows;
      return;
    }
  }
  blocks.push({ label, rows, columns });
}

/** numpy.concatenate's type promotion, then pyarrow's inference, for two columns. */
export function concatColumns(a: FeatureColumn, b: FeatureColumn): FeatureColumn {
  const type = promoteColumnTypes(a.type as ColumnType, b.type as ColumnType);
  const convert = (column: FeatureColumn) => {
    const values = Array.from(column.values as ArrayLike<unknown>);
    return column.type === type ? values : values.map((v) => valueAs(type, v));
  };
  return { name: b.name, type, values: [...convert(a), ...convert(b)] as FeatureColumn['values'] };
}
