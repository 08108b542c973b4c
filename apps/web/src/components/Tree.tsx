import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import type { ParserClient } from '../client';
import type { NodeLocation, TreeNodeView } from '../protocol';
import { ROW_HEIGHT, TreeRow } from './tree/TreeRow';
import { useTreeData } from './tree/useTreeData';
import { useViewportSize } from './useViewportSize';

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
  const [activeKey, setActiveKey] = useState<string>('');
  const scrollRef = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const { height } = useViewportSize(scrollRef);
  const pendingScroll = useRef<string | null>(null);
  const onReveal = useCallback((key: string) => {
    setActiveKey(key);
    pendingScroll.current = key;
  }, []);
  const { rows, expanded, toggle, moveWindow, expandSiblings } = useTreeData(
    client,
    sessionId,
    root,
    reveal,
    onReveal,
  );

  const [selectedSeen, setSelectedSeen] = useState(selectedKey);
  if (selectedKey !== selectedSeen) {
    setSelectedSeen(selectedKey);
    if (selectedKey !== null) setActiveKey(selectedKey);
  }

  const activeIndex = Math.max(
    0,
    rows.findIndex((r) => r.key === activeKey),
  );

  useLayoutEffect(() => {
    const key = pendingScroll.current;
    if (key === null) return;
    const index = rows.findIndex((r) => r.key === key);
    if (index < 0) return;
    pendingScroll.current = null;
    const el = scrollRef.current;
    if (el) el.scrollTop = Math.max(0, index * ROW_HEIGHT - el.clientHeight / 3);
  }, [rows]);

  const activate = (index: number) => {
    const row = rows[Math.max(0, Math.min(rows.length - 1, index))];
    if (!row) return;
    setActiveKey(row.key);
    if (row.type === 'node') onSelect(row.path, row.node);
    const el = scrollRef.current;
    const top = rows.indexOf(row) * ROW_HEIGHT;
    if (!el) return;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight)
      el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    const row = rows[activeIndex];
    // Alt+Left / Alt+Right step through the selection history, not the tree.
    if (!row || event.altKey) return;
    const hasChildren = row.type === 'node' && row.node.childCount > 0;
    const visible = Math.max(1, Math.floor(height / ROW_HEIGHT) - 1);
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp':
      case 'PageDown':
      case 'PageUp':
        activate(activeIndex + { ArrowDown: 1, ArrowUp: -1, PageDown: visible, PageUp: -visible }[event.key]);
        break;
      case 'Home':
        activate(0);
        break;
      case 'End':
        activate(rows.length - 1);
        break;
      case 'ArrowRight':
        if (hasChildren && !expanded.has(row.key)) toggle(row.key, true);
        else if (hasChildren) activate(activeIndex + 1);
        break;
      case 'ArrowLeft':
        if (hasChildren && expanded.has(row.key)) toggle(row.key, false);
        else if (row.parentKey !== null) activate(rows.findIndex((r) => r.key === row.parentKey));
        break;
      case 'Enter':
      case ' ':
        if (row.type === 'more') moveWindow(row);
        else if (hasChildren) toggle(row.key);
        break;
      case '*':
        if (row.type === 'node' && row.parentKey !== null) expandSiblings(row);
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
        {rows.slice(first, last).map((row, i) => (
          <TreeRow
            key={row.key}
            row={row}
            index={first + i}
            id={rowId(row.key)}
            active={row.key === activeRow?.key}
            selected={row.key === selectedKey}
            open={expanded.has(row.key) && row.type === 'node' && row.node.childCount > 0}
            onActivate={() => {
              setActiveKey(row.key);
              if (row.type !== 'node') return;
              onSelect(row.path, row.node);
              scrollRef.current?.focus({ preventScroll: true });
            }}
            onToggle={() => toggle(row.key)}
            onMore={() => row.type === 'more' && moveWindow(row)}
          />
        ))}
      </div>
    </div>
  );
}
