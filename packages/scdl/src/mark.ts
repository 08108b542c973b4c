import { type InspectNode, markProblem, nodesAt, type Problem, type ValidationReport } from '@binscope/core';

interface Candidate {
  node: InspectNode;
  depth: number;
}

/** Nodes of `file` whose range holds `offset`, its end included: a file that ends too early is marked where it ends. */
function nodesOfFile(root: InspectNode, file: string, offset: number | undefined): Candidate[] {
  const out: Candidate[] = [];
  // Tree order with an explicit stack: no tree is too deep for it.
  const stack: { n: InspectNode; inherited: string | undefined; depth: number }[] = [
    { n: root, inherited: root.file, depth: 0 },
  ];
  while (stack.length > 0) {
    const { n, inherited, depth } = stack.pop()!;
    const own = n.file ?? inherited;
    const holds = offset === undefined || (offset >= n.offset && offset <= n.offset + n.length);
    if (n !== root && own === file && holds) out.push({ node: n, depth });
    const children = n.children ?? [];
    for (let i = children.length - 1; i >= 0; i--)
      stack.push({ n: children[i], inherited: own, depth: depth + 1 });
  }
  return out;
}

/**
 * A directory archive's problems name a file; core's `inspectResult` places a problem by its
 * offset, which misses when the offset is where a short file ends (Truncated) or when the
 * problem has none. Those are marked here on the structure of their file: the array or header
 * before the plain entry in the file list, the deepest range holding the offset; a problem
 * about a file the archive lacks on its feature folder ("var_features/").
 */
export function markOnFileNodes(root: InspectNode, report: ValidationReport): void {
  for (const problem of [...report.errors, ...report.warnings]) {
    const file = problem.file;
    if (file === undefined) continue;
    if (problem.offset !== undefined && landsInFile(root, problem, file)) continue;
    const target =
      (file.endsWith('/') ? undefined : bestOfFile(root, file, problem.offset)) ?? folderNode(root, file);
    if (target) markProblem(target, problem);
  }
}

function landsInFile(root: InspectNode, problem: Problem, file: string): boolean {
  const path = nodesAt(root, problem.offset ?? 0, file);
  if (path.length < 2) return false;
  let current = root.file;
  for (const n of path) current = n.file ?? current;
  return current === file;
}

function bestOfFile(root: InspectNode, file: string, offset: number | undefined): InspectNode | undefined {
  const candidates = nodesOfFile(root, file, offset);
  const structures = candidates.filter((c) => c.node.kind !== 'file');
  const pool = structures.length ? structures : candidates;
  // Without an offset the file's own node (the shallowest) is what the problem is about.
  const pick = (a: Candidate, b: Candidate) => (offset === undefined ? b.depth < a.depth : b.depth > a.depth);
  let best: Candidate | undefined;
  for (const c of pool) if (!best || pick(best, c)) best = c;
  return best?.node;
}

/** The feature folder a file is in ("var_features/"), for a problem about a file it lacks. */
function folderNode(root: InspectNode, file: string): InspectNode | undefined {
  return root.children?.find((c) => c.name.endsWith('/') && file.startsWith(c.name));
}
