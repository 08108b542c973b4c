import { useEffect, useRef } from 'react';
import type { OpenInput, SessionInfo } from '../protocol';
import { readShareLink, writeShareLink } from '../shareLink';
import type { Bookmarks } from './useBookmarks';
import type { Navigation } from './useNavigation';

/**
 * `?url=…&at=…&file=…&bm=…` reopens a remote file at a byte with its bookmarks (shareable links),
 * once the plugins the link names are loaded; from then on the address bar follows the view of a
 * remote file. `position` is the selection history's: a step back or forward rewrites the link of
 * the entry it lands on, so it carries today's bookmarks.
 */
export function useShareLink(
  session: SessionInfo | null,
  nav: Navigation,
  ready: boolean,
  open: (input: OpenInput) => void,
  bookmarks: Bookmarks,
  position: number,
): void {
  const linked = useRef(readShareLink());
  const opened = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the plugins are in.
  useEffect(() => {
    if (!ready || opened.current || !linked.current) return;
    opened.current = true;
    open({ kind: 'url', url: linked.current.url });
  }, [ready]);

  const { cursor, hexFile, pick } = nav;
  const { list, replace } = bookmarks;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a history step (position) rewrites the link.
  useEffect(() => {
    if (session?.source !== 'url') return;
    const link = linked.current;
    if (link) {
      linked.current = undefined;
      if (link.bookmarks?.length) replace(link.bookmarks);
      if (link.at !== undefined) {
        pick(link.file ?? session.mainFile, link.at, true);
        return;
      }
      // The link's bookmarks come in with the next render; the address bar keeps them until then.
      if (link.bookmarks?.length) return;
    }
    writeShareLink({
      url: session.name,
      at: cursor || undefined,
      file: hexFile === session.mainFile ? undefined : hexFile,
      bookmarks: list,
    });
  }, [session, cursor, hexFile, pick, list, replace, position]);
}
