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

/**
 * A tab's view in a link: a remote file's (its URL), or a local file's, which only its name can
 * stand for (a page cannot reopen a file the user picked: after a reload it asks for it again).
 */
export type TabLink = ShareState | (Omit<ShareState, 'url'> & { local: string; folder?: boolean });

function viewOf(params: URLSearchParams): TabLink | undefined {
  const url = params.get('url');
  const local = params.get('local');
  if (!url && !local) return undefined;
  const at = parseOffset(params.get('at') ?? '');
  const bookmarks = params.getAll('bm').flatMap((text) => parseBookmark(text) ?? []);
  const view = { at, file: params.get('file') ?? undefined, bookmarks };
  return url ? { url, ...view } : { local: local!, folder: params.has('folder') || undefined, ...view };
}

function putView(params: URLSearchParams, view: TabLink): URLSearchParams {
  if ('url' in view) params.set('url', view.url);
  else params.set('local', view.local);
  if ('local' in view && view.folder) params.set('folder', '1');
  if (view.at !== undefined) params.set('at', `0x${hexOffset(view.at, 1)}`);
  if (view.file) params.set('file', view.file);
  for (const bookmark of view.bookmarks ?? []) params.append('bm', formatBookmark(bookmark));
  return params;
}

/**
 * The open tabs a link holds. The shown tab, when it is a remote file, is written as a single-file
 * link always was (`url`, `at`, `file`, `bm`), so old links still open; every other tab is one
 * `tab` parameter holding its own view the same way, in strip order, and `active` is the shown
 * tab's place in the strip when it is not the first.
 */
export function readTabsLink(search = location.search): { tabs: TabLink[]; active: number } {
  const params = new URLSearchParams(search);
  const tabs = params.getAll('tab').flatMap((text) => viewOf(new URLSearchParams(text)) ?? []);
  const active = Math.max(0, Number.parseInt(params.get('active') ?? '0', 10) || 0);
  const shown = viewOf(params);
  if (shown && 'url' in shown) tabs.splice(Math.min(active, tabs.length), 0, shown);
  return { tabs, active: Math.min(active, Math.max(0, tabs.length - 1)) };
}

/** Puts the open tabs in the address bar of the current history entry (see `readTabsLink`). */
export function writeTabsLink(tabs: TabLink[], active: number): void {
  const params = new URLSearchParams();
  for (const plugin of readPluginParams()) params.append('plugin', plugin);
  const shown = tabs[active];
  if (shown && 'url' in shown) putView(params, shown);
  for (const tab of tabs)
    if (tab !== shown || !('url' in tab)) params.append('tab', `${putView(new URLSearchParams(), tab)}`);
  if (active > 0) params.set('active', String(active));
  replaceSearch(params);
}

/** The format plugins the address bar asks for (?plugin=…, repeatable). */
export function readPluginParams(search = location.search): string[] {
  return new URLSearchParams(search).getAll('plugin');
}

function replaceSearch(params: URLSearchParams): void {
  const query = `${params}`;
  const next = query ? `?${query}` : '';
  if (next !== location.search)
    history.replaceState(history.state, '', `${location.pathname}${next}${location.hash}`);
}
