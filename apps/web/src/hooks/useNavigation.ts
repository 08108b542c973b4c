import { useCallback, useRef, useState } from 'react';
import type { ParserClient } from '../client';
import type { LocatedDefect, LocationView, NodeLocation, SessionInfo, TreeNodeView } from '../protocol';

export interface Range {
  start: number;
  end: number;
}

/** A place in a session, as the history keeps it: enough to put the view back as it was. */
export interface Place {
  file: string | undefined;
  cursor: number;
  range: Range | null;
  selected: Navigation['selected'];
  /** The selected node's ancestors, when known, so the tree can be expanded down to it. */
  nodes?: TreeNodeView[];
}

export interface Navigation {
  /** The selected tree node and its path. */
  selected: { path: number[]; node: TreeNodeView } | null;
  /** Expand the tree to this node (set when a byte, a problem or a defect picks it). */
  reveal: { location: NodeLocation; token: number } | null;
  /** The session path of the file the hex view shows. */
  hexFile: string | undefined;
  hexSize: number;
  cursor: number;
  setCursor(offset: number): void;
  scrollRequest: { offset: number; token: number };
  /** A range picked by dragging, found by search or named by a data cell; it wins over the node's. */
  range: Range | null;
  setRange(range: Range | null): void;
  /** A fresh session: the first file at byte 0, nothing selected. */
  reset(info: SessionInfo): void;
  showFile(file: string | undefined): Promise<void>;
  selectNode(path: number[], node: TreeNodeView): void;
  /** A byte or a problem points at an offset: select the node that owns it. */
  pick(file: string | undefined, offset: number, scroll: boolean): Promise<void>;
  /** A defect's node, selected and revealed, its bytes in view. */
  showDefect(info: SessionInfo, defect: LocatedDefect): void;
  /** A value's bytes: its file in the hex view, the range selected and in view. */
  showRange(location: LocationView): Promise<void>;
  /** Cursor to `offset`, scrolled into view. */
  scrollTo(offset: number): void;
  /** Bumped when the user has made a selection (not on mere cursor moves): history records it. */
  mark: number;
  /** The ancestors of the last node selected by location (a defect, a byte), for the history. */
  lastNodes: TreeNodeView[] | undefined;
  /** A byte pick is still finding its node: its cursor move is part of that selection. */
  picking(): boolean;
  /** Puts a recorded place back: file, selection, cursor, scroll and the tree's expansion. */
  restore(place: Place): void;
}

