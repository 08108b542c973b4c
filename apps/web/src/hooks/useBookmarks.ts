import { useCallback, useEffect, useState } from 'react';
import type { SessionInfo } from '../protocol';
import type { Bookmark } from '../shareLink';
import type { Navigation } from './useNavigation';

export interface Bookmarks {
  list: Bookmark[];
  /** Keeps the current selection (a picked range, else the selected node's bytes, else the cursor's byte). */
  add(name: string): void;
  remove(index: number): void;
  /** The bookmarks a shared link carries. */
  replace(list: Bookmark[]): void;
}

/** The bytes the view has selected now, in the file it shows. */
export function currentSelection(nav: Navigation): Bookmark | undefined {
  if (nav.hexFile === undefined) return undefined;
  const node = nav.selected?.node;
  const range =
    nav.range ??
    (node && node.file === nav.hexFile && node.length > 0
      ? { start: node.offset, end: node.offset + node.length }
      : nav.hexSize > 0
        ? { start: nav.cursor, end: nav.cursor + 1 }
        : undefined);
  return range && { ...range, file: nav.hexFile };
}

/** Named byte ranges of the open session; a new session starts with none. */
export function useBookmarks(session: SessionInfo | null, nav: Navigation): Bookmarks {
  const [list, setList] = useState<Bookmark[]>([]);
  const sessionId = session?.sessionId;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new session clears them.
  useEffect(() => setList([]), [sessionId]);
  const add = (name: string) => {
    const selection = currentSelection(nav);
    if (!selection) return;
    const file = selection.file === session?.mainFile ? undefined : selection.file;
    setList((old) => [...old, { ...selection, file, name: name.trim() || undefined }]);
  };
  const remove = useCallback((index: number) => setList((old) => old.filter((_, i) => i !== index)), []);
  return { list, add, remove, replace: setList };
}
