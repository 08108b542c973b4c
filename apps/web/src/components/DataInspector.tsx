import { useEffect, useState } from 'react';
import type { ParserClient } from '../client';
import { hexOffset } from '../format';
import { NUMBER_TYPES, readNumber, readText, readTimestamp } from '../values';

export interface DataInspectorProps {
  client: ParserClient;
  sessionId: number;
  file: string | undefined;
  cursor: number;
}

/** The bytes at the cursor read as every integer and float type, both byte orders, text and time. */
/** The width below which the page's panes stack (see styles.css). */
const STACKED = '(max-width: 760px)';

export function DataInspector({ client, sessionId, file, cursor }: DataInspectorProps) {
  const [bytes, setBytes] = useState<Uint8Array | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState(() => !window.matchMedia?.(STACKED).matches);
  useEffect(() => {
    const controller = new AbortController();
    client
      .request({ type: 'bytes', sessionId, file, offset: cursor, length: 64 }, { signal: controller.signal })
      .then((b) => {
        setBytes(b);
        setError(null);
      })
      .catch((e: Error) => !controller.signal.aborted && setError(e.message));
    return () => controller.abort();
  }, [client, sessionId, file, cursor]);

  return (
    <section className="panel inspector" aria-labelledby="inspector-h" data-testid="data-inspector">
      {/* Folded by default on a phone, where the panels stack and it would push the hex view a screen down. */}
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>
          <h2 id="inspector-h">
            Bytes at <span className="as-written">0x{hexOffset(cursor, 1)}</span>
          </h2>
        </summary>
        {error && <p className="invalid">{error}</p>}
        {bytes && (
          <table className="inspector-table">
            <thead>
              <tr>
                <th scope="col">type</th>
                <th scope="col">little-endian</th>
                <th scope="col">big-endian</th>
              </tr>
            </thead>
            <tbody>
              {NUMBER_TYPES.map((type) => (
                <tr key={type} data-type={type}>
                  <th scope="row">{type}</th>
                  <td data-order="le">{readNumber(bytes, type, true) ?? '—'}</td>
                  <td data-order="be">{type.endsWith('8') ? '' : (readNumber(bytes, type, false) ?? '—')}</td>
                </tr>
              ))}
              <tr data-type="unix-s">
                <th scope="row">time (u32 s)</th>
                <td data-order="le">{readTimestamp(bytes, 's', true) ?? '—'}</td>
                <td data-order="be">{readTimestamp(bytes, 's', false) ?? '—'}</td>
              </tr>
              <tr data-type="unix-ms">
                <th scope="row">time (u64 ms)</th>
                <td data-order="le">{readTimestamp(bytes, 'ms', true) ?? '—'}</td>
                <td data-order="be">{readTimestamp(bytes, 'ms', false) ?? '—'}</td>
              </tr>
              <tr data-type="utf8">
                <th scope="row">UTF-8</th>
                <td colSpan={2} className="text">
                  {(() => {
                    const text = readText(bytes);
                    return text === undefined ? '(not UTF-8)' : JSON.stringify(text);
                  })()}
                </td>
              </tr>
            </tbody>
          </table>
        )}
      </details>
    </section>
  );
}
