import { useEffect, useState } from 'react';
import { isAbort, type ParserClient } from '../../client';
import { formatBytes } from '../../format';
import type { ConvertH5adResult, SessionInfo } from '../../protocol';
import { useView } from './useView';

interface MatrixSummary {
  layout: string;
  rows: number;
  cols: number;
  nnz: number;
  dtype: string;
}
interface H5adSummary {
  name: string;
  encodingVersion?: string;
  obs: number;
  vars: number;
  x?: MatrixSummary;
  rawX?: MatrixSummary;
  obsColumns: Array<{ name: string; type: string }>;
  varColumns: Array<{ name: string; type: string }>;
  obsp: string[];
  obsm: string[];
  layers: string[];
}

const DTYPES = ['float32', 'float16', 'float64', 'uint8', 'uint16', 'uint32', 'uint64'];

type DirectoryPicker = (options?: { mode?: 'readwrite'; id?: string }) => Promise<FileSystemDirectoryHandle>;
const directoryPicker = (): DirectoryPicker | undefined =>
  (window as { showDirectoryPicker?: DirectoryPicker }).showDirectoryPicker;

/** Issue #12 in the browser: an AnnData .h5ad's summary, conversion to SCDL, and saving the archive. */
export function H5adView({
  client,
  session,
  onOpen,
}: {
  client: ParserClient;
  session: SessionInfo;
  onOpen(info: SessionInfo): void;
}) {
  const { data, error } = useView<{ files: H5adSummary[] }>(client, session.sessionId, { op: 'describe' });
  const [dataDtype, setDataDtype] = useState('float32');
  const [useX, setUseX] = useState(false);
  const [lossyCast, setLossyCast] = useState(false);
  const [neighbors, setNeighbors] = useState('');
  const [running, setRunning] = useState<AbortController | null>(null);
  const [progress, setProgress] = useState<{ phase?: string; done: number; total?: number } | null>(null);
  const [done, setDone] = useState<ConvertH5adResult | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [download, setDownload] = useState<{ url: string; name: string } | null>(null);
  useEffect(() => () => void (download && URL.revokeObjectURL(download.url)), [download]);

  const files = data?.files ?? [];
  const noRaw = files.length > 0 && files.every((f) => !f.rawX);
  const obspKeys = [...new Set(files.flatMap((f) => f.obsp))];

  const convert = async (output: 'zip' | 'directory') => {
    setFailure(null);
    setDone(null);
    let directory: FileSystemDirectoryHandle | undefined;
    if (output === 'directory') {
      try {
        directory = await directoryPicker()!({ mode: 'readwrite', id: 'binscope-scdl' });
      } catch (e) {
        if ((e as DOMException).name !== 'AbortError') setFailure((e as Error).message);
        return;
      }
    }
    const controller = new AbortController();
    setRunning(controller);
    setProgress(null);
    try {
      const answer = await client.request(
        {
          type: 'convertH5ad',
          sessionId: session.sessionId,
          options: { dataDtype, useX: useX || noRaw, neighbors, lossyCast },
          directory,
        },
        { signal: controller.signal, onProgress: setProgress },
      );
      setDone(answer.result);
      if (answer.zip) {
        const url = URL.createObjectURL(new Blob([answer.zip as BlobPart], { type: 'application/zip' }));
        const name = `${answer.result.name}.zip`;
        setDownload({ url, name });
        // Start the download at once; the link stays for a second try.
        const a = document.createElement('a');
        a.href = url;
        a.download = name;
        a.click();
      }
    } catch (e) {
      if (!isAbort(e)) setFailure((e as Error).message);
    } finally {
      setRunning(null);
    }
  };

  return (
    <div className="data-view h5ad" data-testid="h5ad-view">
      <h2>AnnData → SCDL</h2>
      {error && (
        <p role="alert" className="invalid">
          {error}
        </p>
      )}
      {!data && !error && <p className="muted">reading the .h5ad structure (h5wasm)…</p>}
      <div className="cards">
        {files.map((f) => (
          <article className="card" key={f.name} data-testid="h5ad-summary">
            <h3>{f.name}</h3>
            <dl className="kv">
              <dt>cells (obs)</dt>
              <dd data-testid="h5ad-obs">{f.obs}</dd>
              <dt>genes (var)</dt>
              <dd data-testid="h5ad-vars">{f.vars}</dd>
              {f.x && (
                <>
                  <dt>X</dt>
                  <dd>{matrix(f.x)}</dd>
                </>
              )}
              {f.rawX && (
                <>
                  <dt>raw.X</dt>
                  <dd>{matrix(f.rawX)}</dd>
                </>
              )}
              <dt>obs columns</dt>
              <dd>{f.obsColumns.map((c) => `${c.name} (${c.type})`).join(', ') || '–'}</dd>
              <dt>var columns</dt>
              <dd>{f.varColumns.map((c) => `${c.name} (${c.type})`).join(', ') || '–'}</dd>
              <dt>obsp</dt>
              <dd>{f.obsp.join(', ') || '–'}</dd>
              {f.encodingVersion && (
                <>
                  <dt>encoding</dt>
                  <dd>{f.encodingVersion}</dd>
                </>
              )}
            </dl>
          </article>
        ))}
      </div>
      {files.length > 0 && (
        <form
          className="convert-form"
          onSubmit={(e) => {
            e.preventDefault();
            convert(directoryPicker() ? 'directory' : 'zip');
          }}
        >
          <fieldset disabled={!!running}>
            <legend>Conversion (upstream's options)</legend>
            <label>
              data dtype{' '}
              <select value={dataDtype} onChange={(e) => setDataDtype(e.target.value)}>
                {DTYPES.map((d) => (
                  <option key={d}>{d}</option>
                ))}
              </select>
            </label>
            <label title={noRaw ? 'the file has no raw.X: X is used' : undefined}>
              <input
                type="checkbox"
                checked={useX || noRaw}
                disabled={noRaw}
                onChange={(e) => setUseX(e.target.checked)}
              />{' '}
              read X instead of raw.X
            </label>
            <label title="values the data dtype cannot hold (fractions, NaN, out of range) are refused unless this is on">
              <input
                type="checkbox"
                checked={lossyCast}
                onChange={(e) => setLossyCast(e.target.checked)}
                data-testid="lossy-cast"
              />{' '}
              cast values the dtype cannot hold, one by one as numpy's scalar cast does (lossy)
            </label>
            <label>
              neighbors from obsp{' '}
              <select value={neighbors} onChange={(e) => setNeighbors(e.target.value)}>
                <option value="">none</option>
                {obspKeys.map((k) => (
                  <option key={k}>{k}</option>
                ))}
              </select>
            </label>
          </fieldset>
          <div className="convert-actions">
            {directoryPicker() && (
              <button type="submit" disabled={!!running}>
                Convert and save to a folder…
              </button>
            )}
            <button
              type="button"
              onClick={() => convert('zip')}
              disabled={!!running}
              data-testid="convert-zip"
            >
              Convert and download .zip
            </button>
            {running && (
              <button type="button" onClick={() => running.abort()}>
                cancel
              </button>
            )}
          </div>
        </form>
      )}
      {running && (
        <p aria-live="polite">
          converting… {progress?.phase ?? ''}{' '}
          {progress?.total ? (
            <progress value={progress.done} max={progress.total} />
          ) : progress ? (
            progress.done.toLocaleString('en-US')
          ) : (
            ''
          )}
        </p>
      )}
      {failure && (
        <p role="alert" className="invalid" data-testid="convert-error">
          {failure}
        </p>
      )}
      {done && (
        <section className="converted" data-testid="convert-done" aria-live="polite">
          <p className="valid">
            ✓ {done.output === 'directory' ? `saved as folder ${done.name}` : `converted: ${done.name}`}
          </p>
          <p>
            {String(done.result.rows ?? '')} rows, {String(done.result.nnz ?? '')} non-zeros
            {Array.isArray(done.result.files) ? `, ${done.result.files.length} files` : ''}
          </p>
          {done.warnings.length > 0 && (
            <ul className="warnings">
              {done.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          )}
          {download && (
            <p>
              <a href={download.url} download={download.name}>
                download {download.name} again
              </a>
            </p>
          )}
          {done.output === 'zip' && (
            <button
              type="button"
              onClick={async () =>
                onOpen(await client.request({ type: 'openConverted', sessionId: session.sessionId }))
              }
              data-testid="open-converted"
            >
              Open the converted archive
            </button>
          )}
        </section>
      )}
      <p className="muted">
        Conversion runs in this tab (h5wasm reads the .h5ad in a worker). Saving to a folder streams the
        archive to disk; the .zip is built in memory (
        {formatBytes(files.reduce((s, f) => s + (f.rawX ?? f.x)!.nnz * 8, 0))} of matrix data or so).
      </p>
    </div>
  );
}

function matrix(m: MatrixSummary): string {
  return `${m.layout.toUpperCase()} ${m.rows} × ${m.cols}, ${m.nnz} stored, ${m.dtype}`;
}
