import { hexOffset, parseOffset } from './format';

/** What a link to a remote file's view holds: the file's URL, the byte and the file shown. */
export interface ShareState {
  url: string;
  at?: number;
  /** The session path of the file shown, when it is not the main file. */
  file?: string;
}

/** The view the address bar asks for (?url=…&at=0x…&file=…), if any. */
export function readShareLink(search = location.search): ShareState | undefined {
  const params = new URLSearchParams(search);
  const url = params.get('url');
  if (!url) return undefined;
  const at = parseOffset(params.get('at') ?? '');
  return { url, at, file: params.get('file') ?? undefined };
}

/** The format plugins the address bar asks for (?plugin=…, repeatable). */
export function readPluginParams(search = location.search): string[] {
  return new URLSearchParams(search).getAll('plugin');
}

/**
 * Puts the view in the address bar (no new history entry per click), so the link reopens it;
 * the plugins it names stay, since the file may need them.
 */
export function writeShareLink(state: ShareState): void {
  const params = new URLSearchParams();
  for (const plugin of readPluginParams()) params.append('plugin', plugin);
  params.set('url', state.url);
  if (state.at !== undefined) params.set('at', `0x${hexOffset(state.at, 1)}`);
  if (state.file) params.set('file', state.file);
  const next = `?${params}`;
  if (next !== location.search) history.replaceState(null, '', `${location.pathname}${next}${location.hash}`);
}
