import type { ByteSource } from '@binscope/core';
import type { SearchMatch, SearchQuery } from '../protocol';

/** Bytes scanned per read; matches across two windows are found through an overlap. */
const WINDOW = 1 << 20;
/**
 * The longest a regular-expression match can be: windows overlap by this much, so a match
 * that crosses a window boundary is still found whole, and memory stays bounded whatever
 * the pattern (a longer match is cut at this length).
 */
export const REGEX_OVERLAP = 4096;
/**
 * Bytes before a window a regular expression sees but cannot match in: lookbehinds and `\b`
 * have their context, and `^` (without a multiline flag) means the file's start, not a window's.
 */
const REGEX_CONTEXT = 256;
/** The most matches "list all" returns; the page says when there are more. */
export const MATCH_LIMIT = 1000;

type Progress = (event: { done: number; total: number }) => void;

/** Finds the matches starting in a window, in order; `maxLength` sets the windows' overlap. */
interface Matcher {
  maxLength: number;
  /** Bytes read before each window as context (matches start at or after them). */
  context: number;
  /** Matches never overlap (a regular expression's); byte patterns report every offset. */
  disjoint: boolean;
  /** The matches starting at or after `from` (window offsets). */
  matches(window: Uint8Array, from: number): Iterable<SearchMatch>;
}

/** A query as a matcher; an invalid regular expression throws its SyntaxError here. */
export function matcherFor(query: SearchQuery): Matcher | null {
  if ('regex' in query) {
    if (query.regex === '') return null;
    const regex = new RegExp(query.regex, query.ignoreCase ? 'gi' : 'g');
    return {
      maxLength: REGEX_OVERLAP,
      context: REGEX_CONTEXT,
      disjoint: true,
      matches: (window, from) => regexMatches(window, from, regex),
    };
  }
  const pattern = query.pattern;
  if (pattern.byteLength === 0 || pattern.byteLength > WINDOW) return null;
  return {
    maxLength: pattern.byteLength,
    context: 0,
    disjoint: false,
    matches: (window) => byteMatches(window, pattern),
  };
}

/**
 * The bytes decoded as Latin-1 (one character per byte), so a match's index and length are its
 * byte offset and byte length; empty matches are skipped (they select nothing).
 */
function* regexMatches(window: Uint8Array, from: number, regex: RegExp): Iterable<SearchMatch> {
  const text = latin1.decode(window);
  regex.lastIndex = from;
  for (let m = regex.exec(text); m; m = regex.exec(text)) {
    if (m[0].length === 0) {
      regex.lastIndex++;
      continue;
    }
    yield { offset: m.index, length: m[0].length };
  }
}
const latin1 = new TextDecoder('latin1');

function* byteMatches(haystack: Uint8Array, needle: Uint8Array): Iterable<SearchMatch> {
  const first = needle[0];
  const last = haystack.byteLength - needle.byteLength;
  for (let i = haystack.indexOf(first); i >= 0 && i <= last; i = haystack.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.byteLength && haystack[i + k] === needle[k]) k++;
    if (k === needle.byteLength) yield { offset: i, length: needle.byteLength };
  }
}

/**
 * The matches starting in `[start, end)` (file offsets), in order, read with the matcher's
 * context before and `maxLength - 1` bytes after the span.
 */
async function* spanMatches(
  source: ByteSource,
  matcher: Matcher,
  start: number,
  end: number,
  signal: AbortSignal,
): AsyncIterable<SearchMatch> {
  const from = start - Math.min(start, matcher.context);
  const to = Math.min(source.size, end + matcher.maxLength - 1);
  const window = await source.read(from, to - from, { signal });
  for (const m of matcher.matches(window, start - from)) {
    if (from + m.offset >= end) break;
    yield { offset: from + m.offset, length: m.length };
  }
}

/**
 * Every window `[start, start + WINDOW)` from `from` forward, read with `overlap` more bytes,
 * with the matches that start inside it (before the overlap), shifted to file offsets.
 */
async function* forward(
  source: ByteSource,
  matcher: Matcher,
  from: number,
  signal: AbortSignal,
  onProgress?: Progress,
): AsyncIterable<SearchMatch> {
  const size = source.size;
  const total = Math.max(0, size - from);
  // A regular expression starts afresh in each window: one of its matches must not begin
  // inside the previous window's last match.
  let end = 0;
  for (let start = Math.max(0, from); start < size; start += WINDOW) {
    signal.throwIfAborted();
    for await (const m of spanMatches(source, matcher, start, Math.min(size, start + WINDOW), signal)) {
      if (matcher.disjoint && m.offset < end) continue;
      end = m.offset + m.length;
      yield m;
    }
    onProgress?.({ done: Math.min(total, start + WINDOW - from), total });
  }
}

/**
 * The first match at or after `from` (or, backward, the last one starting before `from`), or
 * null. Reads the file a window at a time, never all of it.
 */
export async function searchSource(
  source: ByteSource,
  query: SearchQuery,
  from: number,
  backward: boolean,
  signal: AbortSignal,
  onProgress?: Progress,
): Promise<SearchMatch | null> {
  const matcher = matcherFor(query);
  if (!matcher) return null;
  if (!backward) {
    for await (const m of forward(source, matcher, from, signal, onProgress)) return m;
    return null;
  }
  // Backward: the last match of each window, the window's last start being before `from`.
  const total = Math.max(0, from);
  for (let stop = Math.min(from, source.size); stop > 0; stop -= WINDOW) {
    signal.throwIfAborted();
    const start = Math.max(0, stop - WINDOW);
    let last: SearchMatch | null = null;
    for await (const m of spanMatches(source, matcher, start, stop, signal)) last = m;
    if (last) return last;
    onProgress?.({ done: Math.min(total, from - start), total });
  }
  return null;
}

/** The first `limit` matches in the file, in order, and whether there are more. */
export async function searchAll(
  source: ByteSource,
  query: SearchQuery,
  limit: number,
  signal: AbortSignal,
  onProgress?: Progress,
): Promise<{ matches: SearchMatch[]; more: boolean }> {
  const matcher = matcherFor(query);
  const matches: SearchMatch[] = [];
  if (!matcher) return { matches, more: false };
  const cap = Math.max(0, Math.min(limit, MATCH_LIMIT));
  for await (const m of forward(source, matcher, 0, signal, onProgress)) {
    if (matches.length === cap) return { matches, more: true };
    matches.push(m);
  }
  return { matches, more: false };
}
