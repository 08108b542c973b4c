/** Node-only helpers: index a folder of shards and write .taridx files atomically. */
import * as path from 'node:path';
import { NodeDirectory, openFile, writeFileAtomic } from '@binscope/core/node';
import { type IndexOptions, indexShards } from './indexer.js';
import { openTaridx } from './plugin.js';
import type { OpenTaridxOptions, TaridxReader } from './read.js';
import { encodeTaridx, type TaridxContent } from './encode.js';

export interface IndexFoldOptions extends IndexOptions {
  /** Output path; default `<dir>/<fold>.taridx`. */
  output?: string;
}

/**
 * Indexes `<dir>/<fold>_*.tar` into `<dir>/<fold>.taridx` (or `output`). The file is written
 * under a temp name and renamed into place, so a crash leaves the previous index or none.
 */
export async function indexFold(
  dir: string,
  fold: string,
  options: IndexFoldOptions = {},
): Promise<{ path: string; rows: number; shards: string[] }> {
  const directory = new NodeDirectory(dir);
  try {
    const result = await indexShards({ directory, fold }, options);
    const target = options.output ?? path.join(dir, `${fold}.taridx`);
    await writeFileAtomic(target, result.bytes);
    return { path: target, rows: result.rows, shards: result.shards };
  } finally {
    await directory.close();
  }
}

/** Writes a .taridx from rows, atomically. */
export async function writeTaridxFile(target: string, content: TaridxContent): Promise<void> {
  await writeFileAtomic(target, encodeTaridx(content));
}

/**
 * Opens an index file; shards are looked up beside it unless `shards` says otherwise. The
 * reader owns the file and the folder it opened here: closing it closes them.
 */
export async function openTaridxFile(file: string, options: OpenTaridxOptions = {}): Promise<TaridxReader> {
  const source = openFile(file);
  const folder = options.shards ? undefined : new NodeDirectory(path.dirname(path.resolve(file)));
  try {
    return (await openTaridx(source, { shards: folder, ...options })).own(source, folder);
  } catch (error) {
    await source.close();
    await folder?.close();
    throw error;
  }
}
