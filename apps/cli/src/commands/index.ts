import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeDirectory } from '@binscope/core/node';
import { type CommonOptions, type Context, forPath } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { indexElsewhere } from '../index-input.js';
import { guardOutput } from '../output-guard.js';
import { isRemote } from '../remote.js';
import { printJson } from '../render.js';
import { progressBar } from '../progress.js';

export interface IndexCommandOptions extends CommonOptions {
  fold: string;
  output?: string;
  shardName?: string;
  force?: boolean;
}

/** `binscope index DIR --fold NAME [-o OUT]`: the taridx package's indexer, with a progress bar. */
export async function indexCommand(
  ctx: Context,
  dir: string,
  options: IndexCommandOptions,
): Promise<ExitCode> {
  if (dir === '-' || isRemote(dir)) return indexRemote(ctx, dir, options);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(dir);
  } catch {
    stat = undefined;
  }
  if (!stat?.isDirectory())
    throw new CliError(`${dir}: not a directory (index takes the folder holding NAME_*.tar)`, EXIT.usage);
  if (!options.fold || options.fold.includes('/') || options.fold.includes(path.sep)) {
    throw new CliError(
      `--fold ${JSON.stringify(options.fold)}: give the fold name only (shards are DIR/NAME_*.tar)`,
      EXIT.usage,
    );
  }
  const { indexFold } = await import('@binscope/taridx/node');
  const { listShards } = await import('@binscope/taridx');
  const directory = new NodeDirectory(dir);
  const shards = await forPath(dir, () => listShards(directory, options.fold)).finally(() =>
    directory.close(),
  );
  // An index of nothing is almost certainly a typo in --fold: say so, and write nothing.
  if (shards.length === 0) throw new CliError(`${dir}: no shards named ${options.fold}_*.tar`, EXIT.failed);
  guardOutput({
    output: options.output ?? path.join(dir, `${options.fold}.taridx`),
    inputs: shards.map((name) => path.join(dir, name)),
    force: options.force,
  });
  const progress = progressBar(ctx.streams.stderr, `indexing ${options.fold}`, !options.json);
  const result = await forPath(dir, async () => {
    try {
      return await indexFold(dir, options.fold, { output: options.output, onProgress: progress.onProgress });
    } finally {
      progress.stop();
    }
  });
  const written = result.shards;
  return reportIndex(
    ctx,
    result,
    options,
    `${written.length} shard${written.length === 1 ? '' : 's'} (${written[0]} … ${written[written.length - 1]})`,
  );
}

/** Shards under a URL prefix or streamed on stdin (see index-input.ts). */
async function indexRemote(ctx: Context, where: string, options: IndexCommandOptions): Promise<ExitCode> {
  // The inputs are remote or a stream: only an existing output is at stake.
  guardOutput({ output: options.output ?? `${options.fold}.taridx`, inputs: [], force: options.force });
  const progress = progressBar(ctx.streams.stderr, `indexing ${options.fold}`, !options.json);
  const result = await indexElsewhere(where, { ...options, onProgress: progress.onProgress }).finally(() =>
    progress.stop(),
  );
  return reportIndex(ctx, result, options, `${result.shards.length} shard(s)`);
}

/** What an index run wrote: a JSON document, or one line naming where the rows came from. */
async function reportIndex(
  ctx: Context,
  result: { path: string; rows: number; shards: readonly string[] },
  options: IndexCommandOptions,
  from: string,
): Promise<ExitCode> {
  if (options.json)
    await printJson(ctx.out, {
      path: result.path,
      fold: options.fold,
      rows: result.rows,
      shards: result.shards,
    });
  else ctx.messages.line(`wrote ${result.path}: ${result.rows.toLocaleString('en-US')} rows from ${from}`);
  return EXIT.ok;
}
