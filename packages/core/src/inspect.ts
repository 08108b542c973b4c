import type { Problem, ValidationReport } from './errors.js';

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
  /** The defects found in this node's bytes (inspect mode marks the node a problem is about). */
  problems?: Problem[];
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

/**
 * Depth-first walk; return false from visit to skip a node's children. Lazy children are not
 * loaded. An explicit stack, not recursion, so no tree is too deep for it. `path` (the nodes
 * above) is one array, updated in place: copy it to keep it past the call.
 */
export function walk(
  root: InspectNode,
  visit: (node: InspectNode, path: InspectNode[]) => boolean | undefined,
  path: InspectNode[] = [],
): void {
  const base = path.length;
  const stack: { node: InspectNode; depth: number }[] = [{ node: root, depth: base }];
  while (stack.length > 0) {
    const { node: current, depth } = stack.pop()!;
    path.length = depth;
    if (visit(current, path) === false) continue;
    path.length = depth;
    path.push(current);
    const children = current.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], depth: depth + 1 });
  }
  path.length = base;
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
  const plain = (n: InspectNode): PlainInspectNode => {
    const { lazy: _lazy, children: _children, ...rest } = n;
    return { ...rest };
  };
  const top = plain(root);
  // Each copy is filled in when popped: no recursion, however deep the tree.
  const stack: { from: InspectNode; to: PlainInspectNode; depth: number }[] = [
    { from: root, to: top, depth },
  ];
  while (stack.length > 0) {
    const { from, to, depth: left } = stack.pop()!;
    if (from.children && left > 0) {
      to.children = from.children.map(plain);
      from.children.forEach((c, i) => {
        stack.push({ from: c, to: to.children![i], depth: left - 1 });
      });
    } else if (from.children) to.childCount = from.children.length;
    if (from.lazy) to.childCount = (to.childCount ?? 0) + from.lazy.count;
  }
  return top;
}

export interface PlainInspectNode extends Omit<InspectNode, 'children' | 'lazy'> {
  children?: PlainInspectNode[];
  /** Children not included (below --depth, or lazy). */
  childCount?: number;
}

/** Marks `target` as the node a problem is about. */
export function markProblem(target: InspectNode, problem: Problem): void {
  if (!(target.problems ??= []).some((p) => sameProblem(p, problem))) target.problems.push(problem);
}

function sameProblem(a: Problem, b: Problem): boolean {
  return problemKey(a) === problemKey(b);
}

/** Two records of one defect (a parser's mark and the report's entry) share this key. */
function problemKey(p: Problem): string {
  return `${p.code}\u0000${p.offset ?? ''}\u0000${p.file ?? ''}\u0000${p.message}`;
}

/** A problem with the node it is marked on: names from the root's child down, and positions. */
export interface LocatedProblem extends Problem {
  severity: 'error' | 'warning';
  /** Node names below the root, joined by "/" (what `inspect --hex` takes). */
  path: string;
  /** Child positions below the root, for a UI to select the node. */
  indexPath: number[];
}

/**
 * What inspect mode returns: the tree as far as the file could be parsed, every problem marked
 * on its node, and the problems with their node paths. `valid` is false when there are errors.
 */
export interface InspectResult extends ValidationReport {
  root: InspectNode;
  located: LocatedProblem[];
}

/**
 * Completes an inspect-mode parse: a problem the parser did not mark on a node is marked on the
 * deepest node whose bytes contain its offset (the root when none does), then every marked
 * problem gets its node path.
 */
export function inspectResult(root: InspectNode, report: ValidationReport): InspectResult {
  // Keys, not pairwise comparison: a file with a bad value in every row has many problems.
  const marked = new Set<string>();
  walk(root, (n) => {
    for (const p of n.problems ?? []) marked.add(problemKey(p));
    return undefined;
  });
  const reported = [...report.errors, ...report.warnings];
  for (const problem of reported) {
    if (marked.has(problemKey(problem))) continue;
    const owner =
      problem.offset === undefined ? [root] : nodesAt(root, problem.offset, problem.file ?? root.file);
    markProblem(owner[owner.length - 1] ?? root, problem);
    marked.add(problemKey(problem));
  }
  // One entry per problem, in check order (the report's), at the first node in tree order that
  // carries it: a defect marked on a pointer and on what it points to is one defect.
  const rank = new Map<string, number>();
  reported.forEach((p, i) => {
    if (!rank.has(problemKey(p))) rank.set(problemKey(p), i);
  });
  const found = new Map<string, LocatedProblem & { rank: number }>();
  // Tree order with an explicit stack (children pushed last to first); a node's path is
  // spelled out from its parents only when it carries a new problem.
  const order: { n: InspectNode; parent: number; position: number }[] = [];
  const stack: { n: InspectNode; parent: number; position: number }[] = [
    { n: root, parent: -1, position: 0 },
  ];
  const pathOf = (at: number) => {
    const names: string[] = [];
    const positions: number[] = [];
    for (let i = at; order[i].parent >= 0; i = order[i].parent) {
      names.push(order[i].n.name);
      positions.push(order[i].position);
    }
    return { path: names.reverse().join('/'), indexPath: positions.reverse() };
  };
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const at = order.push(entry) - 1;
    const { n } = entry;
    for (const p of n.problems ?? []) {
      const key = problemKey(p);
      if (found.has(key)) continue;
      const r = rank.get(key) ?? reported.length;
      const severity = r < report.errors.length ? 'error' : 'warning';
      found.set(key, { ...p, severity, ...pathOf(at), rank: r });
    }
    const children = n.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ n: children[i], parent: at, position: i });
  }
  const located: LocatedProblem[] = [...found.values()]
    .map((f, i) => ({ f, i }))
    .sort((a, b) => a.f.rank - b.f.rank || a.i - b.i)
    .map(({ f: { rank: _rank, ...problem } }) => problem);
  return { ...report, root, located };
}

/** The tree of a file that could not be parsed at all: one node over its bytes, marked. */
export function unparsedResult(
  name: string,
  size: number,
  report: ValidationReport,
  extra: Partial<InspectNode> = {},
): InspectResult {
  return inspectResult(node(name, 'file', 0, size, extra), report);
}
