import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileTarget, isBinscopeError, type SourceError, type Target } from '../src/index.js';
import { HttpSource } from '../src/http.js';
import { info, stubPlugin } from './stub.js';

/**
 * HttpSource against a server on 127.0.0.1 that misbehaves on purpose, one route per way: each
 * case must end, quickly, in the right bytes or a SourceError naming URL, range and status.
 */
const SIZE = 200_000;
const payload = Uint8Array.from({ length: SIZE }, (_, i) => (i * 13 + (i >> 9)) & 0xff);
const PROBE_RANGE = 'bytes=0-65535';
/** A cap on what any endless route sends, so a broken client cannot make the test run forever. */
const ENDLESS_CAP = 96 << 20;

let server: http.Server;
let base: string;
/** Requests per route + id (`/route?id=x`), for routes that change behaviour over time. */
const seen = new Map<string, number>();
/** The If-Range header of each request to /changes, in order. */
const ifRanges: (string | undefined)[] = [];
/** Bytes the endless routes wrote before the client went away. */
const sent = new Map<string, number>();

function parseRange(header: string | undefined): [number, number] | undefined {
  const match = header?.match(/^bytes=(\d+)-(\d+)$/);
  return match ? [Number(match[1]), Math.min(SIZE - 1, Number(match[2]))] : undefined;
}

/** A correct ranged reply of `body` with `etag`, honouring If-Range. */
function ranged(req: http.IncomingMessage, res: http.ServerResponse, body: Uint8Array, etag: string): void {
  const range = parseRange(req.headers.range);
  const ifRange = req.headers['if-range'];
  if (!range || (ifRange !== undefined && ifRange !== etag)) {
    res.writeHead(200, { 'Content-Length': String(body.byteLength), ETag: etag });
    res.end(body);
    return;
  }
  const [start, end] = range;
  res.writeHead(206, {
    'Content-Range': `bytes ${start}-${end}/${body.byteLength}`,
    'Content-Length': String(end - start + 1),
    ETag: etag,
  });
  res.end(body.subarray(start, end + 1));
}

