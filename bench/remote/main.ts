/**
 * Requests and bytes over object storage: a local S3 API (s3rver behind a proxy that adds
 * latency per request and counts requests and response bytes), every figure beside the
 * same operation on the local file. CLI verbs run as a user runs them (one process per
 * command); random reads run in-process through the readers over an S3 source.
 *
 *   pnpm --filter @binscope/bench run bench:remote [--scale S] [--latency MS] [--bandwidth MIBPS] [--big]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type ByteSource, type DirectorySource, fileTarget } from '@binscope/core';
import { S3Client, S3Directory } from '@binscope/core/s3';
import { openDirectory, openFile } from '@binscope/core/node';
import { mldfPlugin, openMldf } from '@binscope/mldf';
import { openScdl } from '@binscope/scdl';
import { TaridxReader, taridxPlugin } from '@binscope/taridx';
import { Bench, makeTmp } from '../src/harness.js';
import { generate as generateMldf } from '../src/mldf.js';
import { generate as generateScdl } from '../src/scdl.js';
import { generate as generateTaridx } from '../src/taridx.js';
import {
  BIN,
  formatBytes,
  mibPerSecond,
  putFile,
  putTree,
  REPO,
  reset,
  startServer,
  startUploadLink,
  stats,
} from './store.js';
import { uploadRow } from './upload.js';
import { indexingRows } from './indexing.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const VECTORS = path.resolve(REPO, process.env.BINSCOPE_VECTORS ?? '../shared/vectors');

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '0.05' },
    latency: { type: 'string', default: '20' },
    // The link the proxy simulates, in MiB/s (0: loopback speed).
    bandwidth: { type: 'string', default: '50' },
    big: { type: 'boolean', default: false },
    // Just the sequential passes against the link (quick to re-measure).
    sequential: { type: 'boolean', default: false },
    // Just the write rows (upload throughput, N-worker indexing); the other rows of --out stay.
    writes: { type: 'boolean', default: false },
    // The export the upload row writes, in MiB (default: 1024 from scale 0.5 up, less below).
    'upload-mib': { type: 'string' },
    out: { type: 'string', default: path.join(here, 'results.json') },
  },
});
const scale = Number(values.scale);
const latencyMs = Number(values.latency);
const bandwidthMiB = Number(values.bandwidth);
const uploadMiB = Number(values['upload-mib'] ?? Math.min(1024, Math.max(32, Math.round(2048 * scale))));

interface Row {
  format: string;
  operation: string;
  requests: number;
  bytes: number;
  remoteMs: number;
  localMs: number;
  note?: string;
}

function timeCli(args: string[], env: NodeJS.ProcessEnv): number {
  const start = performance.now();
  const run = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    maxBuffer: 256 << 20,
  });
  const ms = performance.now() - start;
  if (run.status !== 0 && run.status !== 1)
    throw new Error(`binscope ${args.join(' ')} exited ${run.status}: ${run.stderr.toString()}`);
  return ms;
}

const rows: Row[] = [];

function print(row: Row): void {
  rows.push(row);
  process.stdout.write(
    `${row.format.padEnd(7)} ${row.operation.padEnd(28)} ${String(row.requests).padStart(6)} req ${formatBytes(row.bytes).padStart(10)}  remote ${row.remoteMs.toFixed(0).padStart(6)} ms  local ${row.localMs.toFixed(0).padStart(6)} ms${row.note ? `  (${row.note})` : ''}\n`,
  );
}

async function cliRow(
  endpoint: string,
  env: NodeJS.ProcessEnv,
  format: string,
  verb: string[],
  remote: string,
  local: string,
) {
  await reset(endpoint);
  const remoteMs = timeCli([...verb, remote], env);
  const seen = await stats(endpoint);
  const localMs = timeCli([...verb, local], env);
  print({ format, operation: verb.join(' '), ...seen, remoteMs, localMs });
}

/** `reads` random picks through `read`, over the S3 source and over the local file. */
async function randomRow(
  endpoint: string,
  format: string,
  operation: string,
  remote: () => Promise<(i: number) => Promise<unknown>>,
  local: () => Promise<(i: number) => Promise<unknown>>,
  count: number,
  reads: number,
  batch = 1,
): Promise<void> {
  let seed = 12345;
  const picks = Array.from({ length: reads }, () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % count;
  });
  const readRemote = await remote();
  await reset(endpoint);
  let start = performance.now();
  let failure: string | undefined;
  try {
    // A data loader's batch: `batch` samples asked for at once.
    for (let i = 0; i < picks.length; i += batch)
      await Promise.all(picks.slice(i, i + batch).map((pick) => readRemote(pick)));
  } catch (error) {
    // Recorded, not fatal: the table should show what failed beside what worked.
    failure = `failed: ${(error as Error).message.split('\n')[0]}`;
  }
  const remoteMs = performance.now() - start;
  const seen = await stats(endpoint);
  const readLocal = await local();
  start = performance.now();
  for (let i = 0; i < picks.length; i += batch)
    await Promise.all(picks.slice(i, i + batch).map((pick) => readLocal(pick)));
  const localMs = performance.now() - start;
  print({
    format,
    operation,
    ...seen,
    remoteMs,
    localMs,
    note: failure ?? `${(seen.requests / reads).toFixed(2)} requests per read`,
  });
}

