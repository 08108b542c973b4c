import { useCallback, useEffect, useRef, useState } from 'react';
import { isAbort, type ParserClient } from '../../client';
import type { ComparisonView, OpenInput, SessionInfo } from '../../protocol';

export interface ComparisonState {
  /** The file compared with the open one, once opened. */
  other: SessionInfo | null;
  /** What is being opened, while it is. */
  opening: string | null;
  /** Records compared so far, while a comparison runs. */
  running: { done: number } | null;
  result: ComparisonView | null;
  cancelled: boolean;
  error: string | null;
  /** Opens the second file and compares it with the open one. */
  open(input: OpenInput): Promise<void>;
  /** Compares again (another limit of differing records). */
  run(maxRecords: number): void;
  cancel(): void;
}

const describe = (input: OpenInput) =>
  input.kind === 'url'
    ? input.url
    : (input.folder ?? (input.files.length === 1 ? input.files[0].path : `${input.files.length} files`));

/**
 * The second file of a comparison and the comparison itself: both held by the worker (the
 * second file as a session beside the open one), compared there, cancellable from here.
 */
export function useComparison(
  client: ParserClient,
  session: SessionInfo,
  maxRecords: number,
): ComparisonState {
  const [other, setOther] = useState<SessionInfo | null>(null);
  const [opening, setOpening] = useState<string | null>(null);
  const [running, setRunning] = useState<{ done: number } | null>(null);
  const [result, setResult] = useState<ComparisonView | null>(null);
  const [cancelled, setCancelled] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);

  const cancel = useCallback(
    () => controller.current?.abort(new DOMException('cancelled', 'AbortError')),
    [],
  );

  const compare = useCallback(
    async (otherId: number, limit: number) => {
      controller.current?.abort(new DOMException('superseded', 'AbortError'));
      const mine = new AbortController();
      controller.current = mine;
      setResult(null);
      setCancelled(false);
      setError(null);
      setRunning({ done: 0 });
      try {
        const view = await client.request(
          { type: 'compare', sessionId: session.sessionId, otherId, maxRecords: limit },
          { signal: mine.signal, onProgress: ({ done }) => setRunning({ done }) },
        );
        if (controller.current === mine) setResult(view);
      } catch (e) {
        if (controller.current !== mine) return;
        if (isAbort(e)) setCancelled(true);
        else setError((e as Error).message);
      } finally {
        if (controller.current === mine) setRunning(null);
      }
    },
    [client, session.sessionId],
  );

  const open = useCallback(
    async (input: OpenInput) => {
      cancel();
      setError(null);
      setOpening(describe(input));
      try {
        const info = await client.request({ type: 'openCompare', input });
        setOther(info);
        setResult(null);
        compare(info.sessionId, maxRecords);
      } catch (e) {
        if (!isAbort(e)) setError((e as Error).message);
      } finally {
        setOpening(null);
      }
    },
    [client, cancel, compare, maxRecords],
  );

  const run = useCallback(
    (limit: number) => {
      if (other) compare(other.sessionId, limit);
    },
    [other, compare],
  );

  // Leaving the comparison (a new file opened replaces both) stops a comparison still running.
  useEffect(() => () => controller.current?.abort(new DOMException('closed', 'AbortError')), []);

  return { other, opening, running, result, cancelled, error, open, run, cancel };
}
