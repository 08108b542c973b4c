/**
 * The simulated store the remote bench runs against: the test S3 server (s3rver behind a proxy
 * adding latency per request and a download link), the upload half of the link in front of
 * it, and the plain HTTP calls the bench makes to fill the bucket and read the counters.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, '../..');
export const BIN = path.join(REPO, 'apps/cli/bin/binscope.js');
const SERVER = path.join(REPO, 'apps/cli/test/s3-server.mjs');
const UPLOAD_LINK = path.join(here, 'upload-link.mjs');

export interface Stats {
  requests: number;
  bytes: number;
}

/** Starts a child that prints one JSON line `{ endpoint }`; it ends when our stdin closes. */
function startChild(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ endpoint: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'], env });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start in 20 s`)), 20_000);
    child.stdout!.once('data', (data: Buffer) => {
      clearTimeout(timer);
      resolve({
        endpoint: (JSON.parse(data.toString('utf8').split('\n')[0]) as { endpoint: string }).endpoint,
        child,
      });
    });
  });
}

/** The S3 server: `latencyMs` before each request, response bodies at `bandwidthMiB` MiB/s shared. */
export function startServer(latencyMs: number, bandwidthMiB: number) {
  return startChild([SERVER], {
    ...process.env,
    S3_LATENCY_MS: String(latencyMs),
    S3_BANDWIDTH: String(Math.round(bandwidthMiB * 1024 * 1024)),
  });
}

/** The upload half of the link in front of `endpoint`: request bodies at `bandwidthMiB` MiB/s shared. */
export function startUploadLink(endpoint: string, bandwidthMiB: number) {
  return startChild([UPLOAD_LINK, endpoint], {
    ...process.env,
    S3_BANDWIDTH: String(Math.round(bandwidthMiB * 1024 * 1024)),
  });
}

/** Streams a file into the bucket (s3rver takes unsigned path-style PUTs), without holding it in memory. */
export function putFile(endpoint: string, key: string, file: string): Promise<void> {
  const url = new URL(`${endpoint}/bench/${key}`);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'PUT',
        headers: { 'content-length': fs.statSync(file).size },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200
            ? resolve()
            : reject(new Error(`PUT ${key}: HTTP ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    fs.createReadStream(file).pipe(request);
  });
}

export async function putTree(endpoint: string, prefix: string, local: string): Promise<void> {
  for (const entry of fs.readdirSync(local, { withFileTypes: true })) {
    const full = path.join(local, entry.name);
    if (entry.isDirectory()) await putTree(endpoint, `${prefix}${entry.name}/`, full);
    else await putFile(endpoint, `${prefix}${entry.name}`, full);
  }
}

/** One request on a fresh connection: a kept-alive socket may be closed under a long CLI run. */
export function control(endpoint: string, what: string, method = 'POST'): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${endpoint}/${what}`, { method, agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve(body));
    });
    request.on('error', reject);
    request.end();
  });
}

export async function stats(endpoint: string): Promise<Stats> {
  return JSON.parse(await control(endpoint, '__stats')) as Stats;
}

export async function reset(endpoint: string): Promise<void> {
  await control(endpoint, '__reset');
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1 << 20) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
}

export function mibPerSecond(bytesPerMs: number): string {
  return `${((bytesPerMs * 1000) / (1 << 20)).toFixed(1)} MiB/s`;
}

export interface CliRun {
  ms: number;
  /** The CLI process's own peak RSS (from /usr/bin/time -v), when that tool exists. */
  peakRssMiB?: number;
}

const TIME = '/usr/bin/time';

/**
 * Runs binscope as its own process (exec'd by /usr/bin/time, which reports that process's
 * peak RSS) without blocking this one's event loop; rejects on a non-zero exit.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const timed = fs.existsSync(TIME);
  const argv = [process.execPath, BIN, ...args];
  const start = performance.now();
  const child = spawn(timed ? TIME : argv[0], timed ? ['-v', ...argv] : argv.slice(1), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - start;
      if (code !== 0) {
        reject(new Error(`binscope ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n')[0]}`));
        return;
      }
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      resolve({ ms, peakRssMiB: rss ? Number(rss[1]) / 1024 : undefined });
    });
  });
}

/** An unsigned GET (s3rver serves them) of `bench/key`, or of `range` of it. */
export function getObject(endpoint: string, key: string, range?: [number, number]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = range ? { range: `bytes=${range[0]}-${range[1] - 1}` } : {};
    const request = http.get(`${endpoint}/bench/${key}`, { headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        response.statusCode === 200 || response.statusCode === 206
          ? resolve(Buffer.concat(chunks))
          : reject(new Error(`GET ${key}: HTTP ${response.statusCode}`)),
      );
    });
    request.on('error', reject);
  });
}

/** The size of `bench/key`, from an unsigned HEAD. */
export function objectSize(endpoint: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${endpoint}/bench/${key}`, { method: 'HEAD', agent: false }, (response) => {
      response.resume();
      if (response.statusCode !== 200) reject(new Error(`HEAD ${key}: HTTP ${response.statusCode}`));
      else resolve(Number(response.headers['content-length']));
    });
    request.on('error', reject);
    request.end();
  });
}
