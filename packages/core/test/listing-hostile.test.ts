import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpDirectory, isSourceError, S3Client, S3Directory, type SourceError } from '../src/index.js';

/**
 * Folder listings against a server on 127.0.0.1 that misbehaves on purpose: S3 ListObjectsV2
 * (path-style, `/<bucket>/?list-type=2…`, the bucket names the misbehaviour) and HTTP folder
 * index pages (`/web/<case>/`). Each listing must end in the full list or a typed SourceError
 * naming the URL, never a partial list, a hang or unbounded memory.
 */

/** What any endless route serves at most, so a client without limits fails its test instead of running on. */
const ENDLESS_PAGES = 3000;
const ENDLESS_BYTES = 96 << 20;

let server: http.Server;
let base: string;
/** Requests per bucket (S3) or per case (HTTP), and bytes the endless routes got out. */
const requests = new Map<string, number>();
const sent = new Map<string, number>();

function listPage(keys: string[], next?: string | null): string {
  const contents = keys.map((k) => `<Contents><Key>${k}</Key><Size>1</Size></Contents>`).join('');
  const truncated = next === undefined ? 'false' : 'true';
  const token = next ? `<NextContinuationToken>${next}</NextContinuationToken>` : '';
  return `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><IsTruncated>${truncated}</IsTruncated>${contents}${token}</ListBucketResult>`;
}

function s3Error(res: http.ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
}

function xml(res: http.ServerResponse, body: string): void {
  res.writeHead(200, { 'Content-Type': 'application/xml' });
  res.end(body);
}

function html(res: http.ServerResponse, links: string[]): void {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end(`<html><body>${links.map((l) => `<a href="${l}">${l}</a>`).join('\n')}</body></html>`);
}

