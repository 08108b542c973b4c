import type {
  AnyFormatPlugin,
  Detection,
  FormatInfo,
  FormatReader,
  InspectNode,
  LocatedProblem,
  Problem,
  Registry,
  Target,
} from '@binscope/core';
import type { LocatedDefect, NodeProblem, TreeNodeView } from '../protocol';

export interface InspectedTree {
  root: InspectNode;
  /** The marked problems in check order: errors as the report ranks them, then warnings. */
  located: LocatedProblem[];
}

/**
 * The format whose plugin may read the file: the detected one (a container is read through
 * another format; a convertible has a plugin only when its package gives it one), else the
 * format whose signature the file nearly has.
 */
export function inspectedFormat(detection: Detection, registry: Registry): FormatInfo | undefined {
  if (detection.info) return detection.role === 'container' ? undefined : detection.info;
  const near = detection.nearMiss ? registry.info(detection.nearMiss.id) : undefined;
  return near?.role === 'format' ? near : undefined;
}

const keyOf = (p: Problem) => `${p.code}\u0000${p.message}\u0000${p.offset ?? ''}\u0000${p.file ?? ''}`;

/** The format's inspect mode: the tree as far as the file parses, each problem marked on its node. */
export async function inspectModeTree(
  plugin: AnyFormatPlugin,
  target: Target,
  signal: AbortSignal,
): Promise<InspectedTree> {
  const result = await plugin.inspectTarget(target, { signal });
  return { root: result.root, located: result.located };
}

/**
 * The tree the page shows first. A file that opens shows its reader's tree, as fast as ever:
 * inspect mode validates as it parses, which would read a large file whole before showing
 * anything; the page asks for inspect mode once validation finds a problem. A file that does
 * not open goes straight to inspect mode, which shows the structure around the defect.
 */
export async function inspectTree(
  plugin: AnyFormatPlugin,
  target: Target,
  reader: FormatReader | undefined,
  signal: AbortSignal,
): Promise<InspectedTree> {
  if (reader) return { root: await plugin.inspect(reader, { signal }), located: [] };
  return inspectModeTree(plugin, target, signal);
}

/** What the page draws for a node: its range, value, child count and marked problems. */
export function nodeView(
  node: InspectNode,
  file: string | undefined,
  located: readonly LocatedProblem[],
): TreeNodeView {
  const out: TreeNodeView = {
    name: node.name,
    kind: node.kind,
    offset: node.offset,
    length: node.length,
    file,
    value: node.value,
    childCount: (node.children?.length ?? 0) + (node.lazy?.count ?? 0),
  };
  if (node.problems?.length) out.problems = node.problems.map((p) => problemView(p, located));
  return out;
}

function problemView(problem: Problem, located: readonly LocatedProblem[]): NodeProblem {
  const severity = located.find((l) => keyOf(l) === keyOf(problem))?.severity ?? 'error';
  const { code, message, offset, file, format } = problem;
  return { code, message, offset, file, format, severity };
}

/** The child at a position: built children first, then lazy ones (which only a tree loads). */
export type ChildAt = (parent: InspectNode, index: number) => Promise<InspectNode | undefined>;

const builtChild: ChildAt = async (parent, index) => parent.children?.[index];

/**
 * A marked problem with the views of the nodes from the root down to its node (what the tree
 * reveals). Its path may go into lazy children (a row of a table): `child` loads them.
 */
export async function locatedDefect(
  root: InspectNode,
  problem: LocatedProblem,
  located: readonly LocatedProblem[],
  child: ChildAt = builtChild,
): Promise<LocatedDefect> {
  let node: InspectNode | undefined = root;
  let file = root.file;
  const nodes = [nodeView(root, file, located)];
  for (const index of problem.indexPath) {
    node = await child(node, index);
    if (!node) break;
    file = node.file ?? file;
    nodes.push(nodeView(node, file, located));
  }
  const { code, message, offset, format, severity, path, indexPath } = problem;
  return { code, message, offset, file: problem.file, format, severity, path, indexPath, nodes };
}