/** Random reads one at a time, and as a data loader asks for them: a batch at once. */
const BATCHES = [1, 16];

type Pass = (source: ByteSource, shards?: DirectorySource) => Promise<unknown>;

/**
 * Sequential passes (a full validate, in-process so Node's start-up is not counted) against
 * the link: one plain GET of the same object shows what the link delivers, and each pass is
 * reported as its share of that rate.
 */
async function sequentialRows(
  endpoint: string,
  client: S3Client,
  passes: Array<[string, string, Pass, string?, string?]>,
  localFiles: Record<string, string>,
): Promise<void> {
  // The link: one plain GET of the largest object, as fast as the server and link deliver.
  const [, linkKey] = passes[0];
  await reset(endpoint);
  let start = performance.now();
  const whole = await client.fetch(`s3://${linkKey}`);
  const size = (await whole.arrayBuffer()).byteLength;
  const linkMs = performance.now() - start;
  const linkRate = size / linkMs;
  print({
    format: passes[0][0],
    operation: 'one GET of the whole object',
    ...(await stats(endpoint)),
    remoteMs: linkMs,
    localMs: 0,
    note: `the link: ${mibPerSecond(linkRate)}`,
  });
  for (const [format, key, pass, shardsUrl, shardsDir] of passes) {
    const source = await client.open(`s3://${key}`);
    await reset(endpoint);
    start = performance.now();
    await pass(source, shardsUrl ? new S3Directory(client, shardsUrl) : undefined);
    const remoteMs = performance.now() - start;
    const seen = await stats(endpoint);
    start = performance.now();
    await pass(openFile(localFiles[format]), shardsDir ? openDirectory(shardsDir) : undefined);
    const localMs = performance.now() - start;
    const rate = seen.bytes / remoteMs;
    print({
      format,
      operation: 'validate (in-process)',
      ...seen,
      remoteMs,
      localMs,
      note: `${mibPerSecond(rate)}, ${((100 * rate) / linkRate).toFixed(0)} % of the link`,
    });
  }
}