/** Where the user is in a session: the hex view's file, cursor and selection, the tree's node. */
export function useNavigation(
  client: ParserClient,
  session: SessionInfo | null,
  onFailure: (message: string) => void,
): Navigation {
  const [selected, setSelected] = useState<Navigation['selected']>(null);
  const [reveal, setReveal] = useState<Navigation['reveal']>(null);
  const [hexFile, setHexFile] = useState<string | undefined>(undefined);
  const hexFileRef = useRef<string | undefined>(undefined);
  hexFileRef.current = hexFile;
  const [hexSize, setHexSize] = useState(0);
  const loadFile = useLoadFile(client, onFailure, setHexFile, setHexSize);
  const [cursor, setCursor] = useState(0);
  const [scrollRequest, setScrollRequest] = useState({ offset: 0, token: 0 });
  const token = useRef(0);
  const { range, setRangeState, setRange, mark, commit, pending, picking } = useSelectionMark();
  const lastNodes = useRef<TreeNodeView[] | undefined>(undefined);

  const scrollTo = useCallback((offset: number) => {
    setCursor(offset);
    setScrollRequest({ offset, token: ++token.current });
  }, []);

  const reset = useCallback(
    (info: SessionInfo) => {
      setSelected(null);
      setReveal(null);
      setRangeState(null);
      setCursor(0);
      commit();
      setHexFile(info.initialFile);
      setHexSize(info.files.find((f) => f.path === info.initialFile)?.size ?? info.mainSize ?? 0);
      setScrollRequest({ offset: 0, token: ++token.current });
    },
    [commit, setRangeState],
  );

  const showFile = useCallback(
    async (file: string | undefined) => {
      // A folder's own node has no bytes of its own: keep the file shown.
      if (!session || file === undefined) return;
      setRangeState(null);
      await loadFile(session.sessionId, file);
    },
    [session, loadFile, setRangeState],
  );

  const selectNode = useCallback(
    (path: number[], node: TreeNodeView) => {
      setSelected({ path, node });
      setRangeState(null);
      lastNodes.current = undefined;
      if (node.file !== undefined && node.file !== hexFileRef.current) showFile(node.file);
      scrollTo(node.offset);
      commit();
    },
    [showFile, scrollTo, commit, setRangeState],
  );

  const showDefect = useCallback(
    (info: SessionInfo, defect: LocatedDefect) => {
      const node = defect.nodes[defect.nodes.length - 1];
      if (!node) return;
      setSelected({ path: defect.indexPath, node });
      setRangeState(null);
      lastNodes.current = defect.nodes;
      setReveal({ location: { path: defect.indexPath, nodes: defect.nodes }, token: ++token.current });
      if (node.file !== undefined && node.file !== hexFileRef.current) loadFile(info.sessionId, node.file);
      scrollTo(node.offset);
      commit();
    },
    [loadFile, scrollTo, commit, setRangeState],
  );

  const pick = useCallback(
    async (file: string | undefined, offset: number, scroll: boolean) => {
      if (!session) return;
      pending.current++;
      try {
        if (file !== hexFileRef.current) await showFile(file);
        setRangeState(null);
        setCursor(offset);
        if (scroll) setScrollRequest({ offset, token: ++token.current });
        if (!session.root || session.root.childCount === 0) return commit();
        const location = await client.request({ type: 'nodeAt', sessionId: session.sessionId, file, offset });
        const node = location.nodes[location.nodes.length - 1];
        if (node) {
          setSelected({ path: location.path, node });
          lastNodes.current = location.nodes;
          setReveal({ location, token: ++token.current });
        }
        commit();
      } finally {
        pending.current--;
      }
    },
    [client, session, showFile, commit, setRangeState, pending],
  );

  const showRange = useCallback(
    async (location: LocationView) => {
      const file = location.file ?? hexFileRef.current;
      if (file !== hexFileRef.current) await showFile(file);
      setRange({ start: location.offset, end: location.offset + Math.max(1, location.length) });
      scrollTo(location.offset);
    },
    [showFile, scrollTo, setRange],
  );

  const restore = useCallback(
    (place: Place) => {
      setSelected(place.selected);
      setRangeState(place.range);
      if (place.selected)
        setReveal({
          location: { path: place.selected.path, nodes: place.nodes ?? [] },
          token: ++token.current,
        });
      if (session && place.file !== undefined && place.file !== hexFileRef.current)
        loadFile(session.sessionId, place.file);
      scrollTo(place.cursor);
    },
    [session, loadFile, scrollTo, setRangeState],
  );

  return {
    selected,
    reveal,
    hexFile,
    hexSize,
    cursor,
    setCursor,
    scrollRequest,
    range,
    setRange,
    reset,
    showFile,
    selectNode,
    pick,
    showDefect,
    showRange,
    scrollTo,
    mark,
    lastNodes: lastNodes.current,
    picking,
    restore,
  };
}

/** Shows a file in the hex view and reads its size from the worker. */
function useLoadFile(
  client: ParserClient,
  onFailure: (message: string) => void,
  setHexFile: (file: string) => void,
  setHexSize: (size: number) => void,
) {
  return useCallback(
    async (sessionId: number, file: string) => {
      setHexFile(file);
      try {
        setHexSize(await client.request({ type: 'size', sessionId, file }));
      } catch (e) {
        onFailure((e as Error).message);
      }
    },
    [client, onFailure, setHexFile, setHexSize],
  );
}

/** The picked range, and the mark bumped on every selection the history should record. */
function useSelectionMark() {
  const [range, setRangeState] = useState<Range | null>(null);
  const [mark, setMark] = useState(0);
  const commit = useCallback(() => setMark((m) => m + 1), []);
  /** A range the user picked (drag, search, data cell) is a selection of its own. */
  const setRange = useCallback(
    (next: Range | null) => {
      setRangeState(next);
      if (next) commit();
    },
    [commit],
  );
  // A byte pick still finding its node: its cursor move is part of that selection.
  const pending = useRef(0);
  const picking = useCallback(() => pending.current > 0, []);
  return { range, setRangeState, setRange, mark, commit, pending, picking };
}
