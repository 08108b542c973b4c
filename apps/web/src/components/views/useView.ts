import { useEffect, useState } from 'react';
import type { ParserClient } from '../../client';
import type { JsonValue, ViewQuery } from '../../protocol';

export interface ViewState<T> {
  data: T | null;
  buffers: Record<string, Uint8Array>;
  error: string | null;
  loading: boolean;
}

/** Asks the worker's data view for `query` whenever it changes (earlier answers are cancelled). */
export function useView<T>(client: ParserClient, sessionId: number, query: ViewQuery | null): ViewState<T> {
  const [state, setState] = useState<ViewState<T>>({
    data: null,
    buffers: {},
    error: null,
    loading: !!query,
  });
  const key = JSON.stringify(query);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the query's content.
  useEffect(() => {
    if (!query) return;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    client
      .request({ type: 'view', sessionId, query }, { signal: controller.signal })
      .then((result) =>
        setState({ data: result.json as T, buffers: result.buffers ?? {}, error: null, loading: false }),
      )
      .catch((e: Error) => {
        if (!controller.signal.aborted) setState((s) => ({ ...s, error: e.message, loading: false }));
      });
    return () => controller.abort();
  }, [client, sessionId, key]);
  return state;
}

export type { JsonValue };
