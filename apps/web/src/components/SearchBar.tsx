import { useRef, useState } from 'react';
import { isAbort, type ParserClient } from '../client';
import { hexOffset } from '../format';
import { encodeNumber, NUMBER_TYPES, type NumberType, parseHexBytes } from '../values';

type Mode = 'hex' | 'text' | 'number';

export interface SearchBarProps {
  client: ParserClient;
  sessionId: number;
  file: string | undefined;
  /** Where "next" starts (just after it) and "previous" ends. */
  cursor: number;
  /** The file's size: "previous" from the first match wraps to the last one. */
  size: number;
  onFound(offset: number, length: number): void;
}

/** Find hex bytes, UTF-8 text or a number of a chosen type and byte order; next and previous. */
export function SearchBar({ client, sessionId, file, cursor, size, onFound }: SearchBarProps) {
  const [mode, setMode] = useState<Mode>('hex');
  const [type, setType] = useState<NumberType>('u32');
  const [littleEndian, setLittleEndian] = useState(true);
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState('');
  const running = useRef<AbortController | null>(null);

  const pattern = (): Uint8Array | string => {
    if (mode === 'hex') return parseHexBytes(query);
    if (mode === 'text') return query ? new TextEncoder().encode(query) : 'type some text';
    return encodeNumber(query, type, littleEndian);
  };

  const search = async (backward: boolean) => {
    const bytes = pattern();
    if (typeof bytes === 'string') {
      setStatus(bytes);
      return;
    }
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setStatus('searching…');
    const find = (from: number) =>
      client.request(
        { type: 'search', sessionId, file, pattern: bytes, from, backward },
        {
          signal: controller.signal,
          onProgress: (p) => p.total && setStatus(`searching… ${Math.round((100 * p.done) / p.total)}%`),
        },
      );
    try {
      let found = await find(backward ? cursor : cursor + 1);
      // Past the last match "next" goes round to the first (and "previous" to the last), as
      // editors do; the status says so, since the view jumps across the file.
      let wrapped = false;
      if (found === null) {
        found = await find(backward ? size : 0);
        wrapped = found !== null;
      }
      if (found === null) setStatus('no match in the file');
      else {
        const where = wrapped ? (backward ? ' · wrapped to the end' : ' · wrapped to the start') : '';
        setStatus(`found at 0x${hexOffset(found, 1)}${where}`);
        onFound(found, bytes.byteLength);
      }
    } catch (e) {
      setStatus(isAbort(e) ? 'cancelled' : (e as Error).message);
    } finally {
      if (running.current === controller) running.current = null;
    }
  };

  return (
    // biome-ignore lint/a11y/useSemanticElements: <search> wrapping a form adds nothing here; the form is the landmark.
    <form
      className="search-bar"
      role="search"
      aria-label="Search bytes"
      onSubmit={(e) => {
        e.preventDefault();
        search(false);
      }}
    >
      <select aria-label="Search for" value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
        <option value="hex">hex</option>
        <option value="text">text</option>
        <option value="number">number</option>
      </select>
      {mode === 'number' && (
        <>
          <select
            aria-label="Number type"
            value={type}
            onChange={(e) => setType(e.target.value as NumberType)}
          >
            {NUMBER_TYPES.filter((t) => t !== 'f16').map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
          <select
            aria-label="Byte order"
            value={littleEndian ? 'le' : 'be'}
            onChange={(e) => setLittleEndian(e.target.value === 'le')}
          >
            <option value="le">LE</option>
            <option value="be">BE</option>
          </select>
        </>
      )}
      <input
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        placeholder={mode === 'hex' ? '53 43 42 46' : mode === 'text' ? 'text' : '42'}
        aria-label="Search query"
        data-testid="search-query"
        size={12}
      />
      <button type="button" onClick={() => search(true)} aria-label="Previous match">
        ◀
      </button>
      <button type="submit" aria-label="Next match">
        ▶
      </button>
      {status && (
        <span className="muted" role="status" data-testid="search-status">
          {status}
        </span>
      )}
    </form>
  );
}
