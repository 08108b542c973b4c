import { useCallback, useEffect, useRef, useState } from 'react';
import type { ParserClient } from '../client';

export const CHUNK = 4096;
const MAX_CHUNKS = 64;

/**
 * The bytes of [from, to) of a file, read a 4 KiB chunk at a time through the worker (over
 * HTTP each chunk is a range request) and kept in a small cache. `version` changes when a
 * chunk arrives; `byteAt` is undefined for bytes not read yet.
 */
export function useHexBytes(
  client: ParserClient,
  sessionId: number,
  file: string | undefined,
  size: number,
  from: number,
  to: number,
) {
  const chunks = useRef(new Map<number, Uint8Array>());
  const inflight = useRef(new Set<number>());
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<string | null>(null);

  // A new file means new bytes.
  useEffect(() => {
    void file;
    void sessionId;
    chunks.current = new Map();
    inflight.current = new Set();
    setError(null);
    setVersion((v) => v + 1);
  }, [file, sessionId]);

  useEffect(() => {
    const first = Math.floor(from / CHUNK);
    const last = Math.floor((Math.min(size, to) - 1) / CHUNK);
    for (let c = first; c <= last && size > 0; c++) {
      if (chunks.current.has(c) || inflight.current.has(c)) continue;
      inflight.current.add(c);
      const map = chunks.current;
      client
        .request({ type: 'bytes', sessionId, file, offset: c * CHUNK, length: CHUNK })
        .then((bytes) => {
          if (map !== chunks.current) return;
          map.set(c, bytes);
          if (map.size > MAX_CHUNKS) map.delete(map.keys().next().value as number);
          setVersion((v) => v + 1);
        })
        .catch((e: Error) => setError(e.message))
        .finally(() => inflight.current.delete(c));
    }
  }, [from, to, size, client, sessionId, file]);

  const byteAt = useCallback(
    (offset: number): number | undefined => chunks.current.get(Math.floor(offset / CHUNK))?.[offset % CHUNK],
    [],
  );
  return { byteAt, version, error };
}
