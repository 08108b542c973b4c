/**
 * The one model of "what is in this file", rendered by the CLI's `inspect` and the web
 * page's tree + hex view. Every node owns a byte range of one file.
 */
export interface InspectNode {
  name: string;
  /** What the node is: 'file', 'header', 'field', 'table', 'block', 'row', 'array', ... */
  kind: string;
  /** Absolute byte offset of the node's range in `file`. */
  offset: number;
  /** Length of the range in bytes (0 for a zero-length structure). */
  length: number;
  /** The file the range is in, for multi-file formats (relative path); inherited when absent. */
  file?: string;
  /** A short display value ("SCBFv1", 42, "float64"). */
  value?: string | number | boolean | null;
  children?: InspectNode[];
  /** Children too many to build up front (rows of a 10 GB index): loaded a page at a time. */
  lazy?: LazyChildren;
}

export interface LazyChildren {
  count: number;
  load(start: number, end: number): Promise<InspectNode[]>;
}

export function node(
  name: string,
  kind: string,
  offset: number,
  length: number,
  extra: Partial<Omit<InspectNode, 'name' | 'kind' | 'offset' | 'length'>> = {},
): InspectNode {
  return { name, kind, offset, length, ...extra };
}

/** Depth-first walk; return false from visit to skip a node's children. Lazy children are not loaded. */
export function walk(
  root: InspectNode,
  visit: (node: InspectNode, path: InspectNode[]) => boolean | undefined,
  path: InspectNode[] = [],
): void {
  if (visit(root, path) === false) return;
  const next = [...path, root];
  for (const child of root.children ?? []) walk(child, visit, next);
}

/**
 * The deepest node whose range contains `offset` in `file` (click a byte → its owner).
 * Returns the path from the root to that node.
 */
export function nodesAt(root: InspectNode, offset: number, file?: string): InspectNode[] {
  const path: InspectNode[] = [];
  let current: InspectNode | undefined = root;
  let currentFile = root.file;
  while (current) {
    path.push(current);
    let next: InspectNode | undefined;
    for (const child of current.children ?? []) {
      const childFile = child.file ?? currentFile;
      if (file !== undefined && childFile !== undefined && childFile !== file) continue;
      if (offset >= child.offset && offset < child.offset + Math.max(child.length, 0)) {
        next = child;
        break;
      }
    }
    if (next) currentFile = next.file ?? currentFile;
    current = next;
  }
  return path;
}

/** A JSON-able copy with lazy children reduced to a count (for workers and --json). */
export function toPlainTree(root: InspectNode, depth = Number.POSITIVE_INFINITY): PlainInspectNode {
  const { lazy, children, ...rest } = root;
  const out: PlainInspectNode = { ...rest };
  if (children && depth > 0) out.children = children.map((c) => toPlainTree(c, depth - 1));
  else if (children) out.childCount = children.length;
  if (lazy) out.childCount = (out.childCount ?? 0) + lazy.count;
  return out;
}

export interface PlainInspectNode extends Omit<InspectNode, 'children' | 'lazy'> {
  children?: PlainInspectNode[];
  /** Children not included (below --depth, or lazy). */
  childCount?: number;
}
