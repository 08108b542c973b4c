import type { TreeNodeView } from '../../protocol';

/** Children shown per expanded node at once; "previous/next" rows move the window. */
export const WINDOW = 500;

export type Row =
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

export const keyOf = (path: number[]) => path.join('/');

/**
 * The tree as the flat list of rows on screen: every expanded node's window of children, a
 * "loading" row for each child not fetched yet, and "previous/next" rows around a window.
 */
export function treeRows(
  root: TreeNodeView,
  expanded: ReadonlySet<string>,
  windows: ReadonlyMap<string, number>,
  cache: ReadonlyMap<string, ReadonlyMap<number, TreeNodeView>>,
): Row[] {
  const out: Row[] = [];
  const visit = (node: TreeNodeView, path: number[], depth: number, parentKey: string | null) => {
    const key = keyOf(path);
    out.push({ type: 'node', key, path, node, depth, parentKey });
    if (!expanded.has(key) || node.childCount === 0) return;
    const start = windows.get(key) ?? 0;
    const end = Math.min(node.childCount, start + WINDOW);
    const child = { depth: depth + 1, parentKey: key };
    if (start > 0) out.push({ type: 'more', key: `${key}#prev`, ...child, direction: 'prev', count: start });
    const children = cache.get(key);
    for (let i = start; i < end; i++) {
      const loaded = children?.get(i);
      if (loaded) visit(loaded, [...path, i], depth + 1, key);
      else out.push({ type: 'loading', key: `${key}#${i}`, ...child });
    }
    if (end < node.childCount)
      out.push({
        type: 'more',
        key: `${key}#next`,
        ...child,
        direction: 'next',
        count: node.childCount - end,
      });
  };
  visit(root, [], 0, null);
  return out;
}
