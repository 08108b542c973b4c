import { basename } from '@binscope/core';
import { useEffect, useId, useState } from 'react';
import { isAbort, type ParserClient } from '../../client';
import { formatBytes } from '../../format';
import type { ExportRequest, ExportResult, ExportView, TableView } from '../../protocol';

type SavePicker = (options: {
  suggestedName?: string;
  id?: string;
  types?: Array<{ description: string; accept: Record<string, string[]> }>;
}) => Promise<FileSystemFileHandle>;
const savePicker = (): SavePicker | undefined =>
  (window as { showSaveFilePicker?: SavePicker }).showSaveFilePicker;

type Scope = 'shown' | 'all';
type Progress = { phase?: string; done: number; total?: number };

/** `<opened file's name without extension>[.<table>].<ext>`. */
function fileName(source: string, table: string, extension: string): string {
  const stem = basename(source).replace(/\.[^.]*$/, '') || 'records';
  const part = table ? `.${table.replace(/[^\w.-]+/g, '_')}` : '';
  return `${stem}${part}.${extension}`;
}

function useExports(client: ParserClient) {
  const [list, setList] = useState<{ exports: ExportView[]; maxDownload: number } | null>(null);
  useEffect(() => {
    let live = true;
    client.request({ type: 'exports' }).then(
      (l) => live && setList(l),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [client]);
  return list;
}

/**
 * Export of the table in view: the records shown (this page, the fields read) or the whole
 * table, streamed by the worker, as any of the exports the worker lists (core's CSV and JSON
 * Lines, then every converter from any format with a file output). Written into a file the
 * user picks when the browser can (File System Access), else downloaded from a Blob built in
 * memory, bounded. Nothing is uploaded.
 */
type Done = ExportResult & { name: string; url?: string };

interface ExportJob {
  client: ParserClient;
  view: ExportView;
  /** The file name suggested and downloaded as. */
  name: string;
  request: Omit<ExportRequest, 'exporter' | 'file'>;
}

/**
 * Runs one export at a time: asks for a file to save into (File System Access) or downloads the
 * Blob the worker built; keeps its progress, its outcome and the download's URL (revoked when
 * replaced or unmounted).
 */
function useExportJob() {
  const [running, setRunning] = useState<AbortController | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [done, setDone] = useState<Done | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => () => void (done?.url && URL.revokeObjectURL(done.url)), [done]);

  const run = async ({ client, view, name, request }: ExportJob, to: 'file' | 'download') => {
    setFailure(null);
    setDone(null);
    let file: FileSystemFileHandle | undefined;
    if (to === 'file') {
      try {
        file = await savePicker()!({
          suggestedName: name,
          id: 'binscope-export',
          types: [{ description: view.title, accept: { [view.mediaType]: [`.${view.extension}`] } }],
        });
      } catch (e) {
        if ((e as DOMException).name !== 'AbortError') setFailure((e as Error).message);
        return;
      }
    }
    const controller = new AbortController();
    setRunning(controller);
    setProgress(null);
    try {
      const result = await client.request(
        { type: 'export', ...request, exporter: view.id, file },
        { signal: controller.signal, onProgress: setProgress },
      );
      let url: string | undefined;
      if (result.blob) {
        url = URL.createObjectURL(result.blob);
        const a = document.createElement('a');
        a.href = url;
        a.download = name;
        a.click();
      }
      setDone({ ...result, name: file?.name ?? name, url });
    } catch (e) {
      if (!isAbort(e)) setFailure((e as Error).message);
    } finally {
      setRunning(null);
    }
  };
  return { run, running, progress, done, failure };
}

export function ExportControl({
  client,
  sessionId,
  source,
  table,
  columns,
  shown,
}: {
  client: ParserClient;
  sessionId: number;
  /** The opened file's name, for the file name suggested. */
  source: string;
  table: TableView;
  /** The fields read, when not all of them. */
  columns?: string[];
  /** The records on the page now. */
  shown: { offset: number; count: number };
}) {
  const list = useExports(client);
  const id = useId();
  const [chosen, setChosen] = useState<string>('');
  const [scope, setScope] = useState<Scope>('shown');
  const exportJob = useExportJob();
  const { running, progress, done, failure } = exportJob;
  if (!list) return null;
  const view = list.exports.find((e) => e.id === chosen) ?? list.exports[0];
  if (!view) return null;
  const name = fileName(source, table.name, view.extension);
  const canSave = !!savePicker();
  const what = scope === 'shown' ? shown.count : table.count;

  const job: ExportJob = {
    client,
    view,
    name,
    request: {
      sessionId,
      table: table.name,
      columns,
      window: scope === 'shown' ? { offset: shown.offset, limit: shown.count } : undefined,
      total: what,
    },
  };
  const run = (to: 'file' | 'download') => exportJob.run(job, to);

  return (
    <details className="export-menu" data-testid="export">
      <summary>Export</summary>
      <form
        className="export-form"
        aria-label="export records"
        onSubmit={(e) => {
          e.preventDefault();
          void run(canSave ? 'file' : 'download');
        }}
      >
        <fieldset disabled={!!running}>
          <legend className="visually-hidden">what to export</legend>
          <label htmlFor={`${id}-as`}>export as</label>
          <select id={`${id}-as`} value={view.id} onChange={(e) => setChosen(e.target.value)}>
            {list.exports.map((e) => (
              <option key={e.id} value={e.id}>
                {e.title} (.{e.extension})
              </option>
            ))}
          </select>
          <div role="radiogroup" aria-label="records to export" className="export-scope">
            <label>
              <input
                type="radio"
                name={`${id}-scope`}
                value="shown"
                checked={scope === 'shown'}
                disabled={shown.count === 0}
                onChange={() => setScope('shown')}
              />{' '}
              the {shown.count.toLocaleString('en-US')} records shown
            </label>
            <label>
              <input
                type="radio"
                name={`${id}-scope`}
                value="all"
                checked={scope === 'all'}
                onChange={() => setScope('all')}
              />{' '}
              the whole table{table.count === undefined ? '' : ` (${table.count.toLocaleString('en-US')})`},
              streamed
            </label>
          </div>
          <p className="muted export-note">
            {columns ? `${columns.length} of ${table.schema.fields.length} fields (those read). ` : ''}
            Written here in the browser, nothing is uploaded.{' '}
            {canSave
              ? `“Save to a file” streams any size; a download is built in memory, up to ${list.maxDownload / 1024 / 1024} MiB.`
              : `A download is built in memory, up to ${list.maxDownload / 1024 / 1024} MiB.`}
          </p>
        </fieldset>
        <div className="export-actions">
          {canSave && (
            <button type="submit" disabled={!!running}>
              Save to a file…
            </button>
          )}
          <button
            type="button"
            disabled={!!running || what === 0}
            onClick={() => void run('download')}
            data-testid="export-download"
          >
            Download .{view.extension}
          </button>
          {running && (
            <button type="button" onClick={() => running.abort()}>
              cancel
            </button>
          )}
        </div>
        {running && <ExportProgress progress={progress} />}
        {failure && (
          <p role="alert" className="invalid" data-testid="export-error">
            {failure}
          </p>
        )}
        {done && <ExportDone done={done} />}
      </form>
    </details>
  );
}

function ExportProgress({ progress }: { progress: Progress | null }) {
  return (
    <p aria-live="polite" data-testid="export-progress">
      exporting… {progress?.phase ?? ''}{' '}
      {progress?.total ? (
        <progress value={progress.done} max={progress.total} aria-label="export progress" />
      ) : progress ? (
        progress.done.toLocaleString('en-US')
      ) : (
        ''
      )}
    </p>
  );
}

function ExportDone({ done }: { done: Done }) {
  return (
    <section className="export-done" data-testid="export-done" aria-live="polite">
      <p className="valid">
        ✓ {done.saved ? 'saved' : 'downloaded'} {done.name}
      </p>
      <dl className="props">
        <div className="kv-row">
          <dt>size</dt>
          <dd data-testid="export-size">
            {done.size.toLocaleString('en-US')} bytes{done.size >= 1024 ? ` (${formatBytes(done.size)})` : ''}
          </dd>
        </div>
        {done.records !== undefined && (
          <div className="kv-row">
            <dt>records</dt>
            <dd>{done.records.toLocaleString('en-US')}</dd>
          </div>
        )}
        <div className="kv-row">
          <dt>SHA-256</dt>
          <dd>
            <code data-testid="export-sha256" className="export-hash">
              {done.sha256}
            </code>
          </dd>
        </div>
      </dl>
      {done.warnings.length > 0 && (
        <ul className="warnings">
          {done.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      {done.url && (
        <p>
          <a href={done.url} download={done.name}>
            download {done.name} again
          </a>
        </p>
      )}
    </section>
  );
}