/** Writes `piece` as fast as the client takes it, up to ENDLESS_BYTES. */
function endless(key: string, res: http.ServerResponse, head: string, piece: (n: number) => string): void {
  let total = 0;
  let n = 0;
  res.write(head);
  const pump = () => {
    while (total < ENDLESS_BYTES && !res.destroyed) {
      const chunk = piece(n++);
      total += chunk.length;
      sent.set(key, total);
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

function s3Route(bucket: string, url: URL, count: number, res: http.ServerResponse): void {
  const token = url.searchParams.get('continuation-token');
  const page = token === null ? 0 : Number(token.replace(/\D/g, ''));
  switch (bucket) {
    case 'ok':
      return void xml(res, page === 0 ? listPage(['p/a.bin', 'p/b.bin'], 't1') : listPage(['p/c.bin']));
    case 'cycle':
      // t1 → t2 → t1 → …: never the same token twice in a row.
      return void xml(res, listPage([`p/k${count}.bin`], page === 1 ? 't2' : 't1'));
    case 'endless':
      return void xml(res, listPage([`p/k${page}.bin`], page < ENDLESS_PAGES ? `t${page + 1}` : undefined));
    case 'wide':
      return void xml(
        res,
        listPage(
          Array.from({ length: 1000 }, (_, i) => `p/${String(page * 1000 + i).padStart(200, '0')}`),
          page < ENDLESS_PAGES ? `t${page + 1}` : undefined,
        ),
      );
    case 'no-token':
      return void xml(res, listPage(['p/a.bin', 'p/b.bin'], null));
    case 'huge-page':
      res.writeHead(200, { 'Content-Type': 'application/xml' });
      return void endless(
        bucket,
        res,
        '<?xml version="1.0"?><ListBucketResult><IsTruncated>false</IsTruncated>',
        (n) => `<Contents><Key>p/${n}</Key><Size>1</Size></Contents>`.repeat(64),
      );
    case 'stall':
      return; // never answers
    case 'stall-body':
      res.writeHead(200, { 'Content-Type': 'application/xml' });
      return void res.write('<?xml version="1.0"?><ListBucketResult>'); // then nothing
    case 'trickle': {
      // One byte every 200 ms: never idle long enough for the idle timeout.
      res.writeHead(200, { 'Content-Type': 'application/xml' });
      const body = listPage(['p/a.bin']);
      let at = 0;
      const timer = setInterval(() => {
        if (res.destroyed || at >= body.length) {
          clearInterval(timer);
          return void res.end();
        }
        res.write(body[at++]);
      }, 200);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case 'slowdown-once':
      if (count === 1) return void s3Error(res, 503, 'SlowDown', 'Please reduce your request rate.');
      return void xml(res, listPage(['p/a.bin']));
    case 'slowdown':
      return void s3Error(res, 503, 'SlowDown', 'Please reduce your request rate.');
    case 'denied':
      return void s3Error(res, 403, 'AccessDenied', 'Access Denied');
    case 'expired':
      return void s3Error(res, 400, 'ExpiredToken', 'The provided token has expired.');
    default:
      return void s3Error(res, 404, 'NoSuchBucket', 'The specified bucket does not exist');
  }
}

function webRoute(rest: string[], count: number, res: http.ServerResponse): void {
  const [which, ...below] = rest;
  switch (which) {
    case 'ok':
      if (below.length > 0) return void html(res, ['b.bin']);
      return void html(res, ['a.bin', 'sub/', '../up.bin', '/abs.bin']);
    case 'tree':
      // Every folder holds two more: 2 + 4 + 8 + 16 pages below the top, more than the limit.
      return void html(res, ['x/', 'y/', 'f.bin']);
    case 'dotdot':
      // Encoded parent links: each would list the top folder again under a new name.
      return void html(res, ['f.bin', 'a/%2e%2e/', '%2E%2E/g.bin', 'b/./c/', 'a//']);
    case 'many':
      return void html(
        res,
        Array.from({ length: 50 }, (_, i) => `f${i}.bin`),
      );
    case 'endless':
      res.writeHead(200, { 'Content-Type': 'text/html' });
      return void endless('web-endless', res, '<html><body>', (n) =>
        `<a href="f${n}.bin">f</a>\n`.repeat(64),
      );
    case 'stall':
      return;
    case 'busy-once':
      if (count === 1) {
        res.writeHead(503, { 'Retry-After': '0' });
        return void res.end('busy');
      }
      return void html(res, ['a.bin']);
    case 'down':
      res.writeHead(503);
      return void res.end('down');
    case 'no-index':
      res.writeHead(403);
      return void res.end('directory listing denied');
    default:
      res.writeHead(404);
      res.end();
  }
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const parts = url.pathname.split('/').filter(Boolean);
    const key = parts[0] === 'web' ? `web/${parts[1]}` : (parts[0] ?? '');
    const count = (requests.get(key) ?? 0) + 1;
    requests.set(key, count);
    if (parts[0] === 'web') return void webRoute(parts.slice(1), count, res);
    return void s3Route(parts[0] ?? '', url, count, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isSourceError(error), String(error)).toBe(true);
  expect((error as Error).message).not.toContain('\n');
  return error as SourceError;
}

function client(): S3Client {
  return new S3Client({ endpoint: base, forcePathStyle: true });
}

const fast = { retryDelay: 5 };

describe('S3 listings (ListObjectsV2) against a hostile server', { timeout: 20_000 }, () => {
  it('follows continuation tokens to the end', async () => {
    const listed = await client().list('ok', 'p/', fast);
    expect(listed.map((o) => o.key)).toEqual(['p/a.bin', 'p/b.bin', 'p/c.bin']);
    expect(await new S3Directory(client(), 's3://ok/p/', fast).list()).toEqual(['a.bin', 'b.bin', 'c.bin']);
  });

  it('refuses a continuation token the server already gave (a cycle), at once', async () => {
    const error = await failure(client().list('cycle', 'p/', fast));
    expect(error.reason).toBe('bad-response');
    expect(error.message).toContain('s3://cycle/p/');
    expect(error.message).toMatch(/continuation token .*again/);
    // t1, t2, then t1 again: the third page is the last one asked for.
    expect(requests.get('cycle')).toBe(3);
  });

  it('stops a listing that never ends at its page limit', async () => {
    const error = await failure(client().list('endless', 'p/', { ...fast, maxPages: 20 }));
    expect(error.reason).toBe('limit');
    expect(error.message).toMatch(/more than 20 pages \(maxPages\)/);
    expect(requests.get('endless')).toBe(20);
  });

  it('stops a listing past its entry limit and its name budget (memory stays bounded)', async () => {
    const byEntries = await failure(client().list('wide', 'p/', { ...fast, maxEntries: 5000 }));
    expect(byEntries.reason).toBe('limit');
    expect(byEntries.message).toMatch(/more than 5000 entries \(maxEntries\)/);
    expect(requests.get('wide')).toBe(6);
    const byNames = await failure(client().list('wide', 'p/', { ...fast, maxNamesLength: 1_000_000 }));
    expect(byNames.reason).toBe('limit');
    expect(byNames.message).toMatch(/names longer than 1000000 characters in all \(maxNamesLength\)/);
    // 1000 names of 202 characters a page: the fifth page passes the budget.
    expect(requests.get('wide')).toBe(6 + 5);
  });

  it('refuses a page that says it is truncated but gives no token (never a partial list)', async () => {
    const error = await failure(new S3Directory(client(), 's3://no-token/p/', fast).list());
    expect(error.reason).toBe('bad-response');
    expect(error.message).toContain('s3://no-token/p/');
    expect(error.message).toMatch(/truncated .*no continuation token/);
  });

  it('refuses a listing page larger than 16 MiB without reading the rest', async () => {
    const error = await failure(client().list('huge-page', 'p/', fast));
    expect(error.reason).toBe('limit');
    expect(error.message).toMatch(/larger than 16777216 bytes/);
    expect(sent.get('huge-page')).toBeLessThan(48 << 20);
  });

  it('times out a listing that stalls, before answering or mid-page', async () => {
    for (const bucket of ['stall', 'stall-body']) {
      const error = await failure(client().list(bucket, 'p/', { ...fast, idleTimeout: 200 }));
      expect(error.reason, bucket).toBe('timeout');
      expect(error.message).toContain(`s3://${bucket}/p/`);
      expect(error.message).toMatch(/idleTimeout/);
    }
  });

  it('ends a listing that trickles one byte every 200 ms at its deadline', async () => {
    const error = await failure(
      client().list('trickle', 'p/', { ...fast, idleTimeout: 10_000, deadline: 1000 }),
    );
    expect(error.reason).toBe('timeout');
    expect(error.message).toMatch(/deadline/);
  });

  it('retries 503 SlowDown with backoff, and gives up after `retries` more attempts', async () => {
    expect((await client().list('slowdown-once', 'p/', fast)).map((o) => o.key)).toEqual(['p/a.bin']);
    expect(requests.get('slowdown-once')).toBe(2);
    const error = await failure(client().list('slowdown', 'p/', { ...fast, retries: 2 }));
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/s3:\/\/slowdown\/p\/.*SlowDown/);
    expect(requests.get('slowdown')).toBe(3);
  });

  it.each([
    ['a denied listing', 'denied', 403, /AccessDenied/],
    ['an expired token', 'expired', 400, /ExpiredToken/],
    ['a missing bucket', 'nobucket', 404, /NoSuchBucket/],
  ])('names the prefix and the S3 error for %s', async (_, bucket, status, code) => {
    const error = await failure(new S3Directory(client(), `s3://${bucket}/p/`, fast).list());
    expect(error.reason).toBe('http');
    expect(error.status).toBe(status);
    expect(error.message).toContain(`s3://${bucket}/p/`);
    expect(error.message).toMatch(code);
  });

  it('names the endpoint of an unreachable server', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const away = new S3Client({ endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true });
    const error = await failure(away.list('data', 'p/', { ...fast, retries: 1 }));
    expect(error.reason).toBe('dropped');
    expect(error.message).toContain('s3://data/p/');
  });
});

describe('HTTP folder listings against a hostile server', { timeout: 20_000 }, () => {
  const folder = (which: string, options = {}) =>
    new HttpDirectory(`${base}/web/${which}/`, { ...fast, ...options });

  it('lists files below the page, and none of the links that leave it', async () => {
    expect(await folder('ok').list()).toEqual(['a.bin', 'sub/b.bin']);
    // A server without an index page (403, 404) is a folder known by name only.
    expect(await folder('no-index').list()).toEqual([]);
  });

  it('never follows a link back up, however it is encoded', async () => {
    expect(await folder('dotdot').list()).toEqual(['f.bin']);
    expect(requests.get('web/dotdot')).toBe(1);
  });

  it('stops a folder tree past its page limit', async () => {
    const error = await failure(folder('tree', { maxPages: 10 }).list());
    expect(error.reason).toBe('limit');
    expect(error.message).toMatch(/more than 10 pages \(maxPages\)/);
    expect(requests.get('web/tree')).toBe(10);
  });

  it('refuses more files than its entry limit instead of listing some of them', async () => {
    const error = await failure(folder('many', { maxEntries: 10 }).list());
    expect(error.reason).toBe('limit');
    expect(error.message).toMatch(/more than 10 entries/);
    expect(error.message).toContain(`${base}/web/many/`);
  });

  it('refuses an endless index page at 16 MiB', async () => {
    const error = await failure(folder('endless').list());
    expect(error.reason).toBe('limit');
    expect(sent.get('web-endless')).toBeLessThan(48 << 20);
  });

  it('times out a page that stalls, and retries one that is busy', async () => {
    const error = await failure(folder('stall', { idleTimeout: 200 }).list());
    expect(error.reason).toBe('timeout');
    expect(error.message).toContain(`${base}/web/stall/`);
    expect(await folder('busy-once').list()).toEqual(['a.bin']);
    expect(requests.get('web/busy-once')).toBe(2);
    const down = await failure(folder('down', { retries: 1 }).list());
    expect(down.status).toBe(503);
    expect(requests.get('web/down')).toBe(2);
  });
});
