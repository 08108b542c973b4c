import type { InspectNode, InspectResult, LocatedProblem, PlainInspectNode, Problem } from '@binscope/core';
import { appendAll, maxOf } from '@binscope/core/binary';
import { printable, printableJson } from './printable.js';

/** A node as printed: lazy children loaded a page at most, the rest counted (`childCount`). */
export type ShownNode = PlainInspectNode;

/** One entry of the top-level `problems` array of `inspect --json` (documented in the README). */
export interface JsonLocatedProblem {
  code: string;
  message: string;
  offset: number | null;
  file: string | null;
  format: string | null;
  severity: 'error' | 'warning';
  path: string;
  indexPath: number[];
}

/** `inspect --json`: the shown tree, with every problem of the file (and its node path) at the top. */
export type InspectJson = Omit<ShownNode, 'problems'> & { problems: JsonLocatedProblem[] };

export function jsonProblems(located: readonly LocatedProblem[], defaultFile?: string): JsonLocatedProblem[] {
  return located.map((p) => ({
    code: p.code,
    message: p.message,
    offset: p.offset ?? null,
    file: p.file ?? defaultFile ?? null,
    format: p.format ?? null,
    severity: p.severity,
    path: p.path,
    indexPath: p.indexPath,
  }));
}

/**
 * The eager nodes on the way to a marked node: --depth and --children never hide a defect, so
 * these are shown however deep or far down the list they are.
 */
function nodesLeadingToProblems(root: InspectNode): Set<InspectNode> {
  // Every node with its parent, in tree order; then, from the last back, a marked node marks
  // its parent: a loop, so no tree is too deep for it.
  const order: { n: InspectNode; parent: number }[] = [];
  const stack: { n: InspectNode; parent: number }[] = [{ n: root, parent: -1 }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const at = order.push(entry) - 1;
    for (const child of entry.n.children ?? []) stack.push({ n: child, parent: at });
  }
  const leads = order.map(({ n }) => (n.problems?.length ?? 0) > 0);
  const leading = new Set<InspectNode>();
  for (let i = order.length - 1; i >= 0; i--) {
    if (!leads[i]) continue;
    leading.add(order[i].n);
    if (order[i].parent >= 0) leads[order[i].parent] = true;
  }
  return leading;
}

async function shownChildren(n: InspectNode, limit: number, keep: Set<InspectNode>): Promise<InspectNode[]> {
  const eager = n.children ?? [];
  const shown = eager.slice(0, limit);
  if (n.lazy && shown.length < limit && n.lazy.count > 0) {
    appendAll(shown, await n.lazy.load(0, Math.min(n.lazy.count, limit - shown.length)));
  }
  // Past the --children limit, a marked node (or one above it) still shows, in its place.
  for (const c of eager.slice(limit)) if (keep.has(c)) shown.push(c);
  return shown;
}

function shownNode(n: InspectNode): ShownNode {
  const out: ShownNode = { name: n.name, kind: n.kind, offset: n.offset, length: n.length };
  if (n.file !== undefined) out.file = n.file;
  if (n.value !== undefined) out.value = n.value;
  if (n.problems && n.problems.length > 0) out.problems = n.problems.map((p) => ({ ...p }));
  return out;
}

/** The tree to print: `depth` levels below the root, `limit` children per node, plus every defect's path. */
export async function shownTree(root: InspectNode, depth: number, limit: number): Promise<ShownNode> {
  const keep = nodesLeadingToProblems(root);
  const top = shownNode(root);
  // Depth first with an explicit stack (children pushed last to first): lazy pages load in
  // tree order, and no depth reaches the call stack.
  const stack: { n: InspectNode; out: ShownNode; levels: number }[] = [{ n: root, out: top, levels: depth }];
  while (stack.length > 0) {
    const { n, out, levels } = stack.pop()!;
    const total = (n.children?.length ?? 0) + (n.lazy?.count ?? 0);
    if (total === 0) continue;
    const shown =
      levels > 0 ? await shownChildren(n, limit, keep) : (n.children ?? []).filter((c) => keep.has(c));
    if (shown.length > 0) {
      const children = shown.map(shownNode);
      out.children = children;
      for (let i = shown.length - 1; i >= 0; i--)
        stack.push({ n: shown[i], out: children[i], levels: levels - 1 });
    }
    if (shown.length < total) out.childCount = total;
  }
  return top;
}

/** ANSI styles, or none: colour only on a terminal without NO_COLOR, and never as the only sign. */
export interface Styles {
  error(text: string): string;
  warning(text: string): string;
}

const PLAIN: Styles = { error: (t) => t, warning: (t) => t };
const ANSI: Styles = {
  error: (t) => `\u001b[1;31m${t}\u001b[0m`,
  warning: (t) => `\u001b[33m${t}\u001b[0m`,
};

