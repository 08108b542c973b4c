import { useEffect, useRef, useState } from 'react';
import { isAbort, type ParserClient } from '../client';
import { formatBytes } from '../format';
import type { RangeHashes } from '../protocol';

export interface SelectionHashesProps {
  client: ParserClient;
  sessionId: number;
  file: string | undefined;
  range: { start: number; end: number } | null;
}

/**
 * CRC-32 and SHA-256 of the selection, computed in the worker a chunk at a time (a selection can
 * be a whole multi-GB node), with progress and a cancel button while it runs.
 */
export function SelectionHashes({ client, sessionId, file, range }: SelectionHashesProps) {
  const [result, setResult] = useState<(RangeHashes & { file?: string }) | null>(null);
  const [status, setStatus] = useState('');
  const running = useRef<AbortController | null>(null);
  const start = range?.start ?? 0;
  const length = range ? range.end - range.start : 0;

  // A new selection: the hashes being computed are no longer the ones asked for.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the range's bounds are what matter.
  useEffect(() => {
    running.current?.abort();
    running.current = null;
    setStatus('');
  }, [file, start, length]);
  useEffect(() => () => running.current?.abort(), []);

  const compute = async () => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setStatus('hashing…');
    try {
      const hashes = await client.request(
        { type: 'hash', sessionId, file, offset: start, length },
        {
          signal: controller.signal,
          onProgress: (p) =>
            p.total &&
            setStatus(`hashing… ${Math.floor((100 * p.done) / p.total)}% of ${formatBytes(p.total)}`),
        },
      );
      setResult({ ...hashes, file });
      setStatus('');
    } catch (e) {
      // Dropped for a new selection: that one's status stands.
      if (running.current !== controller) return;
      setStatus(isAbort(e) ? 'cancelled' : (e as Error).message);
    } finally {
      if (running.current === controller) running.current = null;
    }
  };

  const copy = async (name: string, value: string) => {
    try {
      await navigator.clipboard.writeText(value);
      setStatus(`copied ${name}`);
    } catch (e) {
      setStatus((e as Error).message);
    }
  };

  const current =
    result && range && result.file === file && result.offset === start && result.length === length
      ? result
      : null;
  const busy = status.startsWith('hashing');
  return (
    <div className="selection-hashes" data-testid="selection-hashes">
      <button type="button" disabled={!range || busy} onClick={compute}>
        hashes
      </button>
      {busy && (
        <button type="button" onClick={() => running.current?.abort()}>
          cancel
        </button>
      )}
      {current && (
        <dl className="hashes">
          {(
            [
              ['CRC-32', current.crc32],
              ['SHA-256', current.sha256],
            ] as const
          ).map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>
                <code data-testid={`hash-${name.toLowerCase()}`}>{value}</code>
                <button type="button" aria-label={`copy ${name}`} onClick={() => copy(name, value)}>
                  copy
                </button>
              </dd>
            </div>
          ))}
        </dl>
      )}
      {status && (
        <span className="muted" role="status" data-testid="hash-status">
          {status}
        </span>
      )}
    </div>
  );
}
