import { fieldsByName } from '@binscope/core';
import { useEffect, useState } from 'react';
import { isAbort, type ParserClient } from '../../client';
import type { SerializedError, TableStatsView, TableView } from '../../protocol';
import { ItemError } from '../ItemError';
import { FieldStatsCard } from './FieldStatsCard';

interface Run {
  exact: boolean;
  /** The record count an earlier pass found. */
  total?: number;
  /** Bumped to run again after a cancel. */
  round: number;
}

interface State {
  stats?: TableStatsView;
  running: boolean;
  cancelled: boolean;
  error?: SerializedError | string;
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * Statistics of the table's numeric and text fields, computed in the worker over the records
 * the reader yields and drawn as they arrive. Leaving the view (unmounting) or Cancel stops the
 * pass; a large table shows an estimate from a sample first, "Exact" reads every record.
 */
export function StatsView({
  client,
  sessionId,
  table,
}: {
  client: ParserClient;
  sessionId: number;
  table: TableView;
}) {
  const [run, setRun] = useState<Run>({ exact: false, round: 0 });
  const [state, setState] = useState<State>({ running: true, cancelled: false });
  const [controller, setController] = useState<AbortController | null>(null);

  useEffect(() => {
    const c = new AbortController();
    setController(c);
    setState((s) => ({ stats: s.stats, running: true, cancelled: false }));
    client
      .request(
        { type: 'tableStats', sessionId, table: table.name, exact: run.exact, total: run.total },
        {
          signal: c.signal,
          onProgress: (event) => {
            const partial = event.partial;
            if (partial) setState((s) => ({ ...s, stats: partial }));
          },
        },
      )
      .then((stats) => setState({ stats, running: false, cancelled: false }))
      .catch((error: unknown) => {
        if (isAbort(error)) setState((s) => ({ ...s, running: false, cancelled: true }));
        else
          setState((s) => ({
            ...s,
            running: false,
            error: error instanceof Error ? error.message : String(error),
          }));
      });
    return () => c.abort(new DOMException('cancelled', 'AbortError'));
  }, [client, sessionId, table.name, run]);

  const { stats, running, cancelled, error } = state;
  const fields = fieldsByName(table.schema);
  const shown = stats?.fields.filter((f) => fields.has(f.name)) ?? [];
  const skipped = table.schema.fields.filter((f) => stats && !stats.fields.some((s) => s.name === f.name));
  const percent =
    running && stats?.total ? Math.min(100, Math.floor((100 * stats.records) / stats.total)) : undefined;
  return (
    <div
      className="stats-view"
      data-testid="stats-view"
      data-done={!!stats?.done && !running}
      data-records={stats?.records ?? 0}
      data-sampled={!!stats?.sampled}
      aria-busy={running}
    >
      <div className="stats-status">
        <p aria-live="polite" data-testid="stats-status">
          {stats ? <StatusText stats={stats} running={running} /> : 'reading the records…'}
          {cancelled && ' (cancelled)'}
        </p>
        {percent !== undefined && <progress max={100} value={percent} aria-label="statistics progress" />}
        {running && (
          <button
            type="button"
            onClick={() => controller?.abort(new DOMException('cancelled', 'AbortError'))}
          >
            Cancel
          </button>
        )}
        {!running && stats?.sampled && (
          <button
            type="button"
            onClick={() => setRun((r) => ({ exact: true, total: stats.total, round: r.round + 1 }))}
          >
            Exact
          </button>
        )}
        {!running && cancelled && (
          <button type="button" onClick={() => setRun((r) => ({ ...r, round: r.round + 1 }))}>
            Run again
          </button>
        )}
      </div>
      {error && (
        <p role="alert" className="invalid">
          {typeof error === 'string' ? error : error.message}
        </p>
      )}
      {stats?.stopped && (
        <p role="alert" className="item-errors">
          <ItemError what={`stopped after ${count(stats.records)} records:`} error={stats.stopped} />
        </p>
      )}
      {stats?.done && shown.length === 0 && (
        <p className="muted">No numeric or text fields here to summarise.</p>
      )}
      <div className="stat-fields">
        {shown.map((s) => {
          const field = fields.get(s.name);
          return field ? <FieldStatsCard key={s.name} field={field} stats={s} /> : null;
        })}
      </div>
      {skipped.length > 0 && (
        <p className="muted">
          Not summarised (bytes, images, JSON, structs): {skipped.map((f) => f.name).join(', ')}.
        </p>
      )}
    </div>
  );
}

function StatusText({ stats, running }: { stats: TableStatsView; running: boolean }) {
  const of = stats.total === undefined ? '' : ` of ${count(stats.total)}`;
  if (stats.sampled)
    return (
      <>
        <strong>
          Estimate from {count(stats.records)}
          {of} records
        </strong>{' '}
        (spread evenly over the table){running ? '…' : '.'}
      </>
    );
  if (running)
    return (
      <>
        reading… {count(stats.records)}
        {of} records
      </>
    );
  if (stats.stopped) return <>{count(stats.records)} records read.</>;
  return <>All {count(stats.records)} records.</>;
}