/** Writes 64 KiB chunks as fast as the client takes them, up to ENDLESS_CAP. */
function endless(key: string, res: http.ServerResponse): void {
  const chunk = new Uint8Array(64 << 10).fill(1);
  let total = 0;
  const pump = () => {
    while (total < ENDLESS_CAP && !res.destroyed) {
      total += chunk.byteLength;
      sent.set(key, total);
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  res.on('close', () => sent.set(key, total));
  pump();
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = `${url.pathname}?${url.searchParams.get('id') ?? ''}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    const probe = req.headers.range === PROBE_RANGE;
    switch (url.pathname) {
      case '/ok':
        return ranged(req, res, payload, '"v1"');
      case '/ignores-range':
        res.writeHead(200, { 'Content-Length': String(SIZE) });
        return void res.end(payload);
      case '/ignores-range-big':
        res.writeHead(200, { 'Content-Length': String(ENDLESS_CAP) });
        return endless(key, res);
      case '/endless':
        res.writeHead(200);
        return endless(key, res);
      case '/shrinks':
        if (probe) return ranged(req, res, payload, '"v1"');
        res.writeHead(416, { 'Content-Range': `bytes */1000` });
        return void res.end();
      case '/no-content-range':
        res.writeHead(206, { 'Content-Length': '65536' });
        return void res.end(payload.subarray(0, 65536));
      case '/drop-once': {
        const range = parseRange(req.headers.range);
        if (probe || count > 2 || !range) return ranged(req, res, payload, '"v1"');
        // Half the body, then the connection goes away.
        res.writeHead(206, {
          'Content-Range': `bytes ${range[0]}-${range[1]}/${SIZE}`,
          'Content-Length': String(range[1] - range[0] + 1),
          ETag: '"v1"',
        });
        res.write(payload.subarray(range[0], range[0] + ((range[1] - range[0]) >> 1)));
        return void setTimeout(() => res.destroy(), 10);
      }
      case '/stall-body': {
        if (probe) return ranged(req, res, payload, '"v1"');
        const range = parseRange(req.headers.range)!;
        res.writeHead(206, {
          'Content-Range': `bytes ${range[0]}-${range[1]}/${SIZE}`,
          'Content-Length': String(range[1] - range[0] + 1),
        });
        // A few bytes, then nothing: the connection stays open.
        return void res.write(payload.subarray(range[0], range[0] + 10));
      }
      case '/stall-headers':
        return; // never answers
      case '/changes':
        ifRanges.push(req.headers['if-range'] as string | undefined);
        // Another version of the file after the first request; If-Range is honoured.
        return ranged(
          req,
          res,
          count === 1 ? payload : payload.map((b) => b ^ 0xff),
          count === 1 ? '"v1"' : '"v2"',
        );
      case '/changes-ignoring-if-range': {
        const range = parseRange(req.headers.range)!;
        const etag = count === 1 ? '"v1"' : '"v2"';
        res.writeHead(206, {
          'Content-Range': `bytes ${range[0]}-${range[1]}/${SIZE}`,
          'Content-Length': String(range[1] - range[0] + 1),
          ETag: etag,
        });
        return void res.end(payload.subarray(range[0], range[1] + 1));
      }
      case '/busy-once':
        if (count === 1) {
          res.writeHead(503, { 'Retry-After': '0' });
          return void res.end('busy');
        }
        return ranged(req, res, payload, '"v1"');
      case '/always-503':
        res.writeHead(503);
        return void res.end('down');
      case '/trickle': {
        // A correct reply, one byte every 200 ms: never idle long enough for the idle timeout.
        const range = parseRange(req.headers.range) ?? [0, SIZE - 1];
        res.writeHead(206, {
          'Content-Range': `bytes ${range[0]}-${range[1]}/${SIZE}`,
          'Content-Length': String(range[1] - range[0] + 1),
        });
        let at = range[0];
        const timer = setInterval(() => {
          if (res.destroyed || at > range[1]) {
            clearInterval(timer);
            return void res.end();
          }
          res.write(payload.subarray(at, at + 1));
          at++;
          sent.set(key, at - range[0]);
        }, 200);
        return void res.on('close', () => clearInterval(timer));
      }
      default:
        res.writeHead(404);
        res.end();
    }
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
  expect(isBinscopeError(error, 'SourceError'), String(error)).toBe(true);
  return error as SourceError;
}

const fast = { retryDelay: 5 };

describe('HttpSource against hostile and flaky servers', () => {
  it('keeps a small file whole when the server ignores Range: one request in all', async () => {
    const source = await HttpSource.open(`${base}/ignores-range`);
    expect(source.size).toBe(SIZE);
    expect(Array.from(await source.read(150_000, 16))).toEqual(
      Array.from(payload.subarray(150_000, 150_016)),
    );
    expect(Array.from(await source.read(10, 4))).toEqual(Array.from(payload.subarray(10, 14)));
    expect(source.requests).toBe(1);
  });

  it('refuses a large file from a server that ignores Range, naming the cause, without downloading it', async () => {
    const error = await failure(HttpSource.open(`${base}/ignores-range-big?id=a`, { maxWholeBody: 1 << 20 }));
    expect(error.reason).toBe('range-ignored');
    expect(error.message).toMatch(/ignores Range/);
    expect(error.status).toBe(200);
    expect(error.message).toContain(`${base}/ignores-range-big`);
  });

  it('stops an endless reply without a length at maxWholeBody', async () => {
    const error = await failure(HttpSource.open(`${base}/endless?id=a`, { maxWholeBody: 1 << 20 }));
    expect(error.reason).toBe('range-ignored');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // What the server got out before the client hung up: the limit plus socket buffers, not the stream.
    expect(sent.get('/endless?a')).toBeLessThan(32 << 20);
  });

  it('maps 416 on a read to a SourceError with the range and status', async () => {
    const source = await HttpSource.open(`${base}/shrinks`, { blockSize: 4096 });
    const error = await failure(source.read(150_000, 10));
    expect(error.status).toBe(416);
    expect(error.range).toBe('bytes=147456-151551');
    expect(error.message).toContain('bytes=147456-151551');
  });

  it('refuses a 206 without Content-Range (the size would be a guess)', async () => {
    const error = await failure(HttpSource.open(`${base}/no-content-range`));
    expect(error.reason).toBe('bad-response');
    expect(error.status).toBe(206);
    expect(error.message).toMatch(/Content-Range/);
  });

  it('a connection dropped mid-body: SourceError without retries, the right bytes with them', async () => {
    const once = await HttpSource.open(`${base}/drop-once?id=a`, { blockSize: 4096, retries: 0 });
    const error = await failure(once.read(100_000, 5000));
    expect(error.reason).toBe('dropped');
    expect(error.range).toBe('bytes=98304-106495');
    const retried = await HttpSource.open(`${base}/drop-once?id=b`, { blockSize: 4096, ...fast });
    expect(Array.from(await retried.read(100_000, 5000))).toEqual(
      Array.from(payload.subarray(100_000, 105_000)),
    );
    expect(retried.requests).toBe(3);
  });

  it('times out a server that stalls mid-body or before answering', async () => {
    // 1 s: the probe before the stall must not time out on a busy machine.
    const source = await HttpSource.open(`${base}/stall-body`, { blockSize: 4096, idleTimeout: 1000 });
    const error = await failure(source.read(100_000, 10));
    expect(error.reason).toBe('timeout');
    expect(error.message).toMatch(/no data from the server for 1 s/);
    const silent = await failure(HttpSource.open(`${base}/stall-headers`, { idleTimeout: 1000 }));
    expect(silent.reason).toBe('timeout');
    expect(silent.range).toBe(PROBE_RANGE);
  });

  it('turns an abort into a SourceError, not a DOMException', async () => {
    const source = await HttpSource.open(`${base}/stall-body`, { blockSize: 4096, idleTimeout: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(source.read(120_000, 10, { signal: controller.signal }));
    expect(error.reason).toBe('aborted');
    expect(await failure(source.read(0, 10, { signal: controller.signal }))).toHaveProperty(
      'reason',
      'aborted',
    );
  });

  it('a file that changes between requests is an error, whether or not the server honours If-Range', async () => {
    for (const route of ['changes', 'changes-ignoring-if-range']) {
      const source = await HttpSource.open(`${base}/${route}`, { blockSize: 4096 });
      const error = await failure(source.read(100_000, 10));
      expect(error.reason, route).toBe('changed');
    }
    // The read carried the version it expects, so the server could answer with the new file.
    expect(ifRanges).toEqual([undefined, '"v1"']);
  });

  it('retries 503 with backoff, and gives up after `retries` more attempts', async () => {
    const source = await HttpSource.open(`${base}/busy-once`, fast);
    expect(source.size).toBe(SIZE);
    expect(source.requests).toBe(2);
    const error = await failure(HttpSource.open(`${base}/always-503`, { retries: 2, ...fast }));
    expect(error.status).toBe(503);
    expect(seen.get('/always-503?')).toBe(3);
  });

  it('ends a read that trickles one byte every 200 ms at its overall deadline', async () => {
    const error = await failure(
      HttpSource.open(`${base}/trickle?id=a`, { idleTimeout: 10_000, deadline: 1000 }),
    );
    expect(error.reason).toBe('timeout');
    expect(error.message).toMatch(/no complete reply within 1 s \(deadline\)/);
    expect(error.range).toBe(PROBE_RANGE);
    // Far fewer than the 65,536 bytes asked for arrived: the read was cut short, not finished slowly.
    expect(sent.get('/trickle?a')).toBeLessThan(1000);
  });

  it('the deadline bounds retries too', async () => {
    const error = await failure(
      HttpSource.open(`${base}/always-503?id=b`, { retries: 1000, retryDelay: 100, deadline: 1000 }),
    );
    // The last 503, or the deadline if it fell during an attempt: either way the read ended.
    expect(error.status === 503 || error.reason === 'timeout', error.message).toBe(true);
    // Backoff doubles from 100 ms: a handful of attempts fit in a second, never a thousand.
    expect(seen.get('/always-503?b')).toBeLessThan(10);
  });

  it('validate() reports an I/O failure instead of throwing it', async () => {
    const source = await HttpSource.open(`${base}/drop-once?id=c`, { blockSize: 4096, retries: 0 });
    const plugin = stubPlugin(info('probe', 'PROBE'), {
      parse: async (target: Target) => {
        if (target.kind === 'file') await target.source.read(100_000, 10);
      },
    });
    const report = await plugin.validate(fileTarget(source));
    expect(report.valid).toBe(false);
    expect(report.errors[0]).toMatchObject({ code: 'SourceError', file: `${base}/drop-once?id=c` });
  });
});
