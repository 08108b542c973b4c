import { hexOffset, parseOffset } from './format';

/** What a link to a remote file's view holds: the file's URL, the byte and the file shown. */
export interface ShareState {
  url: string;
  at?: number;
  /** The session path of the file shown, when it is not the main file. */
  file?: string;
  bookmarks?: Bookmark[];
}

/** A named byte range the user keeps (`end` exclusive); `file` is its session path, if not the main file. */
export interface Bookmark {
  start: number;
  end: number;
  file?: string;
  name?: string;
}

/**
 * One `bm` parameter per bookmark: `0x40-0x50`, then `@file` (URI-encoded, so it holds no colon)
 * when it is not the main file, then `:name` when it has one.
 */
export function formatBookmark(b: Bookmark): string {
  const file = b.file ? `@${encodeURIComponent(b.file)}` : '';
  return `0x${hexOffset(b.start, 1)}-0x${hexOffset(b.end, 1)}${file}${b.name ? `:${b.name}` : ''}`;
}

export function parseBookmark(text: string): Bookmark | undefined {
  const m = /^0x([0-9a-f]+)-0x([0-9a-f]+)(?:@([^:]*))?(?::([\s\S]*))?$/i.exec(text);
  if (!m) return undefined;
  const start = Number.parseInt(m[1], 16);
  const end = Number.parseInt(m[2], 16);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) return undefined;
  let file: string | undefined;
  try {
    file = m[3] ? decodeURIComponent(m[3]) : undefined;
  } catch {
    return undefined;
  }
  return { start, end, file, name: m[4] || undefined };
}

/** The view the address bar asks for (?url=…&at=0x…&file=…), if any. */
export function readShareLink(search = location.search): ShareState | undefined {
  const params = new URLSearchParams(search);
  const url = params.get('url');
  if (!url) return undefined;
  const at = parseOffset(params.get('at') ?? '');
  const bookmarks = params.getAll('bm').flatMap((text) => parseBookmark(text) ?? []);
  return { url, at, file: params.get('file') ?? undefined, bookmarks };
}

/** The format plugins the address bar asks for (?plugin=…, repeatable). */
export function readPluginParams(search = location.search): string[] {
  return new URLSearchParams(search).getAll('plugin');
}

/**
 * Puts the view in the address bar of the current history entry (the selection history adds the
 * entries, and its state is kept), so the link reopens it; the plugins it names stay, since the
 * file may need them.
 */
export function writeShareLink(state: ShareState): void {
  const params = new URLSearchParams();
  for (const plugin of readPluginParams()) params.append('plugin', plugin);
  params.set('url', state.url);
  if (state.at !== undefined) params.set('at', `0x${hexOffset(state.at, 1)}`);
  if (state.file) params.set('file', state.file);
  for (const bookmark of state.bookmarks ?? []) params.append('bm', formatBookmark(bookmark));
  const next = `?${params}`;
  if (next !== location.search)
    history.replaceState(history.state, '', `${location.pathname}${next}${location.hash}`);
}
