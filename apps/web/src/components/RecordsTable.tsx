import { useEffect, useState } from 'react';
import type { ParserClient } from '../client';
import { displayValue } from '../format';
import type { JsonRecord } from '../protocol';

export interface Page {
  offset: number;
  limit: number;
}

/** Previous / next paging with a "go to" box, shared by every data view. */
export function Pager({
  page,
  total,
  onPage,
  unit = 'rows',
}: {
  page: Page;
  total: number | undefined;
  onPage(page: Page): void;
  unit?: string;
}) {
  const [jump, setJump] = useState('');
  const last = total === undefined ? undefined : Math.max(0, total - 1);
  const end = total === undefined ? page.offset + page.limit : Math.min(total, page.offset + page.limit);
  return (
    <fieldset className="pager" aria-label={`${unit} paging`}>
      <button
        type="button"
        disabled={page.offset === 0}
        onClick={() => onPage({ ...page, offset: Math.max(0, page.offset - page.limit) })}
      >
        ◀ previous
      </button>
      <span data-testid="page-range">
        {unit} {total === 0 ? 0 : page.offset.toLocaleString('en-US')}–
        {Math.max(page.offset, end - 1).toLocaleString('en-US')}
        {total !== undefined && ` of ${total.toLocaleString('en-US')}`}
      </span>
      <button
        type="button"
        disabled={total !== undefined && end >= total}
        onClick={() => onPage({ ...page, offset: page.offset + page.limit })}
      >
        next ▶
      </button>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const n = Number(jump);
          if (Number.isSafeInteger(n) && n >= 0)
            onPage({ ...page, offset: last === undefined ? n : Math.min(n, last) });
        }}
      >
        <label>
          go to{' '}
          <input
            value={jump}
            onChange={(e) => setJump(e.target.value)}
            size={8}
            inputMode="numeric"
            aria-label={`Go to ${unit}`}
          />
        </label>
      </form>
    </fieldset>
  );
}

/** A plain table of JSON records (the plugins' generic `records`). */
export function RecordTable({ records, columns }: { records: JsonRecord[]; columns?: string[] }) {
  const keys = columns ?? [...new Set(records.flatMap((r) => Object.keys(r)))];
  return (
    <div className="table-wrap">
      <table className="records" data-testid="records-table">
        <thead>
          <tr>
            {keys.map((k) => (
              <th key={k} scope="col">
                {k}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {records.map((record, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows of one page, in order.
            <tr key={i}>
              {keys.map((k) => {
                const text = displayValue(record[k]);
                return (
                  <td key={k} title={text.length > 80 ? text.slice(0, 2000) : undefined}>
                    {text.length > 80 ? `${text.slice(0, 80)}…` : text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Generic records with paging, for formats without a dedicated view. */
export function RecordsView({
  client,
  sessionId,
  total,
}: {
  client: ParserClient;
  sessionId: number;
  total?: number;
}) {
  const [page, setPage] = useState<Page>({ offset: 0, limit: 50 });
  const [records, setRecords] = useState<JsonRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    setError(null);
    client
      .request(
        { type: 'records', sessionId, offset: page.offset, limit: page.limit },
        { signal: controller.signal },
      )
      .then(setRecords)
      .catch((e: Error) => !controller.signal.aborted && setError(e.message));
    return () => controller.abort();
  }, [client, sessionId, page]);
  return (
    <div className="data-view">
      <Pager page={page} total={total} onPage={setPage} unit="records" />
      {error && (
        <p role="alert" className="invalid">
          {error}
        </p>
      )}
      {records && <RecordTable records={records} />}
    </div>
  );
}
