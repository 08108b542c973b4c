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
 * Completes an inspect-mode parse: every problem not yet marked (by the parser, on the node it
 * knows is at fault) is placed by markProblems, then every marked problem gets its node path.
 */
export function inspectResult(root: InspectNode, report: ValidationReport): InspectResult {
  markProblems(root, report);
  const reported = [...report.errors, ...report.warnings];
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

/**
 * Carries each located problem down into lazy children: a problem placed on a node whose
 * children load lazily (the rows of a table) is about the row, and the field of it, that holds
 * its offset: the node a click on that byte selects. Rows are found by binary search one row
 * at a time (lazy children are in offset order, as every format's row tables are), so this
 * reads a handful of rows per problem whatever the table's size. A step into lazy children
 * is named like any other (`path`) and counted after the eager children (`indexPath`). A problem
 * the parser marked itself (`parserMarked`, keys from `parserMarks`) stays where it put it.
 */
export async function locateInLazy(
  result: InspectResult,
  signal?: AbortSignal,
  parserMarked: ReadonlySet<string> = new Set(),
): Promise<InspectResult> {
  const located: LocatedProblem[] = [];
  for (const problem of result.located) {
    // A parser's own mark says which node is at fault (a region's checksum is the region's).
    const kept = parserMarked.has(problemKey(problem));
    located.push(kept ? problem : await intoLazy(result.root, problem, signal));
  }
  return { ...result, located };
}

/** The problems a parser marked on its tree's nodes itself (before `inspectResult` places the rest). */
export function parserMarks(root: InspectNode): Set<string> {
  const marked = new Set<string>();
  walk(root, (n) => {
    for (const p of n.problems ?? []) marked.add(problemKey(p));
    return undefined;
  });
  return marked;
}

async function intoLazy(root: InspectNode, problem: LocatedProblem, signal?: AbortSignal) {
  const { offset } = problem;
  if (offset === undefined) return problem;
  let at = root;
  let file = root.file;
  for (const i of problem.indexPath) {
    const next = at.children?.[i];
    if (!next) return problem;
    at = next;
    file = at.file ?? file;
  }
  const names = [problem.path];
  const indexPath = [...problem.indexPath];
  while (at.lazy && within(at, offset)) {
    signal?.throwIfAborted();
    const hit = await lazyChildAt(at, file, offset);
    if (!hit) break;
    names.push(hit.node.name);
    indexPath.push((at.children?.length ?? 0) + hit.index);
    at = hit.node;
    file = at.file ?? file;
    // Then down its built children to the deepest holding the offset (the field in the row).
    for (;;) {
      const children = at.children ?? [];
      const index = children.findIndex((c) => (c.file === undefined || c.file === file) && within(c, offset));
      if (index < 0) break;
      at = children[index];
      names.push(at.name);
      indexPath.push(index);
    }
  }
  if (indexPath.length === problem.indexPath.length) return problem;
  return { ...problem, path: names.filter((n) => n !== '').join('/'), indexPath };
}

/**
 * The nodes along a located problem's `indexPath`, from the root's child down: positions past
 * a node's built children are its lazy children (loaded one at a time).
 */
export async function nodesAlong(root: InspectNode, indexPath: readonly number[]): Promise<InspectNode[]> {
  const out: InspectNode[] = [];
  let at = root;
  for (const index of indexPath) {
    const built = at.children ?? [];
    const lazyIndex = index - built.length;
    const next =
      index < built.length
        ? built[index]
        : at.lazy && lazyIndex < at.lazy.count
          ? (await at.lazy.load(lazyIndex, lazyIndex + 1))[0]
          : undefined;
    if (!next) throw new RangeError(`no child ${index} below ${JSON.stringify(at.name)}`);
    out.push(next);
    at = next;
  }
  return out;
}

/** The lazy child of `parent` (in `file`) whose range holds `offset`, by binary search. */
async function lazyChildAt(
  parent: InspectNode,
  file: string | undefined,
  offset: number,
): Promise<{ node: InspectNode; index: number } | undefined> {
  const lazy = parent.lazy!;
  let lo = 0;
  let hi = lazy.count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const [child] = await lazy.load(mid, mid + 1);
    if (!child || (child.file !== undefined && child.file !== file)) return undefined;
    if (offset < child.offset) hi = mid - 1;
    else if (offset >= child.offset + Math.max(child.length, 1)) lo = mid + 1;
    else return child.length > 0 ? { node: child, index: mid } : undefined;
  }
  return undefined;
}

interface Placed {
  node: InspectNode;
  /** The file the node's range is in; undefined for the root's own file. */
  file: string | undefined;
  depth: number;
}

/**
 * Marks each problem of a report that no node carries yet on the node it is about, by where it
 * says it is. The rules, in order (a multi-file tree's nodes name their `file`; a problem naming
 * a file no node names is about the root's own file):
 * 1. an offset inside a node of its file: the deepest such node (`nodesAt`);
 * 2. an offset at a structure's end, or past the end of everything its file has in the tree (a
 *    cut header, a table that runs out, a file that ends early): the structure the end cuts off,
 *    the deepest node of that file ending there (one that is not a whole `file` node preferred);
 * 3. no offset, a file the tree has: that file's shallowest node (not a whole `file` node preferred);
 * 4. a file the tree lacks inside a folder node (a node named "dir/"): that folder;
 * 5. otherwise the root.
 * A problem rule 1 places on a node whose children load lazily (the rows of a table) is also
 * marked, as they load, on the deepest loaded node holding its offset (rule 1 again), so a
 * defect shows on its row however the tree is browsed.
 * Parsers mark what they know better (a block's own error on the block) before this runs.
 */
