import { useState } from 'react';
import type { ParserClient } from '../../client';
import { displayValue } from '../../format';
import type { JsonValue } from '../../protocol';
import { BytesCell } from '../BytesLink';
import { type Page, Pager } from '../RecordsTable';
import { useView } from './useView';

interface Rows {
  total: number;
  dtype: string;
  /** The raw DATA file and its item size: a row's values are nnz items from dataAt on. */
  dataFile: string;
  itemSize: number;
  rows: Array<{
    row: number;
    dataAt: number;
    nnz: number;
    varBlock: string | null;
    geneColumn: string | null;
    entries: Array<{ col: number; gene: JsonValue; value: string }>;
    obs: Record<string, JsonValue> | null;
    obsBlock: string | null;
  }>;
}

/** SCDL cells: each row's non-zero genes (named from the row's var block) and its obs annotations. */
export function ScdlView({ client, sessionId }: { client: ParserClient; sessionId: number }) {
  const [page, setPage] = useState<Page>({ offset: 0, limit: 25 });
  const { data, error } = useView<Rows>(client, sessionId, {
    op: 'rows',
    offset: page.offset,
    limit: page.limit,
  });
  const obsColumns = [...new Set(data?.rows.flatMap((r) => Object.keys(r.obs ?? {})) ?? [])];
  return (
    <div className="data-view">
      <Pager page={page} total={data?.total} onPage={setPage} unit="cells" />
      {error && (
        <p role="alert" className="invalid">
          {error}
        </p>
      )}
      {data && (
        <div className="table-wrap">
          <table className="records" data-testid="scdl-rows">
            <thead>
              <tr>
                <th scope="col">row</th>
                {obsColumns.map((c) => (
                  <th scope="col" key={c}>
                    {c}
                  </th>
                ))}
                <th scope="col">nnz</th>
                <th scope="col">non-zero genes ({data.dtype})</th>
              </tr>
            </thead>
            <tbody>
              {data.rows.map((r) => (
                <tr key={r.row}>
                  <td>{r.row}</td>
                  {obsColumns.map((c) => (
                    <td key={c}>{displayValue(r.obs?.[c])}</td>
                  ))}
                  <BytesCell
                    location={
                      r.nnz > 0
                        ? { file: data.dataFile, offset: r.dataAt, length: r.nnz * data.itemSize }
                        : undefined
                    }
                    note={`its values in ${data.dataFile}`}
                  >
                    {r.nnz}
                  </BytesCell>
                  <td
                    className="genes"
                    title={
                      r.varBlock
                        ? `var block ${r.varBlock}, names from ${r.geneColumn ?? 'column index'}`
                        : undefined
                    }
                  >
                    {r.entries
                      .map((e) => `${e.gene === null ? `#${e.col}` : displayValue(e.gene)}=${e.value}`)
                      .join('  ')}
                    {r.nnz > r.entries.length ? '  …' : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
