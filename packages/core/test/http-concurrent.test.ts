import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpSource } from '../src/http.js';

const payload = Uint8Array.from({ length: 400_000 }, (_, i) => (i * 31 + (i >> 7)) & 0xff);

describe('HttpSource under concurrent reads', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const match = req.headers.range?.match(/^bytes=(\d+)-(\d+)$/);
      if (!match) {
        res.writeHead(416);
        res.end();
        return;
      }
      const start = Number(match[1]);
      const end = Math.min(payload.byteLength - 1, Number(match[2]));
      const body = payload.subarray(start, end + 1);
      // Answers arrive out of order, as they do from object storage.
      setTimeout(
        () => {
          res.writeHead(206, {
            'Content-Range': `bytes ${start}-${end}/${payload.byteLength}`,
            'Content-Length': String(body.byteLength),
          });
          res.end(body);
        },
        (start / 4096) % 7,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x.bin`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('returns the right bytes when other reads evict blocks this read already counted on', async () => {
    const source = await HttpSource.open(base, { blockSize: 4096, cacheBlocks: 4 });
    const ranges = Array.from(
      { length: 64 },
      (_, i) => [(i * 52_391) % 390_000, 1 + ((i * 977) % 9000)] as const,
    );
    const got = await Promise.all(ranges.map(([offset, length]) => source.read(offset, length)));
    for (let i = 0; i < ranges.length; i++) {
      const [offset, length] = ranges[i];
      expect(Array.from(got[i])).toEqual(Array.from(payload.subarray(offset, offset + length)));
    }
  });
});
