/**
 * Upload throughput: a ~`uploadMiB` export written by the CLI to s3:// through the simulated
 * link, beside the floor (one plain PUT of the same bytes through the same link, in the same
 * run) and the same export to a local file.
 *
 * The export is TARIDX shards → MLDF with --keep-encoded: mostly a byte copy, so the CLI's own
 * work is small next to the link. The converter spills the values to a local scratch file
 * first (the metadata rows go first in an MLDF), so the upload starts once the spill is done;
 * the rate is taken from CreateMultipartUpload to the answer to CompleteMultipartUpload, as the
 * link proxy logged them, and the whole command's time is reported beside it.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generate as generateTaridx } from '../src/taridx.js';
import {
  control,
  formatBytes,
  getObject,
  mibPerSecond,
  objectSize,
  putFile,
  reset,
  runCli,
  stats,
} from './store.js';

/** MLDF bytes per sample of the TARIDX workload with --keep-encoded (measured: 10,000 → 115.8 MB). */
const BYTES_PER_SAMPLE = 11_576;
const MiB = 1 << 20;

export interface LinkEntry {
  method: string;
  path: string;
  query: string[];
  start: number;
  end: number;
}

export interface UploadResult {
  bytes: number;
  /** The same export to a local file (convert + spill + write). */
  localMs: number;
  /** One plain PUT of the same bytes through the same link: what the link delivers. */
  floorMs: number;
  /** The CLI command to s3://, start to exit. */
  cliMs: number;
  /** CreateMultipartUpload sent → CompleteMultipartUpload answered. */
  uploadMs: number;
  /** Of uploadMs: the CompleteMultipartUpload request alone (s3rver joins the parts on disk). */
  completeMs: number;
  parts: number;
  requests: number;
  /** Upload rate over the floor's rate. */
  ratio: number;
  peakRssMiB?: number;
}

export interface UploadContext {
  tmp: string;
  /** The S3 server (counts requests). */
  endpoint: string;
  /** The upload link in front of it (logs requests). */
  link: string;
  /** Credentials and AWS_ENDPOINT_URL = the link. */
  env: NodeJS.ProcessEnv;
}

async function linkLog(link: string): Promise<{ sent: number; log: LinkEntry[] }> {
  return JSON.parse(await control(link, '__log', 'GET')) as { sent: number; log: LinkEntry[] };
}

/** Three 64 KiB windows (start, middle, end) of the object equal to the local file's. */
async function sameSamples(endpoint: string, key: string, file: string, size: number): Promise<boolean> {
  const fd = fs.openSync(file, 'r');
  try {
    for (const at of [0, Math.floor(size / 2), Math.max(0, size - 65536)]) {
      const end = Math.min(size, at + 65536);
      const local = Buffer.alloc(end - at);
      fs.readSync(fd, local, 0, local.length, at);
      const remote = await getObject(endpoint, key, [at, end]);
      const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');
      if (hash(local) !== hash(remote)) return false;
    }
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

export async function uploadRow(ctx: UploadContext, uploadMiB: number): Promise<UploadResult> {
  const dir = path.join(ctx.tmp, 'upload');
  fs.mkdirSync(dir, { recursive: true });
  generateTaridx(dir, Math.max(200, Math.round((uploadMiB * MiB) / BYTES_PER_SAMPLE)));
  await runCli(['index', dir, '--fold', 'train'], ctx.env);
  const index = path.join(dir, 'train.taridx');
  const localOut = path.join(ctx.tmp, 'export.mldf');
  const local = await runCli(['convert', index, localOut, '--keep-encoded'], ctx.env);
  const bytes = fs.statSync(localOut).size;

  await reset(ctx.link);
  const start = performance.now();
  await putFile(ctx.link, 'upload/floor.bin', localOut);
  const floorMs = performance.now() - start;

  await reset(ctx.endpoint);
  await reset(ctx.link);
  const key = 'upload/export.mldf';
  const cli = await runCli(['convert', index, `s3://bench/${key}`, '--keep-encoded'], ctx.env);
  const { requests } = await stats(ctx.endpoint);
  const { log } = await linkLog(ctx.link);
  const create = log.find((e) => e.method === 'POST' && e.query.includes('uploads'));
  const complete = log.find((e) => e.method === 'POST' && e.query.includes('uploadId'));
  if (!create || !complete) throw new Error('the export was not a multipart upload');
  const uploadMs = complete.end - create.start;

  const size = await objectSize(ctx.endpoint, key);
  if (size !== bytes || !(await sameSamples(ctx.endpoint, key, localOut, size)))
    throw new Error(`s3://bench/${key} (${size} bytes) differs from the local export (${bytes} bytes)`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(localOut, { force: true });
  const result: UploadResult = {
    bytes,
    localMs: local.ms,
    floorMs,
    cliMs: cli.ms,
    uploadMs,
    completeMs: complete.end - complete.start,
    parts: log.filter((e) => e.method === 'PUT' && e.query.includes('partNumber')).length,
    requests,
    ratio: bytes / uploadMs / (bytes / floorMs),
    peakRssMiB: cli.peakRssMiB,
  };
  process.stdout.write(describeUpload(result));
  return result;
}

export function describeUpload(r: UploadResult): string {
  // CreateMultipartUpload and the parts: what the uploader controls (s3rver then copies the parts into one file).
  const partsMs = r.uploadMs - r.completeMs;
  const rss = r.peakRssMiB === undefined ? 'peak RSS unknown' : `peak RSS ${r.peakRssMiB.toFixed(0)} MiB`;
  return (
    `upload  ${formatBytes(r.bytes)} MLDF export: floor (one PUT) ${(r.floorMs / 1000).toFixed(1)} s = ${mibPerSecond(r.bytes / r.floorMs)}; ` +
    `CLI upload ${(r.uploadMs / 1000).toFixed(1)} s = ${mibPerSecond(r.bytes / r.uploadMs)} = ${(100 * r.ratio).toFixed(0)} % of the floor ` +
    `(${r.parts} parts, ${r.requests} requests; the parts ${(partsMs / 1000).toFixed(1)} s = ${(100 * (r.floorMs / partsMs)).toFixed(0)} % of the floor, ` +
    `then CompleteMultipartUpload ${(r.completeMs / 1000).toFixed(1)} s); ` +
    `whole command ${(r.cliMs / 1000).toFixed(1)} s, local export ${(r.localMs / 1000).toFixed(1)} s; ${rss}\n`
  );
}
