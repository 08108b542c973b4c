import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BlobSource,
  CountingSource,
  FileListDirectory,
  isBinscopeError,
  MemoryDirectory,
  MemorySource,
  readExact,
  SubDirectory,
} from '../src/index.js';
import { HttpSource } from '../src/http.js';
import { NodeFileSource, openDirectory, openPath } from '../src/node/index.js';
import { answersSynchronously } from '../src/binary.js';
// Relative, not the package: @binscope/testkit depends on core.
import { expectSameBytes } from '../../../tests/testkit/src/same.js';

const payload = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7 + (i >> 8)) & 0xff);

describe('readExact', () => {
  const source = new MemorySource(payload.subarray(0, 100), 'mem.bin');
  it('returns exactly the range', async () => {
    expect(Array.from(await readExact(source, 10, 3))).toEqual(Array.from(payload.subarray(10, 13)));
  });
  it('raises Truncated for a range that starts inside and runs past the end', async () => {
    const error = await Promise.resolve()
      .then(() => readExact(source, 90, 20, { what: 'block', format: 'x' }))
      .catch((e) => e);
    expect(isBinscopeError(error, 'Truncated')).toBe(true);
    expect(error.offset).toBe(90);
    expect(error.file).toBe('mem.bin');
  });
  it('raises OutOfBounds for a range that starts past the end, before allocating', async () => {
    const error = await Promise.resolve()
      .then(() => readExact(source, 2 ** 50, 2 ** 40))
      .catch((e) => e);
    expect(isBinscopeError(error, 'OutOfBounds')).toBe(true);
  });
  it('raises OutOfBounds for negative or non-integer ranges', async () => {
    expect(
      isBinscopeError(
        await Promise.resolve()
          .then(() => readExact(source, -1, 2))
          .catch((e) => e),
        'OutOfBounds',
      ),
    ).toBe(true);
    expect(
      isBinscopeError(
        await Promise.resolve()
          .then(() => readExact(source, 0, 1.5))
          .catch((e) => e),
        'OutOfBounds',
      ),
    ).toBe(true);
  });
});

