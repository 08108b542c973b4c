import {
  BlobSource,
  type ByteSource,
  basename,
  type Detection,
  type DirectorySource,
  dirname,
  directoryTarget,
  FileListDirectory,
  type FormatRole,
  fileTarget,
  MemoryDirectory,
  type ProgressCallback,
  SubDirectory,
  type Target,
} from '@binscope/core';
import { HttpSource } from '@binscope/core/http';
import type { InputFile, SessionFile } from '../protocol';
import { CoverageDirectory, covered } from './counting';
import { explainFetchFailure } from './fetch-failure';
import { registry } from './registry';
import { type RemotePass, remotePasses } from './remote-pass';
import { SessionFiles } from './session-files';

export interface Counters {
  http?: HttpSource;
  /** Every local file is read through this, so its coverage totals the session's reads. */
  directory?: CoverageDirectory;
}

export interface Opened {
  target: Target;
  detection: Detection;
  files: SessionFiles;
  counters: Counters;
  /** A file by URL: a sequential pass over it (validation) reads ahead (see RemotePass). */
  pass?: (signal: AbortSignal, onProgress?: ProgressCallback) => RemotePass;
}

/**
 * Which of several files is the one to show: a file a plugin reads beats a convertible one,
 * which beats a file that nearly is a format (a damaged signature: it is shown as that format,
 * its defect marked), which beats a container (read through the file beside it that indexes
 * it: a broken index is still the file to show), which beats an unknown file; the format
 * list's order breaks ties.
 */
const RANK: Record<FormatRole, number> = { format: 4, convertible: 3, container: 1 };
const NEAR_MISS = 2;

export async function openUrl(url: string, signal: AbortSignal): Promise<Opened> {
  const http = await HttpSource.open(url, { signal }).catch((error: unknown) => {
    throw explainFetchFailure(url, error);
  });
  const target = fileTarget(http);
  const detection = await registry().detect(target, { signal });
  const path = basename(new URL(url, 'http://x/').pathname) || url;
  const files = new SessionFiles('file', [{ path, size: http.size, format: detection.format }], {
    path,
    source: http,
  });
  return { target, detection, files, counters: { http }, pass: remotePasses(http) };
}

/** A folder held in the worker (a conversion's output), opened as a folder format would be. */
export async function openDirectory(directory: DirectorySource, signal: AbortSignal): Promise<Opened> {
  const coverage = new CoverageDirectory(directory);
  const target = directoryTarget(coverage);
  const detection = await registry().detect(target, { signal });
  const list: SessionFile[] = [];
  for (const path of await directory.list()) list.push({ path, size: (await directory.open(path)).size });
  const files = new SessionFiles('directory', list, undefined, coverage);
  return { target, detection, files, counters: { directory: coverage } };
}

/** One file held in the worker (a conversion's output). */
export async function openBytes(name: string, bytes: Uint8Array, signal: AbortSignal): Promise<Opened> {
  const directory = new CoverageDirectory(new MemoryDirectory({ [name]: bytes }, name));
  const source = await directory.open(name);
  const target = fileTarget(source);
  const detection = await registry().detect(target, { signal });
  const list = [{ path: name, size: bytes.byteLength, format: detection.format }];
  const files = new SessionFiles('file', list, { path: name, source }, directory);
  return { target, detection, files, counters: { directory } };
}

export async function openFiles(
  input: InputFile[],
  folder: string | undefined,
  signal: AbortSignal,
): Promise<Opened> {
  if (input.length === 0) throw new Error('nothing to open: the selection was empty');
  const directory = new CoverageDirectory(
    new FileListDirectory(
      input.map((f) => [f.path, f.file] as [string, Blob]),
      folder,
    ),
  );
  const counters = { directory };
  // FileListDirectory strips a top folder shared by every path; session paths do the same.
  const strip = commonTop(input.map((f) => f.path));
  const paths = input.map((f) => ({ path: strip ? f.path.slice(strip.length + 1) : f.path, file: f.file }));
  const list: SessionFile[] = paths.map((f) => ({ path: f.path, size: f.file.size }));

  // A folder may be a folder format as a whole.
  let folderNearMiss: Opened | undefined;
  if (folder !== undefined || paths.some((f) => f.path.includes('/'))) {
    const target = directoryTarget(directory);
    const detection = await registry().detect(target, { signal });
    const opened = {
      target,
      detection,
      files: new SessionFiles('directory', list, undefined, directory),
      counters,
    };
    if (detection.info) return opened;
    // A folder that nearly is a folder format (a damaged marker file) is shown as that format
    // unless one of its own files (not one in a subfolder: those are the format's parts, e.g. a
    // table it keeps in a known format) is a format of its own.
    if (detection.nearMiss) folderNearMiss = opened;
  }

  // Otherwise one of the files is the one to show; the rest are its siblings.
  let best: { path: string; source: ByteSource; detection: Detection; rank: number } | undefined;
  let bestTopRank = 0;
  for (const [k, f] of paths.entries()) {
    if (k >= 512) break;
    const source = covered(new BlobSource(f.file, basename(f.path)), directory.coverageOf(f.path));
    const detection = await registry().detect(fileTarget(source), { signal });
    list[k].format = detection.format;
    const rank = detection.role ? RANK[detection.role] : detection.nearMiss ? NEAR_MISS : 0;
    if (!best || rank > best.rank) best = { path: f.path, source, detection, rank };
    if (!f.path.includes('/')) bestTopRank = Math.max(bestTopRank, rank);
  }
  if (folderNearMiss && bestTopRank < RANK.format) {
    for (const [k, entry] of list.entries()) folderNearMiss.files.list[k].format = entry.format;
    return folderNearMiss;
  }
  const chosen = best!;
  const folderOfMain = dirname(chosen.path);
  const many = paths.length > 1 || folder !== undefined;
  const siblings = folderOfMain ? new SubDirectory(directory, folderOfMain) : directory;
  const target = fileTarget(chosen.source, many ? siblings : undefined);
  const main = { path: chosen.path, source: chosen.source };
  const files = new SessionFiles('file', list, main, directory, many);
  return { target, detection: chosen.detection, files, counters };
}

function commonTop(paths: string[]): string {
  const tops = new Set(paths.map((p) => (p.includes('/') ? p.split('/')[0] : '')));
  return tops.size === 1 ? [...tops][0] : '';
}
