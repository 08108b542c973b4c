import {
  type DirectorySource,
  formatErrors,
  isBinscopeError,
  type ParseMode,
  ProblemList,
  type Target,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { deepChecks } from './deep-checks.js';
import { FORMAT } from './header.js';
import { type ArchiveParse, parseArchive } from './parse.js';

/** The archive folder of a target: a directory, or the folder around a header.sch given as a file. */
export function archiveDirectory(target: Target): DirectorySource {
  if (target.kind === 'directory') return target.directory;
  if (target.siblings && /(^|\/)header\.sch$/.test(target.source.name)) return target.siblings;
  throw formatErrors(FORMAT)(
    'InvalidValue',
    `${target.source.name}: an SCDL archive is a folder (holding header.sch), not a single file`,
    undefined,
    target.source.name,
  );
}

/**
 * The parse of validate and inspect: the strict reader's parse in a collecting mode, then the
 * checks only they make. Never throws for bad input; I/O failures are recorded as Truncated.
 */
export async function checkArchive(
  target: Target,
  mode: Exclude<ParseMode, 'read'>,
  options: ValidateOptions = {},
): Promise<{ problems: ProblemList; state: ArchiveParse | undefined }> {
  const problems = new ProblemList(FORMAT, { mode });
  let state: ArchiveParse | undefined;
  try {
    state = await parseArchive(archiveDirectory(target), problems, options);
    await deepChecks(state, problems, options);
  } catch (error) {
    if (isBinscopeError(error, 'SourceError'))
      problems.error('Truncated', error.message, { file: error.path });
    else problems.capture(error);
  }
  return { problems, state };
}

/**
 * Checks an archive in the natural order (A2): header (C1–C3) → array files' sizes (C5)
 * → row_ptr → feature indices (C6) → column indices within their block's features. Never
 * throws for bad input.
 */
export async function validateScdl(target: Target, options: ValidateOptions = {}): Promise<ValidationReport> {
  return (await checkArchive(target, 'validate', options)).problems.report();
}