export function markProblems(root: InspectNode, report: ValidationReport): void {
  const marked = new Set<string>();
  walk(root, (n) => {
    for (const p of n.problems ?? []) marked.add(problemKey(p));
    return undefined;
  });
  let byFile: Map<string | undefined, Placed[]> | undefined;
  for (const problem of [...report.errors, ...report.warnings]) {
    const key = problemKey(problem);
    if (marked.has(key)) continue;
    marked.add(key);
    byFile ??= placedNodes(root);
    const file = problem.file !== undefined && byFile.has(problem.file) ? problem.file : undefined;
    markProblem(ownerOf(root, byFile.get(file) ?? [], file, problem) ?? root, problem);
  }
  markAsLoaded(root, root.file);
}

/**
 * Makes every node with lazy children in this subtree mark its problems on the children it
 * loads (and on theirs, recursively), each on the deepest loaded node holding its offset in
 * the node's file.
 */
function markAsLoaded(top: InspectNode, topFile: string | undefined): void {
  // An explicit stack, not recursion: no tree is too deep for it.
  const stack: { n: InspectNode; inherited: string | undefined }[] = [{ n: top, inherited: topFile }];
  while (stack.length > 0) {
    const { n, inherited } = stack.pop()!;
    const file = n.file ?? inherited;
    const lazy = n.lazy;
    if (lazy && n.problems?.length && !marking.has(lazy)) {
      const marked: LazyChildren = {
        count: lazy.count,
        load: async (start, end) => {
          const children = await lazy.load(start, end);
          for (const child of children) {
            // What is marked on this node is about its file (rule 1 looked in that file only).
            for (const problem of n.problems ?? []) {
              if (problem.offset === undefined || !within(child, problem.offset)) continue;
              const path = nodesAt(child, problem.offset, file);
              markProblem(path[path.length - 1], problem);
            }
            markAsLoaded(child, file);
          }
          return children;
        },
      };
      marking.add(marked);
      n.lazy = marked;
    }
    for (const child of n.children ?? []) stack.push({ n: child, inherited: file });
  }
}

/** Lazy children that already mark what they load (so marking twice wraps nothing twice). */
const marking = new WeakSet<LazyChildren>();

function within(n: InspectNode, offset: number): boolean {
  return offset >= n.offset && offset < n.offset + Math.max(n.length, 0);
}

function ownerOf(
  root: InspectNode,
  ofFile: readonly Placed[],
  file: string | undefined,
  problem: Problem,
): InspectNode | undefined {
  const { offset } = problem;
  // A file the tree lacks, inside a folder node ("dir/"): that folder, whatever the offset (it
  // is an offset in the missing file, not in the nodes of the root's own file).
  const lacked = problem.file !== undefined && file === undefined ? folderOf(root, problem.file) : undefined;
  if (lacked) return lacked;
  if (offset !== undefined) {
    const path = nodesAt(root, offset, file ?? root.file);
    if (path.length > 1 && fileAlong(root, path) === file) return path[path.length - 1];
    let extent = 0;
    for (const p of ofFile) extent = Math.max(extent, p.node.offset + Math.max(p.node.length, 0));
    const at = Math.min(offset, extent);
    const ending = ofFile.filter(
      (p) => p.node.offset <= at && at <= p.node.offset + Math.max(p.node.length, 0),
    );
    const cut = pick(ending, (best, next) => next.depth >= best.depth);
    if (cut) return cut.node;
  } else if (file !== undefined) {
    const shallowest = pick(ofFile, (best, next) => next.depth < best.depth);
    if (shallowest) return shallowest.node;
  }
  return undefined;
}

/** The folder node ("dir/") below the root that a path is in. */
function folderOf(root: InspectNode, path: string): InspectNode | undefined {
  return root.children?.find((c) => c.name.endsWith('/') && path.startsWith(c.name));
}

/** The file of the last node of a root-to-node path (undefined: the root's own). */
function fileAlong(root: InspectNode, path: readonly InspectNode[]): string | undefined {
  let file = root.file;
  for (const n of path) file = n.file ?? file;
  return file === root.file ? undefined : file;
}

/** The best of `candidates` by `better`, structures preferred over whole-file nodes. */
function pick(
  candidates: readonly Placed[],
  better: (best: Placed, next: Placed) => boolean,
): Placed | undefined {
  const structures = candidates.filter((c) => c.node.kind !== 'file');
  let best: Placed | undefined;
  for (const c of structures.length ? structures : candidates) if (!best || better(best, c)) best = c;
  return best;
}

/** The nodes below the root by file (undefined: the root's own), with their depth, in tree order. */
function placedNodes(root: InspectNode): Map<string | undefined, Placed[]> {
  const out = new Map<string | undefined, Placed[]>();
  const own = root.file;
  // Tree order with an explicit stack: no tree is too deep for it.
  const stack: { n: InspectNode; inherited: string | undefined; depth: number }[] = [
    { n: root, inherited: own, depth: 0 },
  ];
  while (stack.length > 0) {
    const { n, inherited, depth } = stack.pop()!;
    const file = n.file ?? inherited;
    if (depth > 0) {
      const key = file === own ? undefined : file;
      let list = out.get(key);
      if (!list) out.set(key, (list = []));
      list.push({ node: n, file: key, depth });
    }
    const children = n.children ?? [];
    for (let i = children.length - 1; i >= 0; i--)
      stack.push({ n: children[i], inherited: file, depth: depth + 1 });
  }
  return out;
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
