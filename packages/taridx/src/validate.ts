import {
  type ByteSource,
  type DirectorySource,
  isBinscopeError,
  percentProgress,
  Phase,
  type ProblemList,
  type TargetOf,
  type ValidateOptions,
} from '@binscope/core';
import { loadHasher } from './hash.js';
import { type IndexParse, type ParsedIndex, parsedIndex, parseIndex } from './parse.js';
import { CappedErrors, checkRows, readRows } from './rows.js';
import { checkShards } from './shard-check.js';
import { foldOf, ShardSet } from './shards.js';

/** What one parse of an index (and, in validate and inspect, its shards) found, in any mode. */
export interface TaridxParse {
  source: ByteSource;
  siblings?: DirectorySource;
  /** The parse's problem list: in read mode the reader continues it when it checks the rows. */
  problems: ProblemList;
  index?: IndexParse;
  /** The index up to its rows, when it parsed without errors. */
  parsed?: ParsedIndex;
  /** The shards checked, when they were, with each one's size (they are closed after the check). */
  shards?: { set: ShardSet; sizes: number[] };
}

/**
 * The one parse of read, validate and inspect: header and text blocks, every check of T7/T8
 * before the rows, in A2 order, recording each problem. It stops where the rest cannot be
 * located (bad magic, another version, an offset past the end) and returns what it decoded.
 */
export async function parseTaridx(
  input: TargetOf<'file'>,
  problems: ProblemList,
  options: ValidateOptions,
): Promise<TaridxParse> {
  const out: TaridxParse = { source: input.source, siblings: input.siblings, problems };
  try {
    out.index = await parseIndex(input.source, problems, options);
  } catch (error) {
    // A region that cannot be read as the header says (ranked as a bounds defect).
    problems.capture(error, { phase: Phase.bounds });
    if (problems.mode === 'read') throw error;
    return out;
  }
  out.parsed = parsedIndex(out.index, problems);
  return out;
}

/**
 * What validate and inspect check beyond the parse: the rows (T8, the invariants of spec
 * section 9) and, when the shards are reachable (beside the index, `<fold>_*.tar`), that
 * each row's tar header is really at its offset, has its size, and that its name maps to the
 * row's stem and extension. Validate checks the shards unless `deep` is false; inspect only
 * with `deep: true` (inspect stays a look at the index).
 */
export async function checkTaridx(
  parse: TaridxParse,
  problems: ProblemList,
  options: ValidateOptions,
): Promise<void> {
  const { parsed, source, siblings } = parse;
  if (!parsed) return;
  const errors = new CappedErrors(problems);
  const hasher = await loadHasher();
  const rows = await readRows(source, parsed.header, parsed.header.nRows, options);
  checkRows(parsed, rows, hasher, errors);

  const fold = foldOf(source.name);
  const nRows = parsed.header.nRows;
  const deep = problems.mode === 'inspect' ? options.deep === true : options.deep !== false;
  // The rows' own checks are one pass in memory; visiting each row's tar header is the long part.
  const withShards = deep && !!siblings && !!fold && !problems.hasErrors();
  const progress = percentProgress(options.onProgress, withShards ? 2 * nRows : nRows);
  progress(nRows);
  if (withShards && siblings && fold) {
    let shards: ShardSet | undefined;
    try {
      shards = await ShardSet.fromDirectory(siblings, fold);
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
    } finally {
      if (shards) {
        const set = shards;
        parse.shards = { set, sizes: set.names.map((_, fid) => set.peek(fid)?.size ?? 0) };
        // Whoever opens a source closes it: the check opened these from the folder.
        await set.close();
      }
    }
  }
  progress(withShards ? 2 * nRows : nRows);
  errors.summarise();
}
