import { useRef, useState } from 'react';
import { isAbort, type ParserClient } from '../client';
import { hexOffset } from '../format';
import type { SearchMatch, SearchQuery } from '../protocol';
import { encodeNumber, NUMBER_TYPES, type NumberType, parseHexBytes } from '../values';
import { SearchResults } from './SearchResults';

/** How many matches "all" lists (the worker's own limit too). */
const LIST_LIMIT = 1000;

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

/**
 * The query the worker runs, or what is wrong with the input. A regular expression is checked
 * here, so a typo reads as a message rather than a failed request.
 */
function buildQuery(
  mode: Mode,
  query: string,
  regex: boolean,
  type: NumberType,
  littleEndian: boolean,
): SearchQuery | string {
  if (mode === 'hex') {
    const bytes = parseHexBytes(query);
    return typeof bytes === 'string' ? bytes : { pattern: bytes };
  }
  if (mode === 'number') {
    const bytes = encodeNumber(query, type, littleEndian);
    return typeof bytes === 'string' ? bytes : { pattern: bytes };
  }
  if (!query) return regex ? 'type a regular expression' : 'type some text';
  if (!regex) return { pattern: new TextEncoder().encode(query) };
  try {
    new RegExp(query, 'g');
  } catch (e) {
    return `invalid regular expression: ${(e as Error).message}`;
  }
  return { regex: query };
}

/** Find hex bytes, UTF-8 text or a number of a chosen type and byte order; next and previous. */
export function SearchBar({ client, sessionId, file, cursor, size, onFound }: SearchBarProps) {
  const [mode, setMode] = useState<Mode>('hex');
  const [type, setType] = useState<NumberType>('u32');
  const [littleEndian, setLittleEndian] = useState(true);
  const [query, setQuery] = useState('');
  const [regex, setRegex] = useState(false);
  const [status, setStatus] = useState('');
  const [list, setList] = useState<{ matches: SearchMatch[]; more: boolean } | null>(null);
  const [current, setCurrent] = useState<number | null>(null);
  const running = useRef<AbortController | null>(null);

  /** The query, or null after saying what is wrong; cancels the search still running. */
  const start = (): { query: SearchQuery; controller: AbortController } | null => {
    const built = buildQuery(mode, query, regex && mode === 'text', type, littleEndian);
    if (typeof built === 'string') {
      setStatus(built);
      return null;
    }
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setStatus('searching…');
    return { query: built, controller };
  };
  const options = (controller: AbortController) => ({
    signal: controller.signal,
    onProgress: (p: { done: number; total?: number }) =>
      p.total && setStatus(`searching… ${Math.round((100 * p.done) / p.total)}%`),
  });
  const show = (match: SearchMatch) => {
    setCurrent(match.offset);
    onFound(match.offset, match.length);
  };

  const listAll = async () => {
    const started = start();
    if (!started) return;
    const { query: q, controller } = started;
    try {
      const all = await client.request(
        { type: 'searchAll', sessionId, file, query: q, limit: LIST_LIMIT },
        options(controller),
      );
      setList(all);
      setStatus(`${all.matches.length}${all.more ? '+' : ''} matches`);
    } catch (e) {
      setStatus(isAbort(e) ? 'cancelled' : (e as Error).message);
    } finally {
      if (running.current === controller) running.current = null;
    }
  };

  const search = async (backward: boolean) => {
    const started = start();
    if (!started) return;
    const { query: q, controller } = started;
    const find = (from: number) =>
      client.request({ type: 'search', sessionId, file, query: q, from, backward }, options(controller));
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
        setStatus(`found at 0x${hexOffset(found.offset, 1)}${where}`);
        show(found);
      }
    } catch (e) {
      setStatus(isAbort(e) ? 'cancelled' : (e as Error).message);
    } finally {
      if (running.current === controller) running.current = null;
    }
  };

  return (
    <>
      <SearchForm
        {...{ mode, setMode, type, setType, littleEndian, setLittleEndian, query, setQuery, regex, setRegex }}
        status={status}
        onSearch={search}
        onList={listAll}
      />
      {list && (
        <SearchResults
          matches={list.matches}
          more={list.more}
          current={current}
          onPick={show}
          onClose={() => setList(null)}
        />
      )}
    </>
  );
}

interface SearchFormProps {
  mode: Mode;
  setMode(mode: Mode): void;
  type: NumberType;
  setType(type: NumberType): void;
  littleEndian: boolean;
  setLittleEndian(littleEndian: boolean): void;
  query: string;
  setQuery(query: string): void;
  regex: boolean;
  setRegex(regex: boolean): void;
  status: string;
  onSearch(backward: boolean): void;
  onList(): void;
}

function SearchForm(props: SearchFormProps) {
  const { mode, setMode, type, setType, littleEndian, setLittleEndian, query, setQuery, regex, setRegex } =
    props;
  const { status, onSearch: search } = props;
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
      {mode === 'text' && (
        <label className="search-regex" title="Regular expression over the bytes read as Latin-1">
          <input
            type="checkbox"
            checked={regex}
            onChange={(e) => setRegex(e.target.checked)}
            data-testid="search-regex"
          />
          regex
        </label>
      )}
      <button type="button" onClick={() => search(true)} aria-label="Previous match">
        ◀
      </button>
      <button type="submit" aria-label="Next match">
        ▶
      </button>
      <button type="button" onClick={props.onList} aria-label="List all matches">
        all
      </button>
      {status && (
        <span className="muted" role="status" data-testid="search-status">
          {status}
        </span>
      )}
    </form>
  );
}
