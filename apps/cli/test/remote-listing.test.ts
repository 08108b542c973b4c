import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { tempDir } from '@binscope/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, STACK_LINE } from './helpers.js';

/**
 * The CLI on S3 prefixes and HTTP folders whose listing misbehaves, served by a local server
 * (in this process; the CLI runs as a child) that holds the demo's SCDL archive and tar shards.
 * The bucket names the misbehaviour. Every failure must be one line naming the URL, never
 * "no format recognises this directory", a partial index, or a hang.
 */

const scratch = tempDir('binscope-cli-listing-');
const objects = new Map<string, Buffer>();
const requests = new Map<string, number>();
let server: http.Server;
let endpoint: string;
let env: NodeJS.ProcessEnv;

function s3Error(res: http.ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
}

/** ListObjectsV2 in pages of two keys; `cycle` and `no-token` break the token chain. */
function listing(bucket: string, url: URL, res: http.ServerResponse): void {
  const prefix = url.searchParams.get('prefix') ?? '';
  const keys = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
  const token = url.searchParams.get('continuation-token');
  const page = token ? Number(token.slice(1)) : 0;
  const slice = keys.slice(page * 2, page * 2 + 2);
  let next: string | undefined = page * 2 + 2 < keys.length ? `p${page + 1}` : undefined;
  if (bucket === 'cycle') next = page === 1 ? 'p2' : 'p1';
  const truncated = next !== undefined || bucket === 'no-token';
  if (bucket === 'no-token') next = undefined;
  const contents = slice
    .map((k) => `<Contents><Key>${k}</Key><Size>${objects.get(k)?.byteLength}</Size></Contents>`)
    .join('');
  res.writeHead(200, { 'Content-Type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><IsTruncated>${truncated}</IsTruncated>${contents}${next ? `<NextContinuationToken>${next}</NextContinuationToken>` : ''}</ListBucketResult>`,
  );
}

function object(key: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  const body = objects.get(key);
  if (!body) return void s3Error(res, 404, 'NoSuchKey', 'The specified key does not exist.');
  const match = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (!match) {
    res.writeHead(200, { 'Content-Length': String(body.byteLength), ETag: '"1"' });
    return void res.end(body);
  }
  const start = Number(match[1]);
  const end = Math.min(body.byteLength - 1, Number(match[2]));
  if (start >= body.byteLength) {
    res.writeHead(416, { 'Content-Range': `bytes */${body.byteLength}` });
    return void res.end();
  }
  res.writeHead(206, {
    'Content-Range': `bytes ${start}-${end}/${body.byteLength}`,
    'Content-Length': String(end - start + 1),
    ETag: '"1"',
  });
  res.end(body.subarray(start, end + 1));
}

function s3Route(
  bucket: string,
  key: string,
  url: URL,
  count: number,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): void {
  const isListing = url.searchParams.get('list-type') === '2';
  switch (bucket) {
    case 'denied':
      return void s3Error(res, 403, 'AccessDenied', 'Access Denied');
    case 'expired':
      return void s3Error(res, 400, 'ExpiredToken', 'The provided token has expired.');
    case 'slowdown':
      return void s3Error(res, 503, 'SlowDown', 'Please reduce your request rate.');
    case 'slowdown-once':
      if (count === 1) return void s3Error(res, 503, 'SlowDown', 'Please reduce your request rate.');
      break;
    case 'stall':
      if (isListing) return; // never answers
      break;
    case 'objects-down':
      if (!isListing) return void s3Error(res, 503, 'ServiceUnavailable', 'Please try again.');
      break;
    case 'trickle':
      if (!isListing) {
        // Headers at once, then one byte every 200 ms: never idle for long.
        res.writeHead(206, { 'Content-Range': 'bytes 0-65535/1000000', 'Content-Length': '65536' });
        const timer = setInterval(() => res.write('x'), 200);
        return void res.on('close', () => clearInterval(timer));
      }
      break;
    case 'data':
    case 'cycle':
    case 'no-token':
      break;
    default:
      return void s3Error(res, 404, 'NoSuchBucket', 'The specified bucket does not exist');
  }
  if (isListing) return void listing(bucket, url, res);
  return void object(key, req, res);
}

function webRoute(which: string, res: http.ServerResponse): void {
  if (which === 'stall') return; // never answers
  if (which === 'down') {
    res.writeHead(503);
    return void res.end('down');
  }
  res.writeHead(404);
  res.end();
}

beforeAll(async () => {
  const demo = path.join(scratch.dir, 'demo');
  const made = cli(['demo', demo]);
  expect(made.code, made.stderr).toBe(0);
  for (const name of fs.readdirSync(path.join(demo, 'cells_scdl'), { recursive: true }) as string[]) {
    const file = path.join(demo, 'cells_scdl', name);
    if (fs.statSync(file).isFile())
      objects.set(`archive/${name.split(path.sep).join('/')}`, fs.readFileSync(file));
  }
  for (const name of fs.readdirSync(path.join(demo, 'shards')))
    objects.set(`shards/${name}`, fs.readFileSync(path.join(demo, 'shards', name)));
  objects.set('x.scbf', fs.readFileSync(path.join(demo, 'measurements.scbf')));

  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const [bucket = '', ...rest] = url.pathname.slice(1).split('/');
    const key = decodeURIComponent(rest.join('/'));
    const count = (requests.get(bucket) ?? 0) + 1;
    requests.set(bucket, count);
    if (bucket === 'web') return void webRoute(rest[0] ?? '', res);
    return void s3Route(bucket, key, url, count, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = {
    AWS_ACCESS_KEY_ID: 'TEST',
    AWS_SECRET_ACCESS_KEY: 'TEST',
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_SHARED_CREDENTIALS_FILE: path.join(scratch.dir, 'none'),
    AWS_CONFIG_FILE: path.join(scratch.dir, 'none'),
  };
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  scratch.remove();
});

/**
 * An endpoint nothing listens on: a port bound, then closed. Taken just before its use: a server
 * of a test file running beside this one could get the same port from the kernel later on.
 */
async function closedEndpoint(): Promise<string> {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  return url;
}

/** A run that failed with exit 2 and one line on stderr naming `url`; returns that line. */
function oneLine(run: { code: number | null; stdout: string; stderr: string }, url: string): string {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).not.toMatch(STACK_LINE);
  const lines = run.stderr.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toContain(url);
  expect(lines[0]).not.toMatch(/BadMagic|no format recognises|not a recognised/);
  return lines[0];
}

describe('an SCDL archive on an S3 prefix', { timeout: 120_000 }, () => {
  it('reads through a paged listing, and through one SlowDown (retried)', async () => {
    const run = await cliAsync(['info', '--json', 's3://data/archive/'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ format: 'scdl' });
    const retried = await cliAsync(['info', '--json', 's3://slowdown-once/archive/'], { env });
    expect(retried.code, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({ format: 'scdl' });
  });

  const cases: Array<[string, string, RegExp]> = [
    ['a denied listing (403)', 'denied', /403 AccessDenied/],
    ['an expired token', 'expired', /400 ExpiredToken/],
    ['a missing bucket', 'nobucket', /404 NoSuchBucket/],
    ['a store that keeps answering 503 SlowDown', 'slowdown', /503 SlowDown/],
  ];
  for (const [what, bucket, code] of cases) {
    it(`${what}: info and validate name the prefix and the S3 error`, async () => {
      const url = `s3://${bucket}/archive/`;
      for (const verb of ['info', 'validate']) {
        const line = oneLine(await cliAsync([verb, url], { env }), url);
        expect(line, verb).toMatch(code);
      }
    });
  }

  it('an unreachable endpoint', async () => {
    const url = 's3://data/archive/';
    const line = oneLine(
      await cliAsync(['info', url], { env: { ...env, AWS_ENDPOINT_URL: await closedEndpoint() } }),
      url,
    );
    expect(line).toMatch(/connection failed/);
  });

  it('a listing that stalls fails at the idle timeout (BINSCOPE_HTTP_IDLE_TIMEOUT)', async () => {
    const url = 's3://stall/archive/';
    const run = await cliAsync(['info', url], { env: { ...env, BINSCOPE_HTTP_IDLE_TIMEOUT: '0.5' } });
    expect(oneLine(run, url)).toMatch(/no data from the server for 0.5 s/);
  });

  it('objects that keep failing are reported, not taken for a folder of no known format', async () => {
    const url = 's3://objects-down/archive/';
    const line = oneLine(await cliAsync(['info', url], { env }), url);
    expect(line).toMatch(/503 ServiceUnavailable/);
  });

  it('an empty prefix says so', async () => {
    const url = 's3://data/nothing-here/';
    expect(oneLine(await cliAsync(['info', url], { env }), url)).toMatch(/no objects/);
  });
});

describe('index over a listing that cannot be trusted writes nothing', { timeout: 120_000 }, () => {
  it('indexes the shards of a paged listing', async () => {
    const out = path.join(scratch.dir, 'good.taridx');
    const run = await cliAsync(['index', 's3://data/shards/', '--fold', 'train', '-o', out], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.existsSync(out)).toBe(true);
  });

  it.each([
    ['continuation tokens that cycle', 'cycle', /continuation token "p1" again/],
    ['a truncated page without a token', 'no-token', /truncated but gives no continuation token/],
  ])('%s', async (_, bucket, message) => {
    const out = path.join(scratch.dir, `${bucket}.taridx`);
    const url = `s3://${bucket}/shards/`;
    const line = oneLine(await cliAsync(['index', url, '--fold', 'train', '-o', out], { env }), url);
    expect(line).toMatch(message);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('an HTTP folder whose index page stalls or keeps failing', async () => {
    const cases: Array<[string, NodeJS.ProcessEnv, RegExp]> = [
      ['stall', { BINSCOPE_HTTP_IDLE_TIMEOUT: '0.5' }, /idleTimeout/],
      ['down', {}, /HTTP 503/],
    ];
    for (const [which, extra, message] of cases) {
      const url = `${endpoint}/web/${which}/`;
      const out = path.join(scratch.dir, `web-${which}.taridx`);
      const run = await cliAsync(['index', url, '--fold', 'train', '-o', out], { env: { ...env, ...extra } });
      expect(oneLine(run, url), which).toMatch(message);
      expect(fs.existsSync(out)).toBe(false);
    }
  });
});

describe('every remote read has an overall deadline', { timeout: 120_000 }, () => {
  it('a server sending one byte every 200 ms fails at BINSCOPE_HTTP_DEADLINE', async () => {
    const url = 's3://trickle/x.scbf';
    const run = await cliAsync(['info', url], { env: { ...env, BINSCOPE_HTTP_DEADLINE: '1' } });
    expect(oneLine(run, url)).toMatch(/no complete reply within 1 s \(deadline\)/);
  });

  it('a timeout setting that is not a number of seconds is a usage error', async () => {
    const run = await cliAsync(['info', 's3://data/x.scbf'], {
      env: { ...env, BINSCOPE_HTTP_DEADLINE: 'soon' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/BINSCOPE_HTTP_DEADLINE/);
  });
});
