import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@binscope/core/s3';

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 's3-server.mjs');

export interface LocalS3 {
  endpoint: string;
  client: S3Client;
  /** Requests and response bytes the server has seen since the last reset. */
  stats(): Promise<{ requests: number; bytes: number }>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** The S3RVER keys the local server accepts. */
export const S3_KEYS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } as const;

/**
 * Starts s3rver (bound to 127.0.0.1) in a child process, so synchronous CLI runs in the
 * test cannot stall it; waits at most 100 s for its address (a bound on a hang, not a timing).
 */
export function startLocalS3(latencyMs = 0): Promise<LocalS3> {
  const child: ChildProcess = spawn(process.execPath, [SERVER], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, S3_LATENCY_MS: String(latencyMs) },
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('local S3 server did not start within 100 s'));
    }, 100_000);
    let buffered = '';
    child.stdout!.on('data', (data: Buffer) => {
      buffered += data.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      const { endpoint } = JSON.parse(buffered.slice(0, newline)) as { endpoint: string };
      const client = new S3Client({
        accessKeyId: S3_KEYS.AWS_ACCESS_KEY_ID,
        secretAccessKey: S3_KEYS.AWS_SECRET_ACCESS_KEY,
        endpoint,
        forcePathStyle: true,
      });
      resolve({
        endpoint,
        client,
        stats: async () =>
          (await fetch(`${endpoint}/__stats`)).json() as Promise<{ requests: number; bytes: number }>,
        reset: async () => {
          await fetch(`${endpoint}/__reset`, { method: 'POST' });
        },
        stop: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`local S3 server exited with ${code}`));
    });
  });
}

export async function createBucket(s3: LocalS3, bucket: string): Promise<void> {
  const response = await s3.client.fetch(`${s3.endpoint}/${bucket}`, { method: 'PUT' });
  if (response.status !== 200) throw new Error(`cannot create bucket ${bucket}: HTTP ${response.status}`);
}

/** Uploads a file or a folder's files under `prefix` (keys use `/`). */
export async function upload(s3: LocalS3, bucket: string, prefix: string, local: string): Promise<void> {
  const stat = fs.statSync(local);
  if (stat.isDirectory()) {
    for (const entry of fs.readdirSync(local))
      await upload(s3, bucket, `${prefix}${prefix ? '/' : ''}${entry}`, path.join(local, entry));
    return;
  }
  const response = await s3.client.fetch(`s3://${bucket}/${prefix}`, {
    method: 'PUT',
    body: fs.readFileSync(local),
  });
  if (response.status !== 200) throw new Error(`cannot upload ${prefix}: HTTP ${response.status}`);
}
