import { useEffect, useRef } from 'react';
import type { OpenInput, SessionInfo } from '../protocol';
import { readShareLink, writeShareLink } from '../shareLink';
import type { Navigation } from './useNavigation';

/**
 * `?url=…&at=…&file=…` reopens a remote file at a byte (shareable links), once the plugins the
 * link names are loaded; from then on the address bar follows the view of a remote file.
 */
export function useShareLink(
  session: SessionInfo | null,
  nav: Navigation,
  ready: boolean,
  open: (input: OpenInput) => void,
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
  useEffect(() => {
    if (session?.source !== 'url') return;
    const link = linked.current;
    if (link) {
      linked.current = undefined;
      if (link.at !== undefined) {
        pick(link.file ?? session.mainFile, link.at, true);
        return;
      }
    }
    writeShareLink({
      url: session.name,
      at: cursor || undefined,
      file: hexFile === session.mainFile ? undefined : hexFile,
    });
  }, [session, cursor, hexFile, pick]);
}
