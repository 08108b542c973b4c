import { toJsonValue } from '@binscope/core';
import type { ScdlReader, VarFeatures } from '@binscope/scdl';
import type { ViewProvider } from '../views';
import { type Json, pageOf } from './common';

const ENTRIES_SHOWN = 30;

/** Which var column names the genes: a name/symbol column when there is one. */
function nameColumn(features: VarFeatures): number {
  const preferred = features.columns.findIndex((c) =>
    /gene.?(name|symbol)|feature.?name|symbol|^name$/i.test(c),
  );
  if (preferred >= 0) return preferred;
  const stringColumn = features.values.findIndex((col) => typeof col[0] === 'string');
  return stringColumn;
}

/** SCDL rows (cells): their non-zeros with gene names from the row's var block, and the cell's obs. */
export const scdlView: ViewProvider = async (session, query, signal) => {
  const reader = session.reader as ScdlReader;
  if (query.op !== 'rows') throw new Error(`unknown SCDL view query ${query.op}`);
  const { start, end } = pageOf(query, reader.numRows, 100);
  const batch = end > start ? await reader.rows(start, end, { signal }) : undefined;
  const rows: Json[] = [];
  for (let i = start; i < end; i++) {
    const row = batch!.row(i - start);
    const features = await reader.features(i);
    const names = features ? nameColumn(features) : -1;
    const entries: Json[] = [];
    for (let k = 0; k < Math.min(ENTRIES_SHOWN, row.indices.length); k++) {
      const col = Number(row.indices[k]);
      const gene = features && names >= 0 ? features.values[names][col] : undefined;
      entries.push({
        col,
        gene: gene === undefined ? null : toJsonValue(gene),
        value: String(row.values[k]),
      });
    }
    const obs = await reader.obs(i);
    // The row's values are consecutive items of the raw DATA file, from its row_ptr entry on.
    const [first] = await reader.rowExtent(i, { signal });
    rows.push({
      row: i,
      dataAt: first * reader.data.itemSize,
      nnz: row.indices.length,
      varBlock: features?.label ?? null,
      geneColumn: features && names >= 0 ? features.columns[names] : null,
      entries,
      obs: obs ? Object.fromEntries(obs.columns.map((c, k) => [c, toJsonValue(obs.values[k])])) : null,
      obsBlock: obs?.label ?? null,
    });
  }
  return {
    json: {
      total: reader.numRows,
      dtype: reader.dataDType,
      dataFile: reader.data.file,
      itemSize: reader.data.itemSize,
      rows,
    },
  };
};
