import {
  BlobSource,
  type ByteSource,
  type Detection,
  type DirectorySource,
  directoryTarget,
  FileListDirectory,
  fileTarget,
  SubDirectory,
  type Target,
  basename,
  dirname,
} from '@binscope/core';
import type { HttpSource } from '@binscope/core/http';
import type { InputFile } from '../protocol';
import { CoverageDirectory, CoverageSource } from './counting';
import { registry } from './plugins';

/** HDF5's signature; AnnData .h5ad files start with it (a user block may push it to 512, 1024, ...). */
const HDF5_MAGIC = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];

export function isHdf5(head: Uint8Array): boolean {
  for (let at = 0; at + 8 <= head.byteLength; at = at === 0 ? 512 : at * 2) {
    if (HDF5_MAGIC.every((b, i) => head[at + i] === b)) return true;
  }
  return false;
}

export interface Counters {
  http?: HttpSource;
  /** Every local file is read through this, so its coverage totals the session's reads. */
  directory?: CoverageDirectory;
}

export interface Opened {
  target: Target;
  /** The file being shown, for file targets. */
  main?: { path: string; source: ByteSource };
  files: InputFile[] | null;
  /** Paths and sizes of a folder held in the worker (no Files behind it). */
  listing?: Array<{ path: string; size: number }>;
  directory?: DirectorySource;
  detection: Detection;
  fileFormats: Map<string, string | null>;
}

export async function openFiles(
  files: InputFile[],
  folder: string | undefined,
  counters: Counters,
  signal: AbortSignal,
): Promise<Opened> {
  if (files.length === 0) throw new Error('nothing to open: the selection was empty');
  const listing = new FileListDirectory(
    files.map((f) => [f.path, f.file] as [string, Blob]),
    folder,
  );
  const directory = new CoverageDirectory(listing);
  counters.directory = directory;
  // FileListDirectory strips a top folder shared by every path; keep our paths in step.
  const strip = commonTop(files.map((f) => f.path));
  const paths = files.map((f) => ({ ...f, path: strip ? f.path.slice(strip.length + 1) : f.path }));

  // A folder may be a directory format (an SCDL archive) as a whole.
  let folderNearMiss: Opened | undefined;
  if (folder !== undefined || paths.some((f) => f.path.includes('/'))) {
    const target = directoryTarget(directory);
    const detection = await registry.detect(target, { signal });
    const opened = { target, files: paths, directory, detection, fileFormats: new Map() };
    if (detection.info) return opened;
    // A folder that nearly is a directory format (a damaged header.sch) is shown as that format
    // unless one of its files is a format of its own.
    if (detection.nearMiss) folderNearMiss = opened;
  }

  // Otherwise one of the files is the thing to show, the rest are its siblings (tar shards
  // dropped with their .taridx). A parsed format beats a plain tar; order breaks ties.
  const fileFormats = new Map<string, string | null>();
  let best: { path: string; source: ByteSource; detection: Detection; rank: number } | undefined;
  for (const f of paths.slice(0, 512)) {
    const source = new CoverageSource(new BlobSource(f.file, basename(f.path)), directory.coverageOf(f.path));
    const detection = await registry.detect(fileTarget(source), { signal });
    const head = detection.head;
    const format = detection.format ?? (isHdf5(head) ? 'h5ad' : null);
    fileFormats.set(f.path, format);
    const rank = detection.role === 'format' ? 3 : format === 'h5ad' ? 2 : format ? 1 : 0;
    if (!best || rank > best.rank) best = { path: f.path, source, detection, rank };
  }
  if (folderNearMiss && (best?.rank ?? 0) < 3) return folderNearMiss;
  const chosen = best!;
  const folderOfMain = dirname(chosen.path);
  const siblings = folderOfMain ? new SubDirectory(directory, folderOfMain) : directory;
  const target = fileTarget(chosen.source, paths.length > 1 || folder !== undefined ? siblings : undefined);
  return {
    target,
    main: { path: chosen.path, source: chosen.source },
    files: paths,
    directory,
    detection: chosen.detection,
    fileFormats,
  };
}

function commonTop(paths: string[]): string {
  const tops = new Set(paths.map((p) => (p.includes('/') ? p.split('/')[0] : '')));
  return tops.size === 1 ? [...tops][0] : '';
}
