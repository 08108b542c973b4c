import { useEffect, useState } from 'react';
import type { ParserClient } from '../../client';
import type { RecordsPage } from '../../protocol';
import type { Page } from './Pager';

export interface RecordsState {
  data: RecordsPage | null;
  error: string | null;
  loading: boolean;
}

/** A page of a table's records, asked again whenever the page or the columns change (earlier asks cancelled). */
export function useRecords(
  client: ParserClient,
  sessionId: number,
  table: string,
  page: Page,
  columns: string[] | undefined,
): RecordsState {
  const [state, setState] = useState<RecordsState>({ data: null, error: null, loading: true });
  const columnsKey = columns?.join('\u0000');
  // biome-ignore lint/correctness/useExhaustiveDependencies: columnsKey stands for the columns' content.
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    client
      .request(
        { type: 'records', sessionId, table, offset: page.offset, limit: page.limit, columns },
        { signal: controller.signal },
      )
      .then((data) => setState({ data, error: null, loading: false }))
      .catch((e: Error) => {
        if (!controller.signal.aborted) setState((s) => ({ ...s, error: e.message, loading: false }));
      });
    return () => controller.abort();
  }, [client, sessionId, table, page, columnsKey]);
  return state;
}
