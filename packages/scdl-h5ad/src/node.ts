import * as fs from 'node:fs';
import * as path from 'node:path';
import { FormatError, SourceError } from '@binscope/core';
import { openRegularFile } from '@binscope/core/node';
import { createScdlArchiveWriter } from '@binscope/scdl/node';
import type { AnnDataFile, H5adSummary } from './anndata.js';
import type { ConversionInput, ConversionResult, ConvertOptions } from './convert.js';
import { type H5Lib, useThrowingErrors } from './h5.js';
import { withQuietWasmConsole } from './h5-failures.js';
import { runInWorker } from './h5-host.js';
import { comparePathParts, hasSignatureAt, openAnnData, pythonPath, signatureOffsets } from './open.js';

export * from './index.js';

let nodeLib: Promise<H5Lib> | undefined;

/**
 * h5wasm's Node build, loaded once on first use. It reaches the host file system directly
 * (Emscripten NODERAWFS), so HDF5 reads exactly the byte ranges it needs from disk.
 */
export function loadH5wasmNode(): Promise<H5Lib> {
  nodeLib ??= withQuietWasmConsole(async () => {
    const lib = await import('h5wasm/node');
    await lib.ready;
    useThrowingErrors(lib as unknown as H5Lib);
    return lib as unknown as H5Lib;
  });
  return nodeLib;
}

function describe(cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT'
    ? 'no such file or directory'
    : code === 'EACCES'
      ? 'permission denied'
      : String((cause as Error)?.message ?? cause);
}

/** Fails with BadMagic before h5wasm sees a file that is not HDF5 at all. */
function checkHdf5(file: string): void {
  // Only regular files: h5wasm would wait forever on a FIFO.
  const { fd, size } = openRegularFile(file);
  try {
    const head = new Uint8Array(8);
    for (const at of signatureOffsets(size)) {
      if (fs.readSync(fd, head, 0, 8, at) === 8 && hasSignatureAt(head)) return;
    }
    throw new FormatError(size < 8 ? 'Truncated' : 'BadMagic', 'not an HDF5 file (no \\x89HDF signature)', {
      file,
      offset: 0,
      format: 'h5ad',
    });
  } finally {
    fs.closeSync(fd);
  }
}

/** Opens one `.h5ad` from disk (lazily: h5wasm reads only what is asked for). */
export async function openH5ad(file: string): Promise<AnnDataFile> {
  checkHdf5(file);
  const lib = await loadH5wasmNode();
  return openAnnData(lib, path.resolve(file), file);
}

/** What stops HDF5 work run in a worker thread (see h5-host.ts). */
export interface WorkerOptions {
  signal?: AbortSignal;
  /**
   * Milliseconds one HDF5 (h5wasm) call may run before the file is taken for corrupt: HDF5
   * can loop forever on a damaged structure. Default 120 s.
   */
  stallTimeout?: number;
}

/**
 * A summary of a `.h5ad` (shapes, matrices, columns, obsp keys) without reading its arrays.
 * HDF5 runs in a worker thread, stopped by `signal` or a stall.
 */
export async function describeH5ad(file: string, options: WorkerOptions = {}): Promise<H5adSummary> {
  checkHdf5(file);
  return runInWorker({ op: 'describe', file }, { ...options, label: file });
}

/**
 * The `.h5ad` files under a folder, recursively, in upstream's order (sorted pathlib paths),
 * each labelled as upstream labels it: the folder as given joined with the relative path.
 */
export function listH5adInputs(dir: string): { path: string; label: string }[] {
  const found: string[] = [];
  const visit = (rel: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
    } catch (cause) {
      throw new SourceError(`${path.join(dir, rel)}: ${describe(cause)}`, dir, { cause });
    }
    for (const entry of entries) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) visit(child);
      else if (entry.name.endsWith('.h5ad') && (entry.isFile() || entry.isSymbolicLink())) found.push(child);
    }
  };
  visit('');
  return found
    .map((rel) => ({ path: path.join(dir, rel), label: pythonPath(`${dir}/${rel}`) }))
    .sort((a, b) => comparePathParts(a.label, b.label));
}

/**
 * Converts `.h5ad` input to an SCDL archive folder at `output`, atomically: the archive is
 * built in a temp folder beside `output` and renamed into place only when complete (an
 * existing archive there is replaced then, and left untouched on failure).
 *
 * `input` is one `.h5ad` file, a folder of them (converted in sorted order, C12), or a list
 * of files (in the order given; `{ path, label }` to choose the label). Labels in the
 * feature indices (labels.json) are the paths as given, as upstream writes them.
 */
export interface NodeConvertOptions extends ConvertOptions, WorkerOptions {
  /** false: fail, changing nothing, if `output` exists when writing starts. Default true. */
  replace?: boolean;
}

export async function convertH5adToScdl(
  input: string | readonly (string | { path: string; label: string })[],
  output: string,
  options: NodeConvertOptions = {},
): Promise<ConversionResult> {
  let files: { path: string; label: string }[];
  if (typeof input === 'string') {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(input);
    } catch (cause) {
      throw new SourceError(`${input}: ${describe(cause)}`, input, { cause });
    }
    files = stat.isDirectory() ? listH5adInputs(input) : [{ path: input, label: input }];
    if (files.length === 0) throw new SourceError(`${input}: no .h5ad files in this folder`, input);
  } else {
    files = input.map((p) => (typeof p === 'string' ? { path: p, label: p } : p));
  }
  for (const f of files) checkHdf5(f.path);
  const { signal, stallTimeout, onProgress, onWarning, replace, ...convertOptions } = options;
  const label = typeof input === 'string' ? input : files.map((f) => f.label).join(', ');
  // HDF5 reads in a worker thread (it can be stopped there: see h5-host.ts); the archive is
  // written here, so its temp folder and lock are this process's to clean up on a signal.
  return runInWorker(
    { op: 'convert', files, options: convertOptions },
    {
      signal,
      stallTimeout,
      label,
      onProgress,
      onWarning,
      createWriter: async (writeOptions) => {
        const writer = await createScdlArchiveWriter(output, { ...writeOptions, signal, replace });
        return { appendRows: writer.appendRows, finish: writer.finish, abort: writer.abort };
      },
    },
  );
}

export type { ConversionInput, ConversionResult, ConvertOptions };
