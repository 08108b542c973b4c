import {
  type ByteSource,
  ProblemList,
  percentProgress,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import {
  type DatasetRef,
  FORMAT_ID,
  Issues,
  loadDataset,
  parseFileHeader,
  UdfReader,
  walkRefs,
} from './read.js';

function record(issues: Issues, problems: ProblemList): void {
  // Stable sort by phase: the first error reported is the first in the A2 check order.
  const errors = issues.errors.map((e, i) => ({ e, i })).sort((a, b) => a.e.phase - b.e.phase || a.i - b.i);
  for (const { e } of errors) problems.error(e.code, e.message, { offset: e.offset, file: issues.file });
  for (const w of issues.warnings) problems.warn(w.code, w.message, { offset: w.offset, file: issues.file });
}

/**
 * Every MUST of the UDF spec and U1–U15: the file header, then each dataset reachable from the
 * root in walk order (header, lookup table, descriptors, cross-references, then every table's
 * payload). Keeps going after an error wherever the structure still allows it. Never throws for
 * bad input; "only reported" fields (U8) are warnings.
 */
export async function validateUdf(
  source: ByteSource,
  options: ValidateOptions = {},
): Promise<ValidationReport> {
  const problems = new ProblemList(FORMAT_ID);
  // The number of datasets is known only at the end of the walk; the tables' payloads are
  // nearly all of a file, so the share of its bytes checked so far is the honest measure.
  const progress = percentProgress(options.onProgress, source.size, 'validate', 'bytes');
  let checked = 0;
  try {
    const headerIssues = new Issues(source.name);
    const header = await parseFileHeader(source, headerIssues, options);
    record(headerIssues, problems);
    if (!header) return problems.report();
    const reader = UdfReader.fromHeader(source, header, { signal: options.signal });
    const walk = walkRefs(header.root, async (ref) => {
      const issues = new Issues(source.name);
      const dataset = await loadDataset(reader, ref, issues);
      record(issues, problems);
      if (!dataset) return undefined;
      const children: DatasetRef[] = [];
      for (const info of dataset.tables) {
        if (dataset.broken.has(info.index)) continue;
        try {
          const table = await dataset.read(info, options);
          table.fileOffsets?.forEach((at, i) => {
            children.push({ at, from: info.dataOffset + i * 16 });
          });
        } catch (error) {
          problems.capture(error);
        }
        checked += info.dataSize;
        progress(checked);
      }
      return { value: dataset, children };
    });
    for await (const _ of walk);
  } catch (error) {
    problems.capture(error);
  }
  progress(source.size);
  return problems.report();
}
