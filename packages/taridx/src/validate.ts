import {
  type ByteSource,
  type DirectorySource,
  isBinscopeError,
  percentProgress,
  Phase,
  ProblemList,
  type Target,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { loadHasher } from './hash.js';
import { FORMAT } from './layout.js';
import { type IndexParse, type ParsedIndex, parsedIndex, parseIndex } from './parse.js';
import { CappedErrors, checkRows, readRows } from './rows.js';
import { checkShards } from './shard-check.js';
import { foldOf, ShardSet } from './shards.js';

/** Why a directory target is refused, in every mode. */
export const NOT_A_FILE = 'a TARIDX index is a single file, not a directory';

/** What one parse of an index (and its shards) found, in any mode. */
export interface TaridxParse {
  source: ByteSource;
  index?: IndexParse;
  /** The index up to its rows, when it parsed without errors. */
  parsed?: ParsedIndex;
  /** The shards checked, when they were. */
  shards?: ShardSet;
}

/**
 * The parse validate and inspect share: every T-rule check (T7, T8, section 9 invariants) and,
 * when the shards are reachable (beside the index, `<fold>_*.tar`) and `deep` is not false,
 * that each row's tar header is really at its offset, has its size, and that its name maps to
 * the row's stem and extension. Records problems in `problems`; throws only for I/O and bugs.
 */
export async function parseTaridx(
  source: ByteSource,
  siblings: DirectorySource | undefined,
  problems: ProblemList,
  options: ValidateOptions = {},
): Promise<TaridxParse> {
  const out: TaridxParse = { source };
  try {
    out.index = await parseIndex(source, problems, options);
  } catch (error) {
    problems.capture(error, { phase: Phase.bounds });
    return out;
  }
  out.parsed = parsedIndex(out.index, problems);
  if (!out.parsed) return out;
  const parsed = out.parsed;
  const errors = new CappedErrors(problems);
  const hasher = await loadHasher();
  const rows = await readRows(source, parsed.header, parsed.header.nRows, options);
  checkRows(parsed, rows, hasher, errors);

  const fold = foldOf(source.name);
  const nRows = parsed.header.nRows;
  // The rows' own checks are one pass in memory; visiting each row's tar header is the long part.
  const withShards = options.deep !== false && !!siblings && !!fold && !problems.hasErrors();
  const progress = percentProgress(options.onProgress, withShards ? 2 * nRows : nRows);
  progress(nRows);
  if (withShards && siblings && fold) {
    try {
      const shards = await ShardSet.fromDirectory(siblings, fold);
      out.shards = shards;
      if (shards.count === 0 && nRows > 0 && options.deep === true) {
        // Asked for explicitly, a deep check that can check nothing has failed, not passed.
        errors.error(
          'OutOfBounds',
          `--deep: no ${fold}_*.tar shards beside the index, so none of its ${nRows} rows can be checked`,
          {},
        );
      } else
        await checkShards({
          parsed,
          rows,
          shards,
          hasher,
          errors,
          progress: (done) => progress(nRows + done),
          options,
        });
    } catch (error) {
      if (isBinscopeError(error, 'FormatError')) problems.capture(error);
      else if (isBinscopeError(error, 'SourceError'))
        errors.error('OutOfBounds', `cannot read the shards: ${(error as Error).message}`, {});
      else throw error;
    }
  }
  progress(withShards ? 2 * nRows : nRows);
  errors.summarise();
  return out;
}

/** Validate mode: every problem of the index and, with its shards beside it, of the shards. Never throws for bad input. */
export async function validateTaridx(
  target: Target,
  options: ValidateOptions = {},
): Promise<ValidationReport> {
  const problems = new ProblemList(FORMAT, {
    mode: 'validate',
    file: target.kind === 'file' ? target.source.name : undefined,
  });
  if (target.kind !== 'file') {
    problems.error('InvalidValue', NOT_A_FILE);
    return problems.report();
  }
  await parseTaridx(target.source, target.siblings, problems, options);
  return problems.report();
}
