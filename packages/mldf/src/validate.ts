import type { ProblemList, ValidateOptions } from '@binscope/core';
import { checkContent } from './checks.js';
import type { MldfStructure } from './parse.js';
import { MldfReader } from './read.js';

/**
 * What validate and inspect check past a clean structure (the parse's job is M1–M4): the
 * checksums, every value's struct and range, the allocation table, and every payload (M5–M7),
 * each defect recorded. Inspect reports exactly what validate does, so the two cannot disagree.
 */
export async function checkMldf(
  parsed: MldfStructure,
  problems: ProblemList,
  options: ValidateOptions = {},
): Promise<void> {
  if (!parsed.readable) return;
  const reader = MldfReader.fromStructure(parsed.source, parsed, [], options);
  await checkContent(reader, problems, { ...options, payloads: true });
}
