import { useCallback, useRef, useState } from 'react';
import type { ParserClient } from '../client';
import type { LocatedDefect, LocationView, NodeLocation, SessionInfo, TreeNodeView } from '../protocol';

export interface Range {
  start: number;
  end: number;
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
  const [cursor, setCursor] = useState(0);
  const [scrollRequest, setScrollRequest] = useState({ offset: 0, token: 0 });
  const [range, setRange] = useState<Range | null>(null);
  const token = useRef(0);

  const scrollTo = useCallback((offset: number) => {
    setCursor(offset);
    setScrollRequest({ offset, token: ++token.current });
  }, []);

  const loadFile = useCallback(
    async (sessionId: number, file: string) => {
      setHexFile(file);
      try {
        setHexSize(await client.request({ type: 'size', sessionId, file }));
      } catch (e) {
        onFailure((e as Error).message);
      }
    },
    [client, onFailure],
  );

  const reset = useCallback((info: SessionInfo) => {
    setSelected(null);
    setReveal(null);
    setRange(null);
    setCursor(0);
    setHexFile(info.initialFile);
    setHexSize(info.files.find((f) => f.path === info.initialFile)?.size ?? info.mainSize ?? 0);
    setScrollRequest({ offset: 0, token: ++token.current });
  }, []);

  const showFile = useCallback(
    async (file: string | undefined) => {
      // A folder's own node has no bytes of its own: keep the file shown.
      if (!session || file === undefined) return;
      setRange(null);
      await loadFile(session.sessionId, file);
    },
    [session, loadFile],
  );

  const selectNode = useCallback(
    (path: number[], node: TreeNodeView) => {
      setSelected({ path, node });
      setRange(null);
      if (node.file !== undefined && node.file !== hexFileRef.current) showFile(node.file);
      scrollTo(node.offset);
    },
    [showFile, scrollTo],
  );

  const showDefect = useCallback(
    (info: SessionInfo, defect: LocatedDefect) => {
      const node = defect.nodes[defect.nodes.length - 1];
      if (!node) return;
      setSelected({ path: defect.indexPath, node });
      setRange(null);
      setReveal({ location: { path: defect.indexPath, nodes: defect.nodes }, token: ++token.current });
      if (node.file !== undefined && node.file !== hexFileRef.current) loadFile(info.sessionId, node.file);
      scrollTo(node.offset);
    },
    [loadFile, scrollTo],
  );

  const pick = useCallback(
    async (file: string | undefined, offset: number, scroll: boolean) => {
      if (!session) return;
      if (file !== hexFileRef.current) await showFile(file);
      setRange(null);
      setCursor(offset);
      if (scroll) setScrollRequest({ offset, token: ++token.current });
      if (!session.root || session.root.childCount === 0) return;
      const location = await client.request({ type: 'nodeAt', sessionId: session.sessionId, file, offset });
      const node = location.nodes[location.nodes.length - 1];
      if (!node) return;
      setSelected({ path: location.path, node });
      setReveal({ location, token: ++token.current });
    },
    [client, session, showFile],
  );

  const showRange = useCallback(
    async (location: LocationView) => {
      const file = location.file ?? hexFileRef.current;
      if (file !== hexFileRef.current) await showFile(file);
      setRange({ start: location.offset, end: location.offset + Math.max(1, location.length) });
      scrollTo(location.offset);
    },
    [showFile, scrollTo],
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
  };
}
