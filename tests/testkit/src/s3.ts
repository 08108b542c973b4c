import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@binscope/core';

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 's3-server.mjs');

/** The S3RVER keys the local server accepts. */
export const S3_KEYS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } as const;

export interface LocalS3Config {
  /** `on`: If-None-Match: * is honoured (412); `off`: answered 501 NotImplemented; `ignore`: ignored. */
  conditional?: 'on' | 'off' | 'ignore';
  /** Writes under these `bucket/key-prefix`es are refused with 403 AccessDenied. */
  refuse?: string[];
  /** Smallest part but the last that CompleteMultipartUpload accepts (S3: 5 MiB). */
  minPartSize?: number;
}

export interface LoggedRequest {
  method: string;
  path: string;
  query: string[];
  ifNoneMatch: string | null;
}

export interface LocalS3 {
  endpoint: string;
  /** A client with the server's keys, path-style. */
  client: S3Client;
  /** The environment a child binscope process needs to reach the server (no ~/.aws files). */
  env(scratch: string): Record<string, string>;
  stats(): Promise<{ requests: number; bytes: number }>;
  /** Every request since the last reset. */
  log(): Promise<LoggedRequest[]>;
  configure(config: LocalS3Config): Promise<void>;
  /** Zeroes stats and log, and restores the default behaviour. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the local S3 server (s3rver behind a proxy adding multipart listing/abort,
 * conditional writes and refusal switches; see s3-server.mjs) in a child process, so
 * synchronous work in the test cannot stall it. Waits at most 20 s for its address.
 */
export function startLocalS3(options: { latencyMs?: number } = {}): Promise<LocalS3> {
  const child: ChildProcess = spawn(process.execPath, [SERVER], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, S3_LATENCY_MS: String(options.latencyMs ?? 0) },
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('local S3 server did not start within 20 s'));
    }, 20_000);
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
      const control = async (what: string, body?: unknown) => {
        const response = await fetch(`${endpoint}/__${what}`, {
          method: body === undefined ? 'GET' : 'POST',
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return response.json();
      };
      resolve({
        endpoint,
        client,
        env: (scratch) => ({
          ...S3_KEYS,
          AWS_ENDPOINT_URL: endpoint,
          AWS_REGION: 'us-east-1',
          AWS_SHARED_CREDENTIALS_FILE: path.join(scratch, 'no-aws-credentials'),
          AWS_CONFIG_FILE: path.join(scratch, 'no-aws-config'),
        }),
        stats: () => control('stats'),
        log: () => control('log'),
        configure: async (config) => {
          await control('config', config);
        },
        reset: async () => {
          await control('reset', {});
        },
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
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

/** Creates a bucket (PUT /bucket). */
export async function createBucket(s3: LocalS3, bucket: string): Promise<void> {
  const response = await s3.client.fetch(`${s3.endpoint}/${bucket}`, { method: 'PUT' });
  if (response.status !== 200) throw new Error(`cannot create bucket ${bucket}: HTTP ${response.status}`);
}

/** An object's bytes, or undefined when there is none at the key. */
export async function getObject(s3: LocalS3, url: string): Promise<Uint8Array | undefined> {
  const response = await s3.client.fetch(url);
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** SHA-256 (hex) and size of an object, read as a stream; undefined when there is none at the key. */
export async function hashObject(
  s3: LocalS3,
  url: string,
): Promise<{ sha256: string; size: number } | undefined> {
  const { createHash } = await import('node:crypto');
  const response = await s3.client.fetch(url);
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.ok || !response.body)
    throw new Error(`GET ${url}: HTTP ${response.status} ${response.statusText}`);
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  return { sha256: hash.digest('hex'), size };
}
