import type { OptionValues } from '@binscope/core';
import { useEffect, useState } from 'react';
import { isAbort, type ParserClient } from '../../client';
import type { ConverterView, ConvertResult, SessionInfo } from '../../protocol';
import { ConvertDone } from './ConvertDone';
import { OptionField } from './OptionField';

type DirectoryPicker = (options?: { mode?: 'readwrite'; id?: string }) => Promise<FileSystemDirectoryHandle>;
const directoryPicker = (): DirectoryPicker | undefined =>
  (window as { showDirectoryPicker?: DirectoryPicker }).showDirectoryPicker;

/** Saves bytes the worker built as a download named `name`; the link stays for a second try. */
function download(bytes: Uint8Array, name: string, type: string): { url: string; name: string } {
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  return { url, name };
}

/**
 * The conversions the opened format's packages declare, each with its declared options. A
 * folder output streams into a folder the user picks (File System Access API) or downloads
 * as a .zip built in memory; a file output downloads. What was built in memory opens next.
 */
export function ConvertView({
  client,
  session,
  onOpen,
}: {
  client: ParserClient;
  session: SessionInfo;
  onOpen(info: SessionInfo): void;
}) {
  const [chosen, setChosen] = useState(session.converters[0]?.id);
  const converter = session.converters.find((c) => c.id === chosen) ?? session.converters[0];
  const [values, setValues] = useState<Record<string, OptionValues[string]>>({});
  const [running, setRunning] = useState<AbortController | null>(null);
  const [progress, setProgress] = useState<{ phase?: string; done: number; total?: number } | null>(null);
  const [done, setDone] = useState<ConvertResult | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [saved, setSaved] = useState<{ url: string; name: string } | null>(null);
  useEffect(() => () => void (saved && URL.revokeObjectURL(saved.url)), [saved]);
  if (!converter) return <p className="muted data-view">Nothing converts this file.</p>;

  const convert = async (to: 'memory' | 'directory') => {
    setFailure(null);
    setDone(null);
    let directory: FileSystemDirectoryHandle | undefined;
    if (to === 'directory') {
      try {
        directory = await directoryPicker()!({ mode: 'readwrite', id: 'binscope-convert' });
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
        { type: 'convert', sessionId: session.sessionId, converter: converter.id, values, directory },
        { signal: controller.signal, onProgress: setProgress },
      );
      setDone(answer.result);
      if (answer.bytes) {
        const zip = answer.result.output === 'zip';
        const name = zip ? `${answer.result.name}.zip` : answer.result.name;
        setSaved(download(answer.bytes, name, zip ? 'application/zip' : 'application/octet-stream'));
      }
    } catch (e) {
      if (!isAbort(e)) setFailure((e as Error).message);
    } finally {
      setRunning(null);
    }
  };

  return (
    <div className="data-view convert" data-testid="convert-view">
      {session.converters.length > 1 && (
        <label>
          conversion{' '}
          <select value={converter.id} onChange={(e) => setChosen(e.target.value)}>
            {session.converters.map((c) => (
              <option key={c.id} value={c.id}>
                {c.title}
              </option>
            ))}
          </select>
        </label>
      )}
      <h2>{converter.title}</h2>
      <ConvertForm
        converter={converter}
        values={values}
        onValues={setValues}
        running={!!running}
        onConvert={convert}
        onCancel={() => running?.abort()}
      />
      {running && (
        <p aria-live="polite" data-testid="convert-progress">
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
        <ConvertDone
          done={done}
          saved={saved}
          onOpen={async () =>
            onOpen(await client.request({ type: 'openConverted', sessionId: session.sessionId }))
          }
        />
      )}
    </div>
  );
}

function ConvertForm({
  converter,
  values,
  onValues,
  running,
  onConvert,
  onCancel,
}: {
  converter: ConverterView;
  values: Record<string, OptionValues[string]>;
  onValues(values: Record<string, OptionValues[string]>): void;
  running: boolean;
  onConvert(to: 'memory' | 'directory'): void;
  onCancel(): void;
}) {
  const folder = converter.output === 'directory';
  const extension = converter.extensions[0] ?? converter.to;
  return (
    <form
      className="convert-form"
      onSubmit={(e) => {
        e.preventDefault();
        onConvert(folder && directoryPicker() ? 'directory' : 'memory');
      }}
    >
      {converter.options.length > 0 && (
        <fieldset disabled={running}>
          <legend>Options</legend>
          {converter.options.map((spec) => (
            <OptionField
              key={spec.name}
              spec={spec}
              idPrefix={converter.id}
              value={values[spec.name]}
              onChange={(v) => onValues({ ...values, [spec.name]: v })}
            />
          ))}
        </fieldset>
      )}
      <div className="convert-actions">
        {folder && directoryPicker() && (
          <button type="submit" disabled={running}>
            Convert and save to a folder…
          </button>
        )}
        <button
          type="button"
          onClick={() => onConvert('memory')}
          disabled={running}
          data-testid="convert-download"
        >
          {folder ? 'Convert and download .zip' : `Convert and download .${extension}`}
        </button>
        {running && (
          <button type="button" onClick={onCancel}>
            cancel
          </button>
        )}
      </div>
    </form>
  );
}