export function stylesFor(isTTY: boolean, env: NodeJS.ProcessEnv = process.env): Styles {
  return isTTY && !env.NO_COLOR ? ANSI : PLAIN;
}

const ERROR_MARK = '✗';
const WARNING_MARK = '!';

function isError(problem: Problem, errors: ReadonlySet<string>): boolean {
  return errors.has(problemKey(problem));
}

export function problemKey(p: Problem): string {
  return `${p.code}\u0000${p.message}\u0000${p.offset ?? ''}\u0000${p.file ?? ''}`;
}

function problemLine(p: Problem, error: boolean, styles: Styles, ownFile: string): string {
  // The file is named only inside an archive: a single file's problems are all in it.
  const inFile = p.file && p.file !== ownFile ? `in ${printable(p.file)}` : undefined;
  const where = [p.offset === undefined ? undefined : `byte ${p.offset}`, inFile].filter(Boolean).join(' ');
  const head = error
    ? styles.error(`${ERROR_MARK} error ${printable(p.code)}`)
    : styles.warning(`${WARNING_MARK} warning ${printable(p.code)}`);
  return `${head}${where ? ` at ${where}` : ''}: ${printable(p.message)}`;
}

function markOf(problems: readonly Problem[], errors: ReadonlySet<string>, styles: Styles): string {
  const bad = problems.filter((p) => isError(p, errors));
  const mild = problems.filter((p) => !isError(p, errors));
  const parts: string[] = [];
  if (bad.length > 0)
    parts.push(styles.error(`${ERROR_MARK} ${printable([...new Set(bad.map((p) => p.code))].join(', '))}`));
  if (mild.length > 0)
    parts.push(
      styles.warning(`${WARNING_MARK} ${printable([...new Set(mild.map((p) => p.code))].join(', '))}`),
    );
  return parts.join('  ');
}

/**
 * The tree as text, one node a line (name, kind, byte range, length, file, value). A marked node
 * ends its line with a mark and the problem classes, and each problem follows on its own line.
 */
export function treeLines(
  root: ShownNode,
  errorProblems: readonly Problem[] = [],
  styles: Styles = PLAIN,
): string[] {
  const errors = new Set(errorProblems.map(problemKey));
  const rows: Array<{ left: string; indent: string; node: ShownNode; more?: number }> = [];
  // Tree order with an explicit stack: a node, its children, then its "… N more" line.
  const stack: Array<{ n: ShownNode; level: number; moreLine?: true }> = [{ n: root, level: 0 }];
  while (stack.length > 0) {
    const { n, level, moreLine } = stack.pop()!;
    const indent = indentFor(level);
    const hidden = (n.childCount ?? 0) - (n.children?.length ?? 0);
    if (moreLine) {
      rows.push({
        left: `${indent}  … ${hidden.toLocaleString('en-US')} more`,
        indent,
        node: n,
        more: hidden,
      });
      continue;
    }
    rows.push({ left: `${indent}${printable(n.name)}`, indent, node: n });
    if (hidden > 0) stack.push({ n, level, moreLine: true });
    const children = n.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ n: children[i], level: level + 1 });
  }
  const width = Math.min(
    48,
    maxOf(rows, (r) => r.left.length),
  );
  const kindWidth = maxOf(rows, (r) => printable(r.node.kind).length);
  let lastFile: string | undefined = root.file;
  const lines: string[] = [];
  for (const { left, indent, node: n, more } of rows) {
    if (more !== undefined) {
      lines.push(left);
      continue;
    }
    const end = n.offset + n.length;
    let line = `${left.padEnd(width)}  ${printable(n.kind).padEnd(kindWidth)}  ${String(n.offset).padStart(10)}..${String(end).padEnd(10)} ${String(n.length).padStart(10)} B`;
    if (n.file !== undefined && n.file !== lastFile) line += `  in ${printable(n.file)}`;
    if (n.file !== undefined) lastFile = n.file;
    if (n.value !== undefined)
      line += `  = ${typeof n.value === 'string' ? printableJson(JSON.stringify(n.value)) : n.value}`;
    const problems = n.problems ?? [];
    if (problems.length > 0) line += `  ${markOf(problems, errors, styles)}`;
    lines.push(line.trimEnd());
    for (const p of problems)
      lines.push(`${indent}  ${problemLine(p, isError(p, errors), styles, root.file ?? root.name)}`);
  }
  return lines;
}

/** Indentation stops growing here; deeper lines say their level instead ("[40] name"). */
const MAX_INDENT_LEVEL = 32;

function indentFor(level: number): string {
  if (level <= MAX_INDENT_LEVEL) return '  '.repeat(level);
  return `${'  '.repeat(MAX_INDENT_LEVEL)}[${level}] `;
}

/** "2 errors, 1 warning" */
export function problemSummary(result: Pick<InspectResult, 'errors' | 'warnings'>): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(result.errors.length, 'error')}, ${plural(result.warnings.length, 'warning')}`;
}