describe('file and blob sources', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-core-'));
    fs.writeFileSync(path.join(dir, 'a.bin'), payload);
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', 'b.txt'), 'hello');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('NodeFileSource reads positionally and synchronously, clamps at the end, fills `into`', async () => {
    const source = NodeFileSource.open(path.join(dir, 'a.bin'), 'a.bin');
    expect(source.size).toBe(payload.byteLength);
    const first = source.read(1000, 5);
    expect(first).not.toBeInstanceOf(Promise);
    expect(Array.from(await first)).toEqual(Array.from(payload.subarray(1000, 1005)));
    expect((await source.read(payload.byteLength - 2, 10)).byteLength).toBe(2);
    const reused = new Uint8Array(4);
    // Filled exactly: the caller's buffer itself comes back, no view allocated.
    expect(source.read(7, 4, { into: reused })).toBe(reused);
    expect(Array.from(reused)).toEqual(Array.from(payload.subarray(7, 11)));
    const target = new Uint8Array(8).fill(0xee);
    const end = (await source.read(payload.byteLength - 5, 8, { into: target })) as Uint8Array;
    expect(end.byteLength).toBe(5);
    expect(end.buffer).toBe(target.buffer);
    expect(Array.from(target)).toEqual([...payload.subarray(payload.byteLength - 5), 0xee, 0xee, 0xee]);
    expect(() => source.read(0, 8, { into: new Uint8Array(4) })).toThrow(RangeError);
    await source.close();
    expect(() => source.read(0, 1, { into: target })).toThrow(/read after close/);
    expect(() => source.read(0, 4, { into: reused })).toThrow(/read after close/);
  });

  it('NodeFileSource with defer reads on the thread pool; close waits for reads in flight', async () => {
    const source = NodeFileSource.open(path.join(dir, 'a.bin'), 'a.bin');
    const target = new Uint8Array(3);
    const deferred = source.read(100, 3, { into: target, defer: true });
    expect(deferred).toBeInstanceOf(Promise);
    expect(await deferred).toBe(target);
    expect(Array.from(target)).toEqual(Array.from(payload.subarray(100, 103)));
    expect((await source.read(payload.byteLength - 5, 8, { defer: true })).byteLength).toBe(5);
    const big = new Uint8Array(payload.byteLength);
    const inFlight = source.read(0, big.byteLength, { into: big, defer: true });
    await source.close();
    // The read was not cut short by the close that came after it.
    expect((await inFlight).byteLength).toBe(payload.byteLength);
    expectSameBytes(big, payload, 'the read in flight');
    await expect(source.read(0, 1, { defer: true })).rejects.toThrow(/read after close/);
  });

  it('answersSynchronously tells memory and local files from promise-only sources', async () => {
    const file = NodeFileSource.open(path.join(dir, 'a.bin'), 'a.bin');
    expect(answersSynchronously(file)).toBe(true);
    expect(answersSynchronously(new CountingSource(file))).toBe(true);
    expect(answersSynchronously(new MemorySource(payload))).toBe(true);
    expect(answersSynchronously(new BlobSource(new Blob([payload])))).toBe(false);
    await file.close();
    expect(answersSynchronously(file)).toBe(false);
  });

  it('NodeFileSource on a missing file is a SourceError naming it', () => {
    let error: unknown;
    try {
      NodeFileSource.open(path.join(dir, 'nope.bin'));
    } catch (e) {
      error = e;
    }
    expect(isBinscopeError(error, 'SourceError')).toBe(true);
    expect(String(error)).toContain('nope.bin');
  });

  it('BlobSource reads slices', async () => {
    const source = new BlobSource(new Blob([payload]), 'b');
    expect(Array.from(await source.read(299_990, 20))).toEqual(Array.from(payload.subarray(299_990)));
  });

  it('CountingSource counts the bytes asked for and forwards the request as made', async () => {
    const counting = new CountingSource(new MemorySource(payload));
    await readExact(counting, 0, 10);
    await counting.read(100, 50);
    expect(counting.bytesRead).toBe(60);
    expect(counting.reads).toBe(2);
    // A synchronous source stays synchronous through the wrapper, and `into` reaches it.
    const into = new Uint8Array(4);
    expect(counting.read(20, 4, { into })).toBe(into);
    expect(Array.from(into)).toEqual(Array.from(payload.subarray(20, 24)));
  });

  it('NodeDirectory lists recursively and opens by relative path', async () => {
    const directory = openDirectory(dir);
    expect(await directory.list()).toEqual(['a.bin', 'sub/b.txt']);
    expect(await directory.has('sub/b.txt')).toBe(true);
    expect(await directory.has('sub/zz')).toBe(false);
    const text = await (await directory.open('sub/b.txt')).read(0, 5);
    expect(new TextDecoder().decode(text)).toBe('hello');
    await expect(directory.open('../etc/passwd')).rejects.toThrow(/escapes/);
    const sub = new SubDirectory(directory, 'sub');
    expect(await sub.list()).toEqual(['b.txt']);
    await directory.close();
  });

  it('NodeDirectory gives each opener its own source: closing one closes it for nobody else', async () => {
    const directory = openDirectory(dir);
    const first = await directory.open('sub/b.txt');
    const second = await directory.open('sub/b.txt');
    expect(second).not.toBe(first);
    await first.close?.();
    expect(() => first.read(0, 5)).toThrow(/read after close/);
    expect(new TextDecoder().decode(await second.read(0, 5))).toBe('hello');
    const again = await directory.open('sub/b.txt');
    expect(new TextDecoder().decode(await again.read(0, 5))).toBe('hello');
    // What its openers left open closes with the directory.
    await directory.close();
    expect(() => second.read(0, 5)).toThrow(/read after close/);
    expect(() => again.read(0, 5)).toThrow(/read after close/);
  });

  it('openPath makes a directory target for folders and a file target with siblings for files', async () => {
    const folder = openPath(dir);
    expect(folder.kind).toBe('directory');
    const file = openPath(path.join(dir, 'a.bin'));
    expect(file.kind).toBe('file');
    if (file.kind === 'file') expect(await file.siblings!.has('sub/b.txt')).toBe(true);
  });

  it('MemoryDirectory and FileListDirectory strip a shared top folder', async () => {
    const memory = new MemoryDirectory({ 'x/y.bin': new Uint8Array([1]) });
    expect(await memory.list()).toEqual(['x/y.bin']);
    const files = [
      Object.assign(new File([new Uint8Array([1, 2])], 'header.sch'), {
        webkitRelativePath: 'arch/header.sch',
      }),
      Object.assign(new File([new Uint8Array([3])], 'labels.json'), {
        webkitRelativePath: 'arch/var/labels.json',
      }),
    ];
    const listed = new FileListDirectory(files);
    expect(listed.name).toBe('arch');
    expect(await listed.list()).toEqual(['header.sch', 'var/labels.json']);
    expect(Array.from(await (await listed.open('header.sch')).read(0, 2))).toEqual([1, 2]);
    await expect(listed.open('missing')).rejects.toThrow(/no such file/);
  });
});

