import { useCallback, useEffect, useState } from 'react';
import type { ParserClient } from '../../client';
import type { SessionInfo, TableView } from '../../protocol';

const LISTED_PAGE = 200;

/**
 * The tables a session has: those its reader knows at open, then those its plugin lists as it
 * reads the file, a page at a time ("more tables" asks for the next).
 */
export function useTables(client: ParserClient, session: SessionInfo) {
  const [listed, setListed] = useState<TableView[]>([]);
  const [more, setMore] = useState(session.listsTables);
  const [error, setError] = useState<string | null>(null);
  const listNext = useCallback(
    async (offset: number) => {
      try {
        const page = await client.request({
          type: 'tables',
          sessionId: session.sessionId,
          offset,
          limit: LISTED_PAGE,
        });
        setListed((old) => [...old.slice(0, offset), ...page.tables]);
        setMore(page.more);
      } catch (e) {
        setError((e as Error).message);
        setMore(false);
      }
    },
    [client, session.sessionId],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: the first page, once per session.
  useEffect(() => {
    if (session.listsTables) listNext(0);
  }, [session.sessionId]);
  return {
    tables: [...session.tables, ...listed],
    more,
    error,
    listMore: () => listNext(listed.length),
  };
}

/** A choice of table by its title (and record count when known). */
export function TablePicker({
  tables,
  current,
  onTable,
  more,
  onMore,
}: {
  tables: TableView[];
  current: string;
  onTable(name: string): void;
  more: boolean;
  onMore(): void;
}) {
  if (tables.length < 2 && !more) return null;
  return (
    <span className="table-pick">
      <label>
        table{' '}
        <select value={current} onChange={(e) => onTable(e.target.value)} data-testid="table-picker">
          {tables.map((t) => (
            <option key={t.name} value={t.name}>
              {t.name === '' ? t.title : t.name}
              {t.count !== undefined ? ` (${t.count.toLocaleString('en-US')})` : ''}
            </option>
          ))}
        </select>
      </label>
      {more && (
        <button type="button" className="link-button" onClick={onMore}>
          more tables
        </button>
      )}
    </span>
  );
}