/** The read rows: every CLI verb, random reads and sequential passes (see README.md). */
async function readRows(endpoint: string, client: S3Client, env: NodeJS.ProcessEnv, tmp: string) {
  const bench = new Bench(scale, tmp);
  const mldf = await generateMldf(bench);
  await putFile(endpoint, 'mldf/train.mldf', mldf.file);
  const taridxDir = bench.dir('taridx');
  const samples = bench.n(100_000, 200);
  generateTaridx(taridxDir, samples);
  const indexed = spawnSync(process.execPath, [BIN, 'index', taridxDir, '--fold', 'train']);
  if (indexed.status !== 0) throw new Error(indexed.stderr.toString());
  await putTree(endpoint, 'taridx/', taridxDir);
  const scdlDir = path.join(bench.dir('scdl'), 'archive');
  const cells = bench.n(100_000, 100);
  await generateScdl(scdlDir, cells);
  await putTree(endpoint, 'scdl/archive/', scdlDir);
  const scbf = path.join(VECTORS, 'scbf/large_100k/large_100k.scbf');
  const udf = path.join(VECTORS, 'udf/nested_text_json/nested_text_json.udf');
  await putFile(endpoint, 'scbf/large_100k.scbf', scbf);
  await putFile(endpoint, 'udf/nested_text_json.udf', udf);

  const cases: Array<[string, string, string]> = [
    ['mldf', 's3://bench/mldf/train.mldf', mldf.file],
    ['scbf', 's3://bench/scbf/large_100k.scbf', scbf],
    ['udf', 's3://bench/udf/nested_text_json.udf', udf],
    ['taridx', 's3://bench/taridx/train.taridx', path.join(taridxDir, 'train.taridx')],
    ['scdl', 's3://bench/scdl/archive/', scdlDir],
  ];
  for (const [format, remote, local] of values.sequential ? [] : cases) {
    for (const verb of [['detect'], ['info'], ['head', '-n', '10'], ['validate']])
      await cliRow(endpoint, env, format, verb, remote, local);
  }

  const reads = 1000;
  for (const batch of values.sequential ? [] : BATCHES)
    await randomRow(
      endpoint,
      'mldf',
      `${reads} random samples${batch > 1 ? `, ${batch} at once` : ''}`,
      async () => {
        const reader = await openMldf(await client.open('s3://bench/mldf/train.mldf'));
        return (i) => reader.sample(i);
      },
      async () => {
        const reader = await openMldf(openFile(mldf.file));
        return (i) => reader.sample(i);
      },
      mldf.samples,
      reads,
      batch,
    );
  const taridxOpen = async (source: ByteSource, shards: string) => {
    const reader = await TaridxReader.open(source, {
      shards: shards.startsWith('s3://') ? new S3Directory(client, shards) : openDirectory(shards),
    });
    const count = await reader.sampleCount();
    return { reader, count };
  };
  const { count: taridxSamples } = await taridxOpen(
    openFile(path.join(taridxDir, 'train.taridx')),
    taridxDir,
  );
  for (const batch of values.sequential ? [] : BATCHES)
    await randomRow(
      endpoint,
      'taridx',
      `${reads} random samples${batch > 1 ? `, ${batch} at once` : ''}`,
      async () => {
        const { reader } = await taridxOpen(
          await client.open('s3://bench/taridx/train.taridx'),
          's3://bench/taridx/',
        );
        return async (i) => reader.readSample(await reader.sample(i));
      },
      async () => {
        const { reader } = await taridxOpen(openFile(path.join(taridxDir, 'train.taridx')), taridxDir);
        return async (i) => reader.readSample(await reader.sample(i));
      },
      taridxSamples,
      reads,
      batch,
    );
  if (!values.sequential)
    await randomRow(
      endpoint,
      'scdl',
      `${reads} random rows`,
      async () => {
        const reader = await openScdl(new S3Directory(client, 's3://bench/scdl/archive/'));
        return async (i) => reader.row(i);
      },
      async () => {
        const reader = await openScdl(openDirectory(scdlDir));
        return async (i) => reader.row(i);
      },
      cells,
      reads,
    );

  await sequentialRows(
    endpoint,
    client,
    [
      ['mldf', 'bench/mldf/train.mldf', (source) => mldfPlugin.validate(fileTarget(source))],
      [
        'taridx',
        'bench/taridx/train.taridx',
        (source, shards) => taridxPlugin.validate(fileTarget(source, shards)),
        's3://bench/taridx/',
        taridxDir,
      ],
    ],
    { mldf: mldf.file, taridx: path.join(taridxDir, 'train.taridx') },
  );

  if (values.big) {
    // ~1 GB: the MLDF workload at full scale, written by the package's own writer.
    const big = await generateMldf(new Bench(0.85, tmp));
    await putFile(endpoint, 'mldf/big.mldf', big.file);
    await cliRow(endpoint, env, 'mldf', ['info'], 's3://bench/mldf/big.mldf', big.file);
    rows[rows.length - 1].note = `${formatBytes(fs.statSync(big.file).size)} file`;
    await cliRow(endpoint, env, 'mldf', ['detect'], 's3://bench/mldf/big.mldf', big.file);
  }
}

async function main(): Promise<void> {
  const tmp = makeTmp();
  const { endpoint, child } = await startServer(latencyMs, bandwidthMiB);
  const link = await startUploadLink(endpoint, bandwidthMiB);
  const keys = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };
  const env = { ...keys, AWS_ENDPOINT_URL: endpoint };
  const client = new S3Client({
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    endpoint,
    forcePathStyle: true,
  });
  try {
    await client.fetch(`${endpoint}/bench`, { method: 'PUT' });
    process.stdout.write(
      `latency ${latencyMs} ms per request, link ${bandwidthMiB || 'unlimited'} MiB/s, scale ${scale}; generating and uploading…\n`,
    );
    if (!values.writes) await readRows(endpoint, client, env, tmp);
    // Writes go through the upload link too, so both directions have the simulated bandwidth.
    const writeEnv = { ...keys, AWS_ENDPOINT_URL: link.endpoint };
    const upload = await uploadRow({ tmp, endpoint, link: link.endpoint, env: writeEnv }, uploadMiB);
    const indexing = await indexingRows(
      { tmp, endpoint, env: writeEnv },
      Math.max(640, Math.round(128_000 * scale)),
    );
    const writes = {
      date: new Date().toISOString().slice(0, 10),
      latencyMs,
      bandwidthMiB,
      scale,
      uploadMiB,
      upload,
      indexing,
    };
    const kept =
      values.writes && fs.existsSync(values.out!)
        ? JSON.parse(fs.readFileSync(values.out!, 'utf8'))
        : { latencyMs, bandwidthMiB, scale, rows };
    fs.writeFileSync(values.out!, `${JSON.stringify({ ...kept, writes }, null, 2)}\n`);
  } finally {
    link.child.kill('SIGTERM');
    child.kill('SIGTERM');
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