describe('HttpSource against a local server', () => {
  let server: http.Server;
  let base: string;
  const log: Array<{ range?: string; status: number; bytes: number }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const ranged = req.url === '/ranged.bin';
      const range = req.headers.range;
      const match = range?.match(/^bytes=(\d+)-(\d+)?$/);
      if (ranged && match) {
        const start = Number(match[1]);
        const end = Math.min(payload.byteLength - 1, match[2] ? Number(match[2]) : payload.byteLength - 1);
        if (start >= payload.byteLength) {
          res.writeHead(416, { 'Content-Range': `bytes */${payload.byteLength}` });
          res.end();
          log.push({ range, status: 416, bytes: 0 });
          return;
        }
        const body = payload.subarray(start, end + 1);
        res.writeHead(206, {
          'Content-Range': `bytes ${start}-${end}/${payload.byteLength}`,
          'Content-Length': String(body.byteLength),
        });
        res.end(body);
        log.push({ range, status: 206, bytes: body.byteLength });
      } else if (req.url === '/missing.bin') {
        res.writeHead(404);
        res.end();
      } else {
        // A server that ignores Range and always answers 200 with the whole body.
        res.writeHead(200, { 'Content-Length': String(payload.byteLength) });
        res.end(payload);
        log.push({ range, status: 200, bytes: payload.byteLength });
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('learns the size from Content-Range and fetches only what is read', async () => {
    const source = await HttpSource.open(`${base}/ranged.bin`, { blockSize: 4096, cacheBlocks: 16 });
    expect(source.size).toBe(payload.byteLength);
    const got = await source.read(200_000, 100);
    expect(Array.from(got)).toEqual(Array.from(payload.subarray(200_000, 200_100)));
    expect(source.bytesFetched).toBeLessThan(payload.byteLength / 2);
    const before = source.requests;
    await source.read(200_010, 50);
    expect(source.requests).toBe(before);
  });

  it('fetches the missing blocks of one read in one request, even with cached blocks between them', async () => {
    const source = await HttpSource.open(`${base}/ranged.bin`, { blockSize: 4096, cacheBlocks: 16 });
    // Blocks 40 and 42 cached; a read over blocks 39..43 misses 39, 41 and 43.
    await source.read(40 * 4096, 10);
    await source.read(42 * 4096, 10);
    const before = source.requests;
    const got = await source.read(39 * 4096 + 100, 4 * 4096);
    expect(Buffer.from(got).equals(Buffer.from(payload.subarray(39 * 4096 + 100, 43 * 4096 + 100)))).toBe(
      true,
    );
    expect(source.requests - before).toBe(1);
  });

  it('reads large ranges around the cache and reads the suffix', async () => {
    const source = await HttpSource.open(`${base}/ranged.bin`, { blockSize: 4096, cacheBlocks: 8 });
    const big = await source.read(10_000, 100_000);
    expect(big.byteLength).toBe(100_000);
    expect(big[99_999]).toBe(payload[109_999]);
    const tail = await source.read(source.size - 10, 10);
    expect(Array.from(tail)).toEqual(Array.from(payload.subarray(payload.byteLength - 10)));
  });

  it('survives a server that answers 200 instead of 206', async () => {
    const source = await HttpSource.open(`${base}/plain.bin`);
    expect(source.size).toBe(payload.byteLength);
    expect(Array.from(await source.read(123_456, 16))).toEqual(
      Array.from(payload.subarray(123_456, 123_472)),
    );
  });

  it('refuses a 200 body too large to keep (every read would download the file again)', async () => {
    const error = await HttpSource.open(`${base}/plain.bin`, { maxWholeBody: 1000, blockSize: 4096 }).catch(
      (e: unknown) => e,
    );
    expect(isBinscopeError(error, 'SourceError')).toBe(true);
    expect(String(error)).toMatch(/ignores Range/);
  });

  it('honours AbortSignal', async () => {
    const source = await HttpSource.open(`${base}/ranged.bin`, { blockSize: 4096 });
    const controller = new AbortController();
    controller.abort();
    await expect(source.read(250_000, 10, { signal: controller.signal })).rejects.toThrow();
  });

  it('reports HTTP errors as SourceError', async () => {
    const error = await HttpSource.open(`${base}/missing.bin`).catch((e) => e);
    expect(isBinscopeError(error, 'SourceError')).toBe(true);
    expect(String(error)).toContain('404');
  });
});
