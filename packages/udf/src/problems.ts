import { type ByteSource, type ParseMode, ProblemList } from '@binscope/core';

export const FORMAT_ID = 'udf';

/** Scope of a dataset's own problems in its ProblemList; its tables' are tableScope(i) (U15). */
export const DATASET_SCOPE = 'dataset';

/** One table's problems: a bad table never hides the others (U15). */
export function tableScope(index: number): string {
  return `table ${index}`;
}

/** A fresh problem list for one structure of `source`'s file. */
export function udfProblems(source: ByteSource, mode: ParseMode): ProblemList {
  return new ProblemList(FORMAT_ID, { mode, file: source.name });
}
