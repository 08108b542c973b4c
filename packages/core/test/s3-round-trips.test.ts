import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Client } from '../src/s3.js';

// Request counts, not times: what each access pattern costs in round trips to a real S3 API.
const SIZE = 6 * 1024 * 1024;
const payload = Uint8Array.from({ length: SIZE }, (_, i) => (i * 29 + (i >> 13)) & 0xff);
const keys = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
let server: S3rver;
let endpoint: string;
let scratch: string;

function client(concurrency?: number): S3Client {
  return new S3Client({ ...keys, endpoint, forcePathStyle: true, concurrency });
}

function expectBytes(got: Uint8Array, at: number, length: number): void {
  expect(Buffer.from(got).equals(Buffer.from(payload.subarray(at, at + length)))).toBe(true);
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-s3-trips-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: scratch });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
  const setup = client();
  expect((await setup.fetch(`${endpoint}/trips`, { method: 'PUT' })).status).toBe(200);
  expect((await setup.fetch('s3://trips/big.bin', { method: 'PUT', body: payload })).status).toBe(200);
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('round trips over S3', () => {
  it('answers reads in the head window from the opening request', async () => {
    const s3 = client();
    const source = await s3.open('s3://trips/big.bin');
    expectBytes(await source.read(0, 16), 0, 16);
    expectBytes(await source.read(40_000, 20_000), 40_000, 20_000);
    expect(s3.requests).toBe(1);
  });

  it('reads a forward walk of small pieces in a few growing requests', async () => {
    const s3 = client();
    const source = await s3.open('s3://trips/big.bin');
    let reads = 0;
    // A tar header walk: 512 bytes, then skip an 8 KiB member.
    for (let at = 0; at + 512 <= SIZE; at += 512 + 8192) {
      expectBytes(await source.read(at, 512), at, 512);
      reads++;
    }
    expect(reads).toBeGreaterThan(700);
    // 64 KiB blocks would take ~96 requests; windows doubling to 8 MiB take about 8.
    expect(s3.requests).toBeLessThanOrEqual(10);
  });

  it('fetches a batch of adjacent reads issued together as one request', async () => {
    const s3 = client();
    const source = await s3.open('s3://trips/big.bin');
    const at = 3_000_000;
    const parts = await Promise.all(Array.from({ length: 64 }, (_, i) => source.read(at + i * 2048, 2048)));
    for (const [i, part] of parts.entries()) expectBytes(part, at + i * 2048, 2048);
    expect(s3.requests).toBe(2);
  });

  it('costs at most one request per random read', async () => {
    const s3 = client();
    const source = await s3.open('s3://trips/big.bin');
    let seed = 7;
    const picks = Array.from({ length: 150 }, () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return 65_536 + (seed % (SIZE - 70_000));
    });
    for (const at of picks) expectBytes(await source.read(at, 300), at, 300);
    expect(s3.requests).toBeLessThanOrEqual(1 + picks.length);
  });

  it('keeps at most its concurrency of requests in flight', async () => {
    const s3 = client(3);
    const source = await s3.open('s3://trips/big.bin');
    const far = Array.from({ length: 30 }, (_, i) => 100_000 + i * 190_000);
    const parts = await Promise.all(far.map((at) => source.read(at, 100)));
    for (const [i, part] of parts.entries()) expectBytes(part, far[i], 100);
    expect(s3.requests).toBe(1 + far.length);
    expect(s3.pool.peak).toBe(3);
  });
});
