import {
  type ByteSource,
  type FormatError,
  type InspectNode,
  type InspectResult,
  inspectResult,
  markProblem,
  nodesAt,
  type ValidateOptions,
} from '@binscope/core';
import { type CheckedDataset, checkUdf } from './check-walk.js';
import { datasetNode, fileNode, unloadedNode } from './inspect.js';
import { udfProblems } from './problems.js';
import { FILE_HEADER_SIZE, STATIC_HEADER_SIZE } from './types.js';

/** The static header bytes of a dataset that did not load, when the file has them. */
async function staticHeaderBytes(
  source: ByteSource,
  checked: CheckedDataset,
  options: ValidateOptions,
): Promise<Uint8Array | undefined> {
  const { offset } = checked.ref.at;
  if (!Number.isSafeInteger(offset) || offset < FILE_HEADER_SIZE) return undefined;
  if (offset + STATIC_HEADER_SIZE > source.size) return undefined;
  return source.read(offset, STATIC_HEADER_SIZE, options);
}

/**
 * Inspect mode: the checked walk of validate, building the tree as it goes. A dataset that does
 * not load keeps its place (clamped to the file, marked) and its siblings keep theirs (U15); a
 * file header that fails a check still shows every field whose bytes are there.
 */
export async function inspectUdfTarget(
  source: ByteSource,
  options: ValidateOptions = {},
): Promise<InspectResult> {
  const problems = udfProblems(source, 'inspect');
  const visited: CheckedDataset[] = [];
  await checkUdf(source, problems, options, (checked) => visited.push(checked));
  const datasets: InspectNode[] = [];
  const unloaded: { node: InspectNode; error: FormatError }[] = [];
  for (const checked of visited) {
    if (checked.dataset) {
      datasets.push(datasetNode(checked.dataset));
      continue;
    }
    const error = checked.error;
    // A dataset that did not load always has its reason; without one there is nothing to show.
    if (!error) continue;
    const shown = unloadedNode(
      { ref: checked.ref, error },
      source.size,
      await staticHeaderBytes(source, checked, options),
    );
    datasets.push(shown);
    unloaded.push({ node: shown, error });
  }
  const head = await source.read(0, Math.min(source.size, FILE_HEADER_SIZE), options);
  const root = fileNode(source.name, source.size, head, datasets);
  for (const { node, error } of unloaded) {
    // An error about the reference (its field lies elsewhere) also marks the dataset it fails
    // to reach; one inside the dataset is left to land on its deepest node.
    const problem = error.toProblem();
    const { offset } = problem;
    if (offset === undefined || (offset >= node.offset && offset < node.offset + node.length)) continue;
    markProblem(node, problem);
    const owners = nodesAt(root, offset);
    markProblem(owners[owners.length - 1] ?? root, problem);
  }
  return inspectResult(root, problems.report());
}
