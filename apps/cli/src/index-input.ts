import * as path from 'node:path';
import { writeFileAtomic } from '@binscope/core/node';
import { forPath } from './context.js';
import { CliError, EXIT } from './errors.js';
import { openFolder } from './remote.js';
import { scratchFolder, spool, stdinChunks } from './streams.js';

export interface ElsewhereIndexOptions {
  fold: string;
  output?: string;
  shardName?: string;
  onProgress?: (event: { done: number; total?: number }) => void;
}

export interface ElsewhereIndexResult {
  path: string;
  rows: number;
  shards: string[];
}

/**
 * Indexes shards that are not in a local folder: under an s3:// or http(s) prefix (found by
 * listing it), or one shard streamed on standard input. A stream has no name, so
 * `--shard-name` gives the one the index will look for beside it; the stream is spooled to a
 * private scratch file because the indexer seeks over payloads.
 */
export async function indexElsewhere(
  where: string,
  options: ElsewhereIndexOptions,
): Promise<ElsewhereIndexResult> {
  const output = options.output ?? `${options.fold}.taridx`;
  if (where !== '-') {
    const { indexShards } = await import('@binscope/taridx');
    const directory = openFolder(where);
    const result = await forPath(where, () =>
      indexShards({ directory, fold: options.fold }, { onProgress: options.onProgress }),
    );
    await writeFileAtomic(output, result.bytes);
    return { path: output, rows: result.rows, shards: result.shards };
  }
  const shardName = options.shardName;
  if (
    !shardName ||
    shardName !== path.basename(shardName) ||
    !shardName.startsWith(`${options.fold}_`) ||
    !shardName.endsWith('.tar')
  )
    throw new CliError(
      `index -: name the streamed shard with --shard-name ${options.fold}_NNNN.tar (the index finds it by that name)`,
      EXIT.usage,
    );
  const scratch = scratchFolder('binscope-index-');
  try {
    await forPath('-', () => spool(stdinChunks(), path.join(scratch.dir, shardName)));
    const { indexFold } = await import('@binscope/taridx/node');
    return await forPath('-', () =>
      indexFold(scratch.dir, options.fold, { output: path.resolve(output), onProgress: options.onProgress }),
    );
  } finally {
    scratch.remove();
  }
}
