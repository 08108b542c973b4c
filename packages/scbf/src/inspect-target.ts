import {
  type ByteSource,
  type FormatError,
  type InspectNode,
  type InspectResult,
  inspectResult,
  markProblem,
  type Problem,
  ProblemList,
  type ValidateOptions,
} from '@binscope/core';
import { scbfTree } from './inspect.js';
import { FORMAT, type ScbfBlock } from './layout.js';
import { checkScbf } from './validate.js';

/**
 * Inspect mode: validate's parse, drawn as a tree. Each problem is marked on the node at fault
 * (a cut or misplaced block, a column that does not inflate, a header field); whatever could
 * still be located around it stays in the tree.
 */
export async function inspectScbfTarget(
  source: ByteSource,
  options: ValidateOptions = {},
): Promise<InspectResult> {
  const problems = new ProblemList(FORMAT, { mode: 'inspect', file: source.name });
  const { progress, layout, payloadErrors, footer } = await checkScbf(source, problems, options);
  const blockErrors = new Map<ScbfBlock, FormatError>(layout?.blockErrors ?? []);
  for (const [index, error] of payloadErrors) {
    const { blocks } = progress.columns[index];
    const at = error.offset;
    // A payload error inside a block is that block's; one at a metadata field (a declared size
    // that does not hold) is marked on the field by its offset.
    const block =
      at === undefined ? blocks[0] : blocks.find((b) => at >= b.offset && at < b.offset + b.compressedSize);
    if (!block) continue;
    if (!blockErrors.has(block)) blockErrors.set(block, error);
  }
  const root = scbfTree({
    source,
    head: progress.head,
    header: progress.header,
    columns: progress.columns,
    footer,
    blockErrors,
  });
  const report = problems.report();
  for (const error of report.errors) markCutOff(root, error);
  return inspectResult(root, report);
}

/**
 * A defect at or past the end of the file (a cut header, a table that runs out) belongs to the
 * last structure the file cuts off, which ends where the file ends: no node's bytes contain it.
 */
function markCutOff(root: InspectNode, problem: Problem): void {
  if (problem.offset === undefined || problem.offset < root.length) return;
  let cut: InspectNode | undefined;
  let parent = root;
  for (;;) {
    const last = parent.children?.filter((c) => c.offset + c.length === root.length).pop();
    if (!last) break;
    cut = last;
    parent = last;
  }
  if (cut) markProblem(cut, problem);
}
