import { type ByteSource, ProblemList, type ValidateOptions, type ValidationReport } from '@binscope/core';
import { checkContent } from './checks.js';
import { FORMAT_ID } from './layout.js';
import { parseStructure } from './parse.js';
import { MldfReader } from './read.js';

/**
 * Every M-rule, never throwing for bad input: validate mode of the one parse (header,
 * descriptors, layout), then the content checks including every payload.
 */
export async function validateMldf(
  source: ByteSource,
  options: ValidateOptions = {},
): Promise<ValidationReport> {
  const problems = new ProblemList(FORMAT_ID, { mode: 'validate', file: source.name });
  const parsed = await parseStructure(source, problems, options);
  if (parsed.readable) {
    const reader = MldfReader.fromStructure(source, parsed, [], options);
    await checkContent(reader, problems, { ...options, payloads: true });
  }
  return problems.report();
}
