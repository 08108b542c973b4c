/**
 * Indexing that scales out: a 64-shard tar set in the bucket, indexed by N = 1, 2, 4 worker
 * processes at once (`index --shard-range` each, into partial indexes), then
 * `index --merge` of the parts; N = 1 is the one-pass index. Every merged index must be
 * byte-identical to the one-pass index (and that to a local index of the same shards), or the
 * bench fails. Workers share the one simulated link and this machine's CPUs, as a job array
 * on one host would; on separate hosts each would have its own.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TarWriter } from '@binscope/testkit';
import { formatBytes, getObject, putTree, reset, runCli, stats } from './store.js';

export const SHARDS = 64;
const WORKERS = [1, 2, 4];

export interface IndexRow {
  workers: number;
  /** The workers, all started at once, until the last exits (N = 1: the one-pass index). */
  workersMs: number;
  /** `index --merge` of the parts (N = 1: none). */
  mergeMs: number;
  totalMs: number;
  requests: number;
  bytes: number;
  /** The largest peak RSS of any one process. */
  peakRssMiB?: number;
  identical: boolean;
}

/**
 * `shards` tar shards of `samples` samples in all, WebDataset style: a 2–20 KiB .jpg of random
 * bytes, a small .json and a .cls each.
 */
export function generateShards(dir: string, shards: number, samples: number): number {
  let seed = 33;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const pool = new Uint8Array(1 << 20);
  for (let i = 0; i < pool.length; i++) pool[i] = (random() * 256) | 0;
  const encoder = new TextEncoder();
  const perShard = Math.ceil(samples / shards);
  let total = 0;
  for (let s = 0; s < shards; s++) {
    const chunks: Uint8Array[] = [];
    const writer = new TarWriter((chunk) => chunks.push(chunk.slice()));
    for (let i = s * perShard; i < Math.min(samples, (s + 1) * perShard); i++) {
      const key = `s${String(i).padStart(7, '0')}`;
      const jpg = 2048 + Math.floor(random() * 18 * 1024);
      const at = Math.floor(random() * (pool.length - jpg));
      writer.add({ name: `${key}.jpg`, data: pool.subarray(at, at + jpg) });
      writer.add({ name: `${key}.json`, data: encoder.encode(JSON.stringify({ key, label: i % 1000 })) });
      writer.add({ name: `${key}.cls`, data: encoder.encode(String(i % 1000)) });
    }
    writer.end();
    fs.writeFileSync(path.join(dir, `train_${String(s).padStart(4, '0')}.tar`), Buffer.concat(chunks));
    total += writer.position;
  }
  return total;
}

/** `count` shards cut into `parts` contiguous ranges of shard numbers, as a job array would. */
function ranges(count: number, parts: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let k = 0; k < parts; k++)
    out.push([Math.floor((k * count) / parts), Math.floor(((k + 1) * count) / parts) - 1]);
  return out;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export interface IndexingContext {
  tmp: string;
  endpoint: string;
  env: NodeJS.ProcessEnv;
}

/** The index written by N workers (and merged), with its costs; `output` is its key in the bucket. */
async function runWorkers(ctx: IndexingContext, workers: number): Promise<{ row: IndexRow; output: string }> {
  const shards = 's3://bench/shards/';
  await reset(ctx.endpoint);
  const start = performance.now();
  let runs: Array<{ ms: number; peakRssMiB?: number }>;
  let output: string;
  let mergeMs = 0;
  if (workers === 1) {
    output = 'idx/one-pass.taridx';
    runs = [await runCli(['index', shards, '--fold', 'train', '-o', `s3://bench/${output}`], ctx.env)];
  } else {
    const parts = ranges(SHARDS, workers).map(([a, b], k) => ({
      range: `${a}-${b}`,
      url: `s3://bench/idx/n${workers}/part-${k}.taridx`,
    }));
    runs = await Promise.all(
      parts.map((part) =>
        runCli(['index', shards, '--fold', 'train', '--shard-range', part.range, '-o', part.url], ctx.env),
      ),
    );
    output = `idx/n${workers}/train.taridx`;
    const merge = await runCli(
      ['index', '--merge', ...parts.map((part) => part.url), '-o', `s3://bench/${output}`],
      ctx.env,
    );
    mergeMs = merge.ms;
    runs.push(merge);
  }
  const totalMs = performance.now() - start;
  const seen = await stats(ctx.endpoint);
  const rss = runs.map((run) => run.peakRssMiB).filter((v): v is number => v !== undefined);
  const row: IndexRow = {
    workers,
    workersMs: totalMs - mergeMs,
    mergeMs,
    totalMs,
    ...seen,
    peakRssMiB: rss.length ? Math.max(...rss) : undefined,
    identical: false,
  };
  return { row, output };
}

export async function indexingRows(ctx: IndexingContext, samples: number): Promise<IndexRow[]> {
  const dir = path.join(ctx.tmp, 'shards64');
  fs.mkdirSync(dir, { recursive: true });
  const total = generateShards(dir, SHARDS, samples);
  await putTree(ctx.endpoint, 'shards/', dir);
  // The reference: the same shards indexed from the local disk.
  await runCli(['index', dir, '--fold', 'train', '-o', path.join(ctx.tmp, 'local.taridx')], ctx.env);
  const reference = sha256(fs.readFileSync(path.join(ctx.tmp, 'local.taridx')));
  fs.rmSync(dir, { recursive: true, force: true });
  process.stdout.write(
    `indexing ${SHARDS} shards, ${samples} samples, ${formatBytes(total)} in s3://bench/shards/\n`,
  );
  const rows: IndexRow[] = [];
  for (const workers of WORKERS) {
    const { row: rest, output } = await runWorkers(ctx, workers);
    rest.identical = sha256(await getObject(ctx.endpoint, output)) === reference;
    rows.push(rest);
    process.stdout.write(
      `indexing N=${workers}: ${(rest.totalMs / 1000).toFixed(1)} s (workers ${(rest.workersMs / 1000).toFixed(1)} s, merge ${(rest.mergeMs / 1000).toFixed(1)} s), ${rest.requests} requests, ${formatBytes(rest.bytes)}, peak RSS ${rest.peakRssMiB?.toFixed(0) ?? '?'} MiB, ${rest.identical ? 'identical to' : 'DIFFERS from'} a local one-pass index\n`,
    );
    if (!rest.identical)
      throw new Error(
        `s3://bench/${output} is not byte-identical to the one-pass index of the same shards made from the local disk`,
      );
  }
  return rows;
}
