import {
  type ByteSource,
  type FormatError,
  isBinscopeError,
  type ParseMode,
  type ProblemList,
  percentProgress,
  toFormatError,
  type ValidateOptions,
} from '@binscope/core';
import type { UdfDataset } from './dataset.js';
import { loadDataset } from './dataset-header.js';
import { parseFileHeader, type UdfFileHeader } from './header.js';
import { DATASET_SCOPE, tableScope, udfProblems } from './problems.js';
import { UdfReader } from './read.js';
import { type DatasetRef, walkRefs } from './walk.js';

/** One stop of the checked walk: the dataset, or why it could not be loaded. */
export interface CheckedDataset {
  ref: DatasetRef;
  dataset?: UdfDataset;
  /** Why the dataset did not load (its first error), when it did not. */
  error?: FormatError;
}

/**
 * Moves one structure's problems into the file's list: errors of `scope` in A2 order, in the
 * order a strict read meets them, so the first error of the file is the one `open` + reads throw.
 * Ranks are dropped on the way: across structures, discovery order is the check order.
 */
function adopt(from: ProblemList, into: ProblemList, scope: string | undefined): FormatError | undefined {
  const errors = from.errors
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => e.scope === scope)
    .sort((a, b) => (a.e.phase ?? 0) - (b.e.phase ?? 0) || a.i - b.i);
  for (const { e } of errors) {
    const { phase: _phase, scope: _scope, ...problem } = e;
    into.errors.push(problem);
  }
  return errors.length > 0 ? toFormatError(errors[0].e) : undefined;
}

function adoptWarnings(from: ProblemList, into: ProblemList): void {
  for (const { phase: _phase, scope: _scope, ...w } of from.warnings) into.warnings.push(w);
}

/**
 * The one structural pass of validate and inspect modes (the strict reader runs the same
 * parsers in read mode): the file header, then every dataset reachable from the root in walk
 * order (U7) and every table's payload. Goes on past every error the structure allows: a bad
 * table never hides the others, a dataset that does not load never hides its siblings (U15).
 */
export async function checkUdf(
  source: ByteSource,
  problems: ProblemList,
  options: ValidateOptions = {},
  visit: (checked: CheckedDataset) => void = () => {},
): Promise<UdfFileHeader | undefined> {
  const mode: ParseMode = problems.mode;
  // The number of datasets is known only at the end of the walk; the tables' payloads are
  // nearly all of a file, so the share of its bytes checked so far is the honest measure.
  const progress = percentProgress(options.onProgress, source.size, 'validate', 'bytes');
  let checked = 0;
  const headerIssues = udfProblems(source, mode);
  const header = await parseFileHeader(source, headerIssues, options);
  adopt(headerIssues, problems, undefined);
  adoptWarnings(headerIssues, problems);
  if (!header) return undefined;
  const reader = UdfReader.fromHeader(source, header, { signal: options.signal });
  try {
    const walk = walkRefs(header.root, async (ref) => {
      const issues = udfProblems(source, mode);
      const dataset = await loadDataset(reader, ref, issues);
      const error = adopt(issues, problems, DATASET_SCOPE);
      adoptWarnings(issues, problems);
      if (!dataset) {
        visit({ ref, error });
        return undefined;
      }
      const children: DatasetRef[] = [];
      for (const info of dataset.tables) {
        adopt(issues, problems, tableScope(info.index));
        if (dataset.broken.has(info.index)) continue;
        try {
          const table = await dataset.read(info, options);
          table.fileOffsets?.forEach((at, i) => {
            children.push({ at, from: info.dataOffset + i * 16 });
          });
        } catch (e) {
          problems.capture(e);
        }
        checked += info.dataSize;
        progress(checked);
      }
      visit({ ref, dataset });
      return { value: dataset, children };
    });
    for await (const _ of walk);
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    problems.capture(error);
  }
  progress(source.size);
  return header;
}
