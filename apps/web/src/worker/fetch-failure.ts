import { isBinscopeError } from '@binscope/core';

/**
 * fetch() rejects with a bare TypeError both when the network fails and when CORS blocks
 * the response (the page may not learn which), so name both and say what a server on
 * another origin must send for this page to read it in ranges.
 */
export function explainFetchFailure(url: string, error: unknown): unknown {
  const cause = isBinscopeError(error, 'SourceError') ? (error as { cause?: unknown }).cause : error;
  if (!(cause instanceof TypeError)) return error;
  let crossOrigin = true;
  let origin = '';
  try {
    origin = (self as unknown as { location: Location }).location.origin;
    crossOrigin = new URL(url, origin).origin !== origin;
  } catch {}
  const why = crossOrigin
    ? `the server did not allow this page to read it (CORS), or it could not be reached. A server on another origin must answer with "Access-Control-Allow-Origin: ${origin || '*'}" (or *), "Access-Control-Allow-Headers: Range" and "Access-Control-Expose-Headers: Content-Range, Content-Length, Accept-Ranges"`
    : 'the server could not be reached';
  return new Error(`cannot fetch ${url}: ${why}.`);
}
