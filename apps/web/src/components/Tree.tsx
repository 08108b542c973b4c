import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ParserClient } from '../client';
import { displayValue, hexOffset } from '../format';
import type { NodeLocation, TreeNodeView } from '../protocol';
import { ProblemMark } from './DefectList';
import { useViewportSize } from './useViewportSize';

const ROW_HEIGHT = 24;
/** Children shown per expanded node at once; "previous/next" rows move the window. */
const WINDOW = 500;
const PAGE = 100;

type Row =
  | { type: 'node'; key: string; path: number[]; node: TreeNodeView; depth: number; parentKey: string | null }
  | { type: 'loading'; key: string; depth: number; parentKey: string }
  | {
      type: 'more';
      key: string;
      depth: number;
      parentKey: string;
      direction: 'prev' | 'next';
      count: number;
    };

const keyOf = (path: number[]) => path.join('/');

export interface TreeProps {
  client: ParserClient;
  sessionId: number;
  root: TreeNodeView;
  selectedKey: string | null;
  onSelect(path: number[], node: TreeNodeView): void;
  /** Expand to and show this node (set when a byte or a problem picks it). */
  reveal: { location: NodeLocation; token: number } | null;
}

/**
 * The inspection tree, virtualized: rows are a flat list of what is expanded, children are
 * fetched from the worker a page at a time, and nodes with millions of children show a
 * window of them. Keyboard: WAI-ARIA tree pattern, selection follows focus.
 */
