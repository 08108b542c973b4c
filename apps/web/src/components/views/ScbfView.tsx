import { useEffect, useState } from 'react';
import type { ParserClient } from '../../client';
import { displayValue } from '../../format';
import type { JsonValue } from '../../protocol';
import { type Page, Pager } from '../RecordsTable';
import { useView } from './useView';

interface ScbfPage {
  total: number;
  columns: Array<{ name: string; type: string }>;
  selected: string[];
  start: number;
  rows: JsonValue[][];
}

/** SCBF as a table: choose columns (only theirs are read and inflated), page through rows. */
export function ScbfView({ client, sessionId }: { client: ParserClient; sessionId: number }) {
  const [page, setPage] = useState<Page>({ offset: 0, limit: 50 });
  const [hidden, setHidden] = useState<Set<string>>(() => new Set());
  const [columnNames, setColumnNames] = useState<Array<{ name: string; type: string }>>([]);
  const selected = columnNames.length
    ? columnNames.map((c) => c.name).filter((n) => !hidden.has(n))
    : undefined;
  const { data, error } = useView<ScbfPage>(client, sessionId, {
    op: 'page',
    offset: page.offset,
    limit: page.limit,
    columns: selected,
  });
  useEffect(() => {
    if (data && columnNames.length === 0) setColumnNames(data.columns);
  }, [data, columnNames.length]);
  const toggle = (name: string) =>
    setHidden((old) => {
      const next = new Set(old);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });
  return (
    <div className="data-view">
      <fieldset className="columns-pick" data-testid="column-picker">
        <legend>columns</legend>
        {columnNames.map((c) => (
          <label key={c.name}>
            <input type="checkbox" checked={!hidden.has(c.name)} onChange={() => toggle(c.name)} /> {c.name}{' '}
            <span className="muted">{c.type}</span>
          </label>
        ))}
      </fieldset>
      <Pager page={page} total={data?.total} onPage={setPage} unit="rows" />
      {error && (
        <p role="alert" className="invalid">
          {error}
        </p>
      )}
      {data && (
        <div className="table-wrap">
          <table className="records" data-testid="records-table">
            <thead>
              <tr>
                <th scope="col">#</th>
                {data.selected.map((name) => (
                  <th scope="col" key={name}>
                    {name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.rows.map((row, r) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the key is the row number in the file.
                <tr key={data.start + r}>
                  <th scope="row" className="muted">
                    {data.start + r}
                  </th>
                  {row.map((cell, c) => (
                    <td key={data.selected[c]}>
                      {cell === null ? <span className="muted">null</span> : displayValue(cell)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
