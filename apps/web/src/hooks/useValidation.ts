import { useCallback, useRef, useState } from 'react';
import { isAbort, type ParserClient } from '../client';
import type { SessionInfo, ValidationReport } from '../protocol';

export interface Validation {
  report: ValidationReport | null;
  running: boolean;
  progress: { done: number; total?: number } | null;
  /** The last run was stopped by the user before it finished. */
  cancelled: boolean;
  /** Validates `session`; `onErrors` runs when the report has errors. */
  start(session: SessionInfo, onErrors: (report: ValidationReport) => void): void;
  cancel(): void;
  /** Forgets the last run (a new session); a run still going is cancelled. */
  reset(): void;
}

/** The plugin's `validate` for the open session, with progress and cancel. */
export function useValidation(client: ParserClient, onFailure: (message: string) => void): Validation {
  const [report, setReport] = useState<ValidationReport | null>(null);
  const [running, setRunning] = useState<AbortController | null>(null);
  const [progress, setProgress] = useState<{ done: number; total?: number } | null>(null);
  const [cancelled, setCancelled] = useState(false);
  /** The run the page shows; an abort from opening another file is not the user's cancel. */
  const current = useRef<AbortController | null>(null);

  const start = useCallback(
    (session: SessionInfo, onErrors: (report: ValidationReport) => void) => {
      const controller = new AbortController();
      current.current = controller;
      setRunning(controller);
      setProgress(null);
      setCancelled(false);
      client
        .request(
          { type: 'validate', sessionId: session.sessionId },
          { signal: controller.signal, onProgress: setProgress },
        )
        .then((result) => {
          setReport(result);
          if (result.errors.length > 0) onErrors(result);
        })
        .catch((e) => {
          if (isAbort(e)) setCancelled(current.current === controller);
          else onFailure(`validation failed: ${(e as Error).message}`);
        })
        .finally(() => setRunning((r) => (r === controller ? null : r)));
    },
    [client, onFailure],
  );

  const reset = useCallback(() => {
    const run = current.current;
    current.current = null;
    run?.abort();
    setReport(null);
    setCancelled(false);
  }, []);

  return {
    report,
    running: !!running,
    progress,
    cancelled,
    start,
    cancel: () => running?.abort(),
    reset,
  };
}
