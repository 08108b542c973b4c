import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ParserClient } from '../../client';
import type { NodeLocation, TreeNodeView } from '../../protocol';
import { keyOf, type Row, treeRows, WINDOW } from './rows';

const PAGE = 100;

/**
 * What the tree shows and holds: which nodes are expanded and which window of their children
 * is on screen, the children fetched so far (a page at a time, from the worker), and a node
 * picked elsewhere revealed by expanding its ancestors.
 */
export function useTreeData(
  client: ParserClient,
  sessionId: number,
  root: TreeNodeView,
  reveal: { location: NodeLocation; token: number } | null,
  onReveal: (key: string) => void,
) {
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set(['']));
  const [windows, setWindows] = useState<Map<string, number>>(() => new Map());
  const cache = useRef(new Map<string, Map<number, TreeNodeView>>());
  const requested = useRef(new Set<string>());
  const [version, setVersion] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` says when the cache changed.
  const rows = useMemo(
    () => treeRows(root, expanded, windows, cache.current),
    [root, expanded, windows, version],
  );

  const childrenOf = useCallback((parentKey: string) => {
    let children = cache.current.get(parentKey);
    if (!children) cache.current.set(parentKey, (children = new Map()));
    return children;
  }, []);

  // Fetch missing child pages of expanded nodes.
  useEffect(() => {
    for (const row of rows) {
      if (row.type !== 'loading') continue;
      const index = Number(row.key.slice(row.key.lastIndexOf('#') + 1));
      const page = Math.floor(index / PAGE) * PAGE;
      const id = `${row.parentKey}@${page}`;
      if (requested.current.has(id)) continue;
      requested.current.add(id);
      const path = row.parentKey === '' ? [] : row.parentKey.split('/').map(Number);
      client
        .request({ type: 'children', sessionId, path, start: page, end: page + PAGE })
        .then((nodes) => {
          const children = childrenOf(row.parentKey);
          for (let i = 0; i < nodes.length; i++) children.set(page + i, nodes[i]);
          setVersion((v) => v + 1);
        })
        .catch(() => requested.current.delete(id));
    }
  }, [rows, client, sessionId, childrenOf]);

  // Reveal a node picked elsewhere: expand its ancestors and move their windows onto it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new reveal request acts.
  useEffect(() => {
    if (!reveal) return;
    const { path, nodes } = reveal.location;
    const ancestors = path.map((_, i) => keyOf(path.slice(0, i)));
    setExpanded((old) => new Set([...old, ...ancestors]));
    setWindows((old) => {
      const next = new Map(old);
      ancestors.forEach((key, i) => {
        const start = next.get(key) ?? 0;
        if (path[i] < start || path[i] >= start + WINDOW)
          next.set(key, Math.floor(path[i] / WINDOW) * WINDOW);
      });
      return next;
    });
    ancestors.forEach((key, i) => {
      if (nodes[i + 1]) childrenOf(key).set(path[i], nodes[i + 1]);
    });
    setVersion((v) => v + 1);
    onReveal(keyOf(path));
  }, [reveal]);

  const toggle = (key: string, open?: boolean) =>
    setExpanded((old) => {
      const next = new Set(old);
      if (open ?? !next.has(key)) next.add(key);
      else next.delete(key);
      return next;
    });

  const moveWindow = (row: Extract<Row, { type: 'more' }>) => {
    const start = windows.get(row.parentKey) ?? 0;
    const next = row.direction === 'next' ? start + WINDOW : Math.max(0, start - WINDOW);
    setWindows((old) => new Map(old).set(row.parentKey, next));
  };

  /** Expands every sibling of a row that has children (the ARIA tree pattern's `*`). */
  const expandSiblings = (row: Row) => {
    const siblings = rows.filter(
      (r) => r.type === 'node' && r.parentKey === row.parentKey && r.node.childCount > 0,
    );
    setExpanded((old) => new Set([...old, ...siblings.map((r) => r.key)]));
  };

  return { rows, expanded, toggle, moveWindow, expandSiblings };
}