export function Tree({ client, sessionId, root, selectedKey, onSelect, reveal }: TreeProps) {
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set(['']));
  const [windows, setWindows] = useState<Map<string, number>>(() => new Map());
  const cache = useRef(new Map<string, Map<number, TreeNodeView>>());
  const requested = useRef(new Set<string>());
  const [version, setVersion] = useState(0);
  const [activeKey, setActiveKey] = useState<string>('');
  const scrollRef = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const { height } = useViewportSize(scrollRef);
  const pendingScroll = useRef<string | null>(null);

  const rows = useMemo(() => {
    void version;
    const out: Row[] = [];
    const visit = (node: TreeNodeView, path: number[], depth: number, parentKey: string | null) => {
      const key = keyOf(path);
      out.push({ type: 'node', key, path, node, depth, parentKey });
      if (!expanded.has(key) || node.childCount === 0) return;
      const start = windows.get(key) ?? 0;
      const end = Math.min(node.childCount, start + WINDOW);
      if (start > 0)
        out.push({
          type: 'more',
          key: `${key}#prev`,
          depth: depth + 1,
          parentKey: key,
          direction: 'prev',
          count: start,
        });
      const children = cache.current.get(key);
      for (let i = start; i < end; i++) {
        const child = children?.get(i);
        if (child) visit(child, [...path, i], depth + 1, key);
        else out.push({ type: 'loading', key: `${key}#${i}`, depth: depth + 1, parentKey: key });
      }
      if (end < node.childCount) {
        out.push({
          type: 'more',
          key: `${key}#next`,
          depth: depth + 1,
          parentKey: key,
          direction: 'next',
          count: node.childCount - end,
        });
      }
    };
    visit(root, [], 0, null);
    return out;
  }, [root, expanded, windows, version]);

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
          let children = cache.current.get(row.parentKey);
          if (!children) cache.current.set(row.parentKey, (children = new Map()));
          for (let i = 0; i < nodes.length; i++) children.set(page + i, nodes[i]);
          setVersion((v) => v + 1);
        })
        .catch(() => requested.current.delete(id));
    }
  }, [rows, client, sessionId]);

  // Reveal a node picked elsewhere: expand its ancestors and move their windows onto it.
  useEffect(() => {
    if (!reveal) return;
    const { path, nodes } = reveal.location;
    setExpanded((old) => {
      const next = new Set(old);
      for (let i = 0; i < path.length; i++) next.add(keyOf(path.slice(0, i)));
      return next;
    });
    setWindows((old) => {
      const next = new Map(old);
      for (let i = 0; i < path.length; i++) {
        const key = keyOf(path.slice(0, i));
        const start = next.get(key) ?? 0;
        if (path[i] < start || path[i] >= start + WINDOW)
          next.set(key, Math.floor(path[i] / WINDOW) * WINDOW);
      }
      return next;
    });
    for (let i = 0; i < path.length; i++) {
      const parentKey = keyOf(path.slice(0, i));
      let children = cache.current.get(parentKey);
      if (!children) cache.current.set(parentKey, (children = new Map()));
      if (nodes[i + 1]) children.set(path[i], nodes[i + 1]);
    }
    setVersion((v) => v + 1);
    const key = keyOf(path);
    setActiveKey(key);
    pendingScroll.current = key;
  }, [reveal]);

  useEffect(() => {
    if (selectedKey !== null) setActiveKey(selectedKey);
  }, [selectedKey]);

  const activeIndex = Math.max(
    0,
    rows.findIndex((r) => r.key === activeKey),
  );

  const scrollToIndex = useCallback((index: number) => {
    const el = scrollRef.current;
    if (!el) return;
    const top = index * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight)
      el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
  }, []);

  useLayoutEffect(() => {
    const key = pendingScroll.current;
    if (key === null) return;
    const index = rows.findIndex((r) => r.key === key);
    if (index < 0) return;
    pendingScroll.current = null;
    const el = scrollRef.current;
    if (el) el.scrollTop = Math.max(0, index * ROW_HEIGHT - el.clientHeight / 3);
  }, [rows]);

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

  const activate = (index: number) => {
    const row = rows[Math.max(0, Math.min(rows.length - 1, index))];
    if (!row) return;
    setActiveKey(row.key);
    if (row.type === 'node') onSelect(row.path, row.node);
    scrollToIndex(rows.indexOf(row));
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    const row = rows[activeIndex];
    if (!row) return;
    const visible = Math.max(1, Math.floor(height / ROW_HEIGHT) - 1);
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
        activate(activeIndex + 1);
        break;
      case 'ArrowUp':
        activate(activeIndex - 1);
        break;
      case 'PageDown':
        activate(activeIndex + visible);
        break;
      case 'PageUp':
        activate(activeIndex - visible);
        break;
      case 'Home':
        activate(0);
        break;
      case 'End':
        activate(rows.length - 1);
        break;
      case 'ArrowRight':
        if (row.type === 'node' && row.node.childCount > 0) {
          if (!expanded.has(row.key)) toggle(row.key, true);
          else activate(activeIndex + 1);
        }
        break;
      case 'ArrowLeft':
        if (row.type === 'node' && expanded.has(row.key) && row.node.childCount > 0) toggle(row.key, false);
        else if (row.parentKey !== null) activate(rows.findIndex((r) => r.key === row.parentKey));
        break;
      case 'Enter':
      case ' ':
        if (row.type === 'more') moveWindow(row);
        else if (row.type === 'node' && row.node.childCount > 0) toggle(row.key);
        break;
      case '*':
        if (row.type === 'node' && row.parentKey !== null) {
          // Expand all siblings, as the ARIA tree pattern suggests.
          const siblings = rows.filter(
            (r) => r.type === 'node' && r.parentKey === row.parentKey && r.node.childCount > 0,
          );
          setExpanded((old) => new Set([...old, ...siblings.map((r) => r.key)]));
        }
        break;
      default:
        handled = false;
    }
    if (handled) event.preventDefault();
  };

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - 10);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + 10);
  const activeRow = rows[activeIndex];
  const rowId = (key: string) => `tree-${sessionId}-${key.replace(/[^0-9a-z]/gi, '_') || 'root'}`;

  return (
    <div
      ref={scrollRef}
      className="tree"
      role="tree"
      aria-label="Structure"
      tabIndex={0}
      aria-activedescendant={activeRow ? rowId(activeRow.key) : undefined}
      onKeyDown={onKeyDown}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
    >
      <div style={{ height: rows.length * ROW_HEIGHT, position: 'relative' }}>
        {rows.slice(first, last).map((row, i) => {
          const index = first + i;
          const style = { top: index * ROW_HEIGHT, paddingLeft: 6 + row.depth * 16 } as const;
          const active = row.key === activeRow?.key;
          if (row.type === 'loading') {
            return (
              // biome-ignore lint/a11y/useFocusableInteractive: the tree holds focus (aria-activedescendant).
              <div
                key={row.key}
                id={rowId(row.key)}
                className="tree-row muted"
                style={style}
                role="treeitem"
                aria-level={row.depth + 1}
              >
                loading…
              </div>
            );
          }
          if (row.type === 'more') {
            return (
              // biome-ignore lint/a11y/useFocusableInteractive lint/a11y/useKeyWithClickEvents: the tree holds focus (aria-activedescendant) and handles keys.
              <div
                key={row.key}
                id={rowId(row.key)}
                className={`tree-row more${active ? ' active' : ''}`}
                style={style}
                role="treeitem"
                aria-level={row.depth + 1}
                onClick={() => {
                  setActiveKey(row.key);
                  moveWindow(row);
                }}
              >
                {row.direction === 'next'
                  ? `▾ next ${Math.min(WINDOW, row.count)} of ${row.count} more`
                  : `▴ previous ${Math.min(WINDOW, row.count)}`}
              </div>
            );
          }
          const { node } = row;
          const open = expanded.has(row.key) && node.childCount > 0;
          const selected = row.key === selectedKey;
          const marked = node.problems?.length
            ? ` marked ${node.problems.some((p) => p.severity === 'error') ? 'error' : 'warning'}`
            : '';
          return (
            // biome-ignore lint/a11y/useFocusableInteractive lint/a11y/useKeyWithClickEvents: the tree holds focus (aria-activedescendant) and handles keys.
            <div
              key={row.key}
              id={rowId(row.key)}
              className={`tree-row${selected ? ' selected' : ''}${active ? ' active' : ''}${marked}`}
              style={style}
              role="treeitem"
              aria-level={row.depth + 1}
              aria-selected={selected}
              aria-expanded={node.childCount > 0 ? open : undefined}
              data-testid="tree-node"
              data-name={node.name}
              data-offset={node.offset}
              data-length={node.length}
              data-problems={node.problems?.map((p) => p.code).join(' ') || undefined}
              title={`${node.name} (${node.kind}) at byte ${node.offset}, ${node.length} bytes${node.file ? ` in ${node.file}` : ''}`}
              onClick={() => {
                setActiveKey(row.key);
                onSelect(row.path, node);
                scrollRef.current?.focus({ preventScroll: true });
              }}
            >
              <span
                className="twisty"
                aria-hidden="true"
                onClick={(e) => {
                  e.stopPropagation();
                  if (node.childCount > 0) toggle(row.key);
                }}
              >
                {node.childCount > 0 ? (open ? '▾' : '▸') : ''}
              </span>
              <span className="node-name">{node.name}</span>
              <span className="node-kind">{node.kind}</span>
              {node.problems?.length ? <ProblemMark problems={node.problems} /> : null}
              {node.value !== undefined && node.value !== null && (
                <span className="node-value">{displayValue(node.value)}</span>
              )}
              <span className="node-range">
                0x{hexOffset(node.offset, 4)} +{node.length}
              </span>
            </div>
          );
        })}
      </div>
    </div>
  );
}
