import { type Scratch, SourceError } from '@binscope/core';
import { fileScratch, folderSink, openDirectory, writeDirectoryAtomic } from '@binscope/core/node';
import { openScdl } from './plugin.js';
import type { ScdlOpenOptions, ScdlReader } from './read.js';
import {
  type CsrMatrix,
  type FeatureIndices,
  ScdlWriter,
  type ScdlWriteOptions,
  type ScdlWriteResult,
} from './write.js';

export * from './index.js';

/**
 * A streaming writer whose archive appears at `target` only when `finish` succeeds: it
 * writes into a temp folder beside the target and renames it into place (an existing
 * archive is replaced only then). `abort`, an error or a killed process leave the target
 * untouched; the next successful write removes a killed writer's temp folder.
 */
export interface ScdlArchiveWriter {
  readonly target: string;
  readonly rows: number;
  readonly nnz: number;
  appendRows: ScdlWriter['appendRows'];
  appendDenseRows: ScdlWriter['appendDenseRows'];
  finish(features?: FeatureIndices): Promise<ScdlWriteResult>;
  abort(): Promise<void>;
}

/** Scratch space made on first use: most writes know their dtypes up front and spill nothing. */
function lazyScratch(make: () => Scratch): Scratch {
  let inner: Scratch | undefined;
  return {
    file: (name) => {
      inner ??= make();
      return inner.file(name);
    },
    close: () => inner?.close(),
  };
}

export interface ScdlArchiveWriteOptions extends ScdlWriteOptions {
  /** false: fail, changing nothing, if `target` exists when writing starts. Default true. */
  replace?: boolean;
  /** Told about previous copies that interrupted replacements left (restored or kept). */
  onWarning?: (message: string) => void;
}

export async function createScdlArchiveWriter(
  target: string,
  options: ScdlArchiveWriteOptions = {},
): Promise<ScdlArchiveWriter> {
  let release!: () => void;
  let fail!: (error: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  let ready!: (tempDir: string) => void;
  let notReady!: (error: unknown) => void;
  const tempReady = new Promise<string>((resolve, reject) => {
    ready = resolve;
    notReady = reject;
  });
  // core's writeDirectoryAtomic owns the temp-folder-and-rename dance; the build step
  // stays open until finish() or abort() settles it.
  const done = writeDirectoryAtomic(
    target,
    async (tempDir) => {
      ready(tempDir);
      await finished;
    },
    { replace: options.replace, onWarning: options.onWarning },
  );
  done.catch((error) => notReady(error));
  const tempDir = await tempReady;
  // Wide index temps (when nnz or numCols is not given) spill beside the target, not into it.
  const scratch = options.scratch ?? lazyScratch(() => fileScratch(target));
  const closeScratch = () => {
    if (!options.scratch) scratch.close();
  };
  const writer = new ScdlWriter(folderSink(tempDir), { ...options, scratch });
  let settled = false;
  const abort = async (reason: unknown = new Error('aborted')) => {
    if (settled) return;
    settled = true;
    await writer.abort();
    closeScratch();
    fail(reason);
    await done.catch(() => {});
  };
  return {
    target,
    get rows() {
      return writer.rows;
    },
    get nnz() {
      return writer.nnz;
    },
    appendRows: (chunk) =>
      writer.appendRows(chunk).catch(async (error) => {
        await abort(error);
        throw error;
      }),
    appendDenseRows: (rows) =>
      writer.appendDenseRows(rows).catch(async (error) => {
        await abort(error);
        throw error;
      }),
    async finish(features) {
      if (settled) throw new SourceError(`${target}: finish after abort`, target);
      let result: ScdlWriteResult;
      try {
        result = await writer.finish(features);
      } catch (error) {
        await abort(error);
        throw error;
      }
      settled = true;
      closeScratch();
      release();
      await done;
      return result;
    },
    abort: () => abort(),
  };
}

/** Writes a whole CSR matrix (and feature indices) to `target` atomically. */
export async function writeScdlArchive(
  target: string,
  matrix: CsrMatrix,
  options: ScdlArchiveWriteOptions = {},
): Promise<ScdlWriteResult> {
  const nnzFromIndptr =
    matrix.indptr.length > 0
      ? Number(matrix.indptr[matrix.indptr.length - 1]) - Number(matrix.indptr[0])
      : undefined;
  const writer = await createScdlArchiveWriter(target, {
    ...options,
    numCols: options.numCols ?? matrix.numCols,
    nnz: options.nnz ?? nnzFromIndptr,
  });
  if (matrix.indptr.length > 0) await writer.appendRows(matrix);
  return writer.finish();
}

/** Opens an archive folder on disk. Closing the reader closes the folder's files (it opened them). */
export async function openScdlArchive(dir: string, options: ScdlOpenOptions = {}): Promise<ScdlReader> {
  const directory = openDirectory(dir);
  try {
    return (await openScdl(directory, options)).ownDirectory();
  } catch (error) {
    await directory.close();
    throw error;
  }
}
