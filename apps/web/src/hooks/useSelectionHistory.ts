import { useCallback, useEffect, useRef, useState } from 'react';
import type { SessionInfo } from '../protocol';
import type { Navigation, Place } from './useNavigation';

/**
 * How many past selections a session keeps; older ones fall off the back. Chromium and Firefox
 * keep 50 history entries a tab and drop the oldest: the list keeps as many, so its Back stops
 * where the browser's does.
 */
export const HISTORY_LIMIT = 50;

export interface SelectionHistory {
  canBack: boolean;
  canForward: boolean;
  back(): void;
  forward(): void;
  /** Moves when the history does, so what follows the view (the address bar) can follow it too. */
  position: number;
}

interface Entry {
  id: number;
  place: Place;
}

/** The marker our entries carry in `history.state`; another page load's entries never match. */
const PAGE = Math.random().toString(36).slice(2);
/** Each open file (tab) has its own worker, whose session ids start at 1: the owner names the tab too. */
let tabsSeen = 0;

/** The file tab a history belongs to: only the shown tab answers keys; an entry of a hidden one shows it. */
export interface HistoryTab {
  isActive(): boolean;
  activate(): void;
}

const selectionKey = (p: Place) =>
  `${p.file ?? ''}|${p.selected?.path.join('/') ?? '-'}|${p.range ? `${p.range.start}-${p.range.end}` : '-'}`;

/** Two places are one history step when they select the same thing (a bare cursor counts only alone). */
const samePlace = (a: Place, b: Place) =>
  selectionKey(a) === selectionKey(b) && (!!a.selected || !!a.range || a.cursor === b.cursor);

/**
 * Back and forward through past selections. Each selection becomes an entry of the browser's own
 * history (pushState, same document: nothing is reloaded), so the browser's back and forward, the
 * toolbar's buttons and Alt+Left / Alt+Right all walk the same list; a popped entry of this session
 * puts its selection, cursor and scroll back. Cursor moves alone update the current entry.
 */
export function useSelectionHistory(
  nav: Navigation,
  session: SessionInfo | null,
  tab?: HistoryTab,
): SelectionHistory {
  const [instance] = useState(() => `${PAGE}:${++tabsSeen}`);
  const ownerOf = (s: SessionInfo) => `${instance}:${s.sessionId}`;
  const tabRef = useRef(tab);
  tabRef.current = tab;
  const entries = useRef<Entry[]>([]);
  const [index, setIndexState] = useState(-1);
  const indexRef = useRef(-1);
  const owner = useRef<string | null>(null);
  const nextId = useRef(1);
  const lastMark = useRef(nav.mark);
  const navRef = useRef(nav);
  navRef.current = nav;
  const setIndex = useCallback((i: number) => {
    indexRef.current = i;
    setIndexState(i);
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a selection (mark) or a cursor move acts.
  useEffect(() => {
    if (!session) return;
    const place: Place = {
      file: nav.hexFile,
      cursor: nav.cursor,
      range: nav.range,
      selected: nav.selected,
      nodes: nav.lastNodes,
    };
    const current = entries.current[indexRef.current];
    const marked = lastMark.current !== nav.mark;
    lastMark.current = nav.mark;
    const fresh = owner.current !== ownerOf(session);
    if (!marked && !fresh) {
      if (current && !nav.picking()) current.place = { ...current.place, cursor: nav.cursor };
      return;
    }
    if (!fresh && current && samePlace(current.place, place)) {
      current.place = { ...place, nodes: place.nodes ?? current.place.nodes };
      return;
    }
    const entry = { id: nextId.current++, place };
    const state = { binscope: { owner: ownerOf(session), id: entry.id } };
    if (fresh) {
      // A newly opened file starts its own list in the entry the page is on, unless another tab's
      // list has that entry: then in a new one, so Back returns to that tab's place.
      const other: unknown = history.state?.binscope?.owner;
      const shared =
        typeof other === 'string' && other.startsWith(`${PAGE}:`) && !other.startsWith(`${instance}:`);
      owner.current = ownerOf(session);
      entries.current = [entry];
      if (shared) history.pushState(state, '', location.href);
      else history.replaceState(state, '', location.href);
      setIndex(0);
      return;
    }
    const kept = [...entries.current.slice(0, indexRef.current + 1), entry];
    entries.current = kept.slice(Math.max(0, kept.length - HISTORY_LIMIT));
    history.pushState(state, '', location.href);
    setIndex(entries.current.length - 1);
  }, [nav.mark, nav.cursor, session]);

  useEffect(() => {
    const onPop = (event: PopStateEvent) => {
      const mine = event.state?.binscope;
      if (!mine || mine.owner !== owner.current) return setIndex(-1);
      const at = entries.current.findIndex((e) => e.id === mine.id);
      // An entry that fell off the bounded list is left as it is.
      if (at < 0) return setIndex(-1);
      setIndex(at);
      if (tabRef.current && !tabRef.current.isActive()) tabRef.current.activate();
      navRef.current.restore(entries.current[at].place);
    };
    const onKey = (event: KeyboardEvent) => {
      if (!event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
      if (tabRef.current && !tabRef.current.isActive()) return;
      // The browser would do the same; doing it here keeps it to this page's own entries.
      event.preventDefault();
      const i = indexRef.current;
      if (event.key === 'ArrowLeft' && i > 0) history.back();
      if (event.key === 'ArrowRight' && i >= 0 && i < entries.current.length - 1) history.forward();
    };
    window.addEventListener('popstate', onPop);
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('popstate', onPop);
      window.removeEventListener('keydown', onKey);
    };
  }, [setIndex]);

  const back = useCallback(() => {
    if (indexRef.current > 0) history.back();
  }, []);
  const forward = useCallback(() => {
    if (indexRef.current >= 0 && indexRef.current < entries.current.length - 1) history.forward();
  }, []);
  return {
    canBack: index > 0,
    canForward: index >= 0 && index < entries.current.length - 1,
    back,
    forward,
    position: index,
  };
}
