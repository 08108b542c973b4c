import { useEffect, useState } from 'react';
import type { ParserClient } from '../../client';
import { displayValue } from '../../format';
import type { JsonValue, SerializedError } from '../../protocol';
import { type ByteLocation, BytesCell } from '../BytesLink';
import { type Page, Pager } from '../RecordsTable';
import { errorText, ItemError } from './ItemError';
import { useView } from './useView';

interface BlockJson {
  role: string;
  offset: number;
  compressed: number;
  uncompressed: number;
}
interface ScbfPage {
  total: number;
  columns: Array<{ name: string; type: string; blocks: BlockJson[] }>;
  selected: string[];
  start: number;
  rows: JsonValue[][];
  /** Columns that could not be read, with why; their cells are blank. */
  errors: Record<string, SerializedError>;
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
      {data && Object.keys(data.errors).length > 0 && (
        <ul className="item-errors" role="alert">
          {Object.entries(data.errors).map(([name, e]) => (
            <li key={name}>
              <ItemError what={`column ${name}:`} error={e} />
            </li>
          ))}
        </ul>
      )}
      {data && (
        <div className="table-wrap">
          <table className="records" data-testid="records-table">
            <thead>
              <tr>
                <th scope="col">#</th>
                {data.selected.map((name) => (
                  <th
                    scope="col"
                    key={name}
                    className={data.errors[name] ? 'bad' : undefined}
                    title={data.errors[name] ? errorText(data.errors[name]) : undefined}
                  >
                    {name}
                    {data.errors[name] && <span className="bad-mark"> ⚠ unreadable</span>}
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
                  {row.map((cell, c) => {
                    const name = data.selected[c];
                    const bytes = cellBlock(
                      data.columns.find((col) => col.name === name),
                      data.start + r,
                    );
                    return (
                      <BytesCell
                        key={name}
                        className={data.errors[name] ? 'bad' : undefined}
                        location={bytes?.location}
                        note={bytes?.note}
                      >
                        {data.errors[name] ? (
                          '—'
                        ) : cell === null ? (
                          <span className="muted">null</span>
                        ) : (
                          displayValue(cell)
                        )}
                      </BytesCell>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

const FIXED_WIDTH: Record<string, number> = { int32: 4, float64: 8 };

/**
 * A value's bytes are inside a zlib stream, so a cell points at the compressed block holding
 * it: for a fixed-width column the block whose inflated span covers the row, for text the
 * column's blocks (offsets and strings) as a whole.
 */
function cellBlock(
  column: { type: string; blocks: BlockJson[] } | undefined,
  row: number,
): { location: ByteLocation; note: string } | undefined {
  if (!column || column.blocks.length === 0) return undefined;
  const width = FIXED_WIDTH[column.type];
  if (width) {
    let start = 0;
    for (const block of column.blocks) {
      if (row * width < start + block.uncompressed)
        return {
          location: { offset: block.offset, length: block.compressed },
          note: 'the compressed block holding it',
        };
      start += block.uncompressed;
    }
    return undefined;
  }
  const from = Math.min(...column.blocks.map((b) => b.offset));
  const to = Math.max(...column.blocks.map((b) => b.offset + b.compressed));
  return { location: { offset: from, length: to - from }, note: "the column's compressed blocks" };
}
