import type { ByteSource, ValidateOptions, ValidationReport } from '@binscope/core';
import { checkUdf } from './check-walk.js';
import { udfProblems } from './problems.js';

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
  const problems = udfProblems(source, 'validate');
  await checkUdf(source, problems, options);
  return problems.report();
}
