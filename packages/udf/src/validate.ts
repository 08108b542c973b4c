import {
  type ByteSource,
  type FormatError,
  isBinscopeError,
  type ProblemList,
  percentProgress,
  type TargetOf,
  toFormatError,
  type ValidateOptions,
} from '@binscope/core';
import type { UdfDataset } from './dataset.js';
import { loadDataset } from './dataset-header.js';
import { parseFileHeader, readFileHead, type UdfFileHeader } from './header.js';
import { UdfReader } from './read.js';
import { DATASET_SCOPE, FILE_HEADER_SIZE, STATIC_HEADER_SIZE, tableScope } from './types.js';
import { type DatasetRef, DatasetWalk } from './walk.js';

/** One stop of the checked walk: the dataset, or why it could not be loaded. */
export interface CheckedDataset {
  ref: DatasetRef;
  dataset?: UdfDataset;
  /** Why the dataset did not load (its first error), when it did not. */
  error?: FormatError;
  /** The static header bytes of a dataset that did not load, when the file has them (the tree shows them). */
  head?: Uint8Array;
}

/**
 * The one UDF parse, in core's three modes: what it found, for the reader (read mode), the
 * report and the tree (inspect mode).
 */
export interface UdfParse {
  source: ByteSource;
  /** The file header's bytes (fewer in a short file): the tree shows every field they hold. */
  head: Uint8Array;
  /** The file header, when it parses far enough to go on. */
  header?: UdfFileHeader;
  /** The parse's list: in read mode, each dataset the reader loads later forks its own from it. */
  problems: ProblemList;
  /** Inspect mode: every stop of the checked walk, in walk order (U7), for the tree. */
  visited: CheckedDataset[];
}

/**
 * The file header (U1, U2's magic and version, U8's reserved fields and the root reference):
 * all a lazy reader reads at open. Read mode stops at its first error (core's checkpoint);
 * validate and inspect record them and go on to the datasets (checkUdf).
 */
export async function parseUdf(
  input: TargetOf<'file'>,
  problems: ProblemList,
  options: ValidateOptions = {},
): Promise<UdfParse> {
  const { source } = input;
  const head = await readFileHead(source, options);
  const header = parseFileHeader(head, source.size, problems);
  return { source, head, header, problems, visited: [] };
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

/** The static header bytes of a dataset that did not load, when the file has them. */
async function staticHeaderBytes(
  source: ByteSource,
  ref: DatasetRef,
  options: ValidateOptions,
): Promise<Uint8Array | undefined> {
  const { offset } = ref.at;
  if (!Number.isSafeInteger(offset) || offset < FILE_HEADER_SIZE) return undefined;
  if (offset + STATIC_HEADER_SIZE > source.size) return undefined;
  return (await source.read(offset, STATIC_HEADER_SIZE, options)).slice();
}

/**
 * The deep checks of validate and inspect: every dataset reachable from the root in walk order
 * (U7), each with its header, lookup table, descriptors and cross-references, then every
 * table's payload. Goes on past every error the structure allows: a bad table never hides the
 * others, a dataset that does not load never hides its siblings (U15). Inspect mode keeps each
 * stop for the tree.
 */
export async function checkUdf(
  parsed: UdfParse,
  problems: ProblemList,
  options: ValidateOptions = {},
): Promise<void> {
  const { source, header } = parsed;
  if (!header) return;
  // The number of datasets is known only at the end of the walk; the tables' payloads are
  // nearly all of a file, so the share of its bytes checked so far is the honest measure.
  const progress = percentProgress(options.onProgress, source.size, 'validate', 'bytes');
  const keep = problems.mode === 'inspect';
  let checked = 0;
  const reader = new UdfReader(source, header, problems, { signal: options.signal });
  try {
    const walk = new DatasetWalk(header.root, async (ref) => {
      const issues = problems.fork();
      const dataset = await loadDataset(reader, ref, issues);
      const error = adopt(issues, problems, DATASET_SCOPE);
      adoptWarnings(issues, problems);
      if (!dataset) {
        if (keep && error)
          parsed.visited.push({ ref, error, head: await staticHeaderBytes(source, ref, options) });
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
      if (keep) parsed.visited.push({ ref, dataset });
      return { value: dataset, children };
    });
    for await (const _ of walk);
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    problems.capture(error);
  }
  progress(source.size);
}
