import { useEffect, useRef } from 'react';
import type { SessionInfo } from '../protocol';
import type { TabLink } from '../shareLink';
import type { Bookmarks } from './useBookmarks';
import type { Navigation } from './useNavigation';

/**
 * A tab's part of the shareable link. `link` (what the address bar asked for when the page
 * loaded, or a local file picked again) is put back once the session shows: its bookmarks and
 * its byte. From then on `report` gets the tab's view whenever it changes; the tabs write the
 * address bar from all of them. `position` is the selection history's: a step back or forward
 * rewrites the link of the entry it lands on, so it carries today's bookmarks.
 */
export function useShareLink(
  session: SessionInfo | null,
  nav: Navigation,
  bookmarks: Bookmarks,
  position: number,
  link: TabLink | undefined,
  report: (view: TabLink) => void,
): void {
  const linked = useRef(link);
  const { cursor, hexFile, pick } = nav;
  const { list, replace } = bookmarks;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a history step (position) rewrites the link.
  useEffect(() => {
    if (!session) return;
    const pending = linked.current;
    if (pending) {
      linked.current = undefined;
      if (pending.bookmarks?.length) replace(pending.bookmarks);
      if (pending.at !== undefined) {
        pick(pending.file ?? session.mainFile, pending.at, true);
        return;
      }
      // The link's bookmarks come in with the next render; the address bar keeps them until then.
      if (pending.bookmarks?.length) return;
    }
    const view = {
      at: cursor || undefined,
      file: hexFile === session.mainFile ? undefined : hexFile,
      bookmarks: list,
    };
    report(
      session.source === 'url'
        ? { url: session.name, ...view }
        : { local: session.name, folder: session.source === 'directory' || undefined, ...view },
    );
  }, [session, cursor, hexFile, pick, list, replace, position]);
}
