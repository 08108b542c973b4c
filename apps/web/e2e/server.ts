import { createReadStream, promises as fs } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
};

export interface StaticServer {
  url: string;
  /** Payload bytes sent per request path (what a client really downloaded). */
  readonly served: Map<string, number>;
  /**
   * Holds every response not yet sent until `resume`: what a client asked for stays on its
   * way, so a test can cancel while reads are in flight, deterministically, on any machine.
   */
  pause(): void;
  resume(): void;
  /** Requests received per path, counted on arrival (held or not). */
  readonly received: Map<string, number>;
  /**
   * Requests of a path that arrived and were not answered yet, whose client is still there:
   * after a cancel, a client that aborts what it asked for brings this down to 0 while held.
   */
  waiting(path: string): number;
  close(): Promise<void>;
}

/**
 * A small static server for the tests: serves a folder on 127.0.0.1 at a free port, with
 * Range requests (single ranges, open-ended and suffix) and, when asked, CORS so a page on
 * another origin can read ranges and see Content-Range; `delayMs` holds every response back.
 */
export async function startStaticServer(
  root: string,
  options: {
    cors?: boolean;
    spa?: boolean;
    delayMs?: number;
    /** Files served at these paths besides the folder's (a test's plugin module). */
    extra?: Record<string, string>;
  } = {},
): Promise<StaticServer> {
  const base = resolve(root);
  const served = new Map<string, number>();
  let held: { promise: Promise<void>; release(): void } | undefined;
  const received = new Map<string, number>();
  const pending = new Map<string, Set<ServerResponse>>();
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.cors) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Allow-Headers', 'Range');
      res.setHeader('Access-Control-Expose-Headers', 'Content-Range, Content-Length, Accept-Ranges');
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    const arrived = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method === 'GET') received.set(arrived, (received.get(arrived) ?? 0) + 1);
    const unanswered = pending.get(arrived) ?? new Set<ServerResponse>();
    pending.set(arrived, unanswered);
    unanswered.add(res);
    const gone = () => unanswered.delete(res);
    res.on('close', gone);
    // A slow network, so a page's long-running work can be watched and cancelled mid-way.
    if (options.delayMs) await new Promise((wait) => setTimeout(wait, options.delayMs));
    while (held) await held.promise;
    unanswered.delete(res);
    res.off('close', gone);
    // A client that gave up while its response was held gets nothing (and nothing is counted).
    if (res.destroyed || req.destroyed) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let file = options.extra?.[pathname] ?? normalize(join(base, pathname));
    if (!options.extra?.[pathname] && file !== base && !file.startsWith(base + sep)) {
      res.writeHead(403).end();
      return;
    }
    let stat = await fs.stat(file).catch(() => undefined);
    if (stat?.isDirectory()) {
      file = join(file, 'index.html');
      stat = await fs.stat(file).catch(() => undefined);
    }
    if (!stat?.isFile() && options.spa) {
      file = join(base, 'index.html');
      stat = await fs.stat(file).catch(() => undefined);
    }
    if (!stat?.isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    const size = stat.size;
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader('Cache-Control', 'no-store');
    let start = 0;
    let end = size - 1;
    const range = req.headers.range;
    if (range) {
      const match = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
      if (!match || (match[1] === '' && match[2] === '')) {
        res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
        return;
      }
      if (match[1] === '') {
        start = Math.max(0, size - Number(match[2]));
      } else {
        start = Number(match[1]);
        end = match[2] === '' ? size - 1 : Math.min(size - 1, Number(match[2]));
      }
      if (start >= size || start > end) {
        res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
        return;
      }
      res.writeHead(206, {
        'Content-Range': `bytes ${start}-${end}/${size}`,
        'Content-Length': end - start + 1,
      });
    } else {
      res.writeHead(200, { 'Content-Length': size });
    }
    if (req.method === 'HEAD' || size === 0) {
      res.end();
      return;
    }
    const stream = createReadStream(file, { start, end });
    stream.on('data', (chunk) => served.set(pathname, (served.get(pathname) ?? 0) + chunk.length));
    stream.pipe(res);
    await new Promise<void>((done) => res.on('close', done));
  }

  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    pause() {
      if (held) return;
      let release = () => {};
      const promise = new Promise<void>((done) => {
        release = done;
      });
      held = { promise, release };
    },
    received,
    waiting: (path) => pending.get(path)?.size ?? 0,
    resume() {
      held?.release();
      held = undefined;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
