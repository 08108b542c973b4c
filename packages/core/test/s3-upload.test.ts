import { createHash } from 'node:crypto';
import {
  createBucket,
  getObject,
  hashObject,
  type LocalS3,
  startLocalS3,
} from '../../../tests/testkit/src/s3.js';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isSourceError, listMultipartUploads, S3Client, S3Upload, type SourceError } from '../src/index.js';
import { choosePartSize, MAX_PART_SIZE, MAX_PARTS, MIN_PART_SIZE, nextPartSize } from '../src/s3-upload.js';

const MiB = 1024 * 1024;
const BUCKET = 'out';
let s3: LocalS3;
let client: S3Client;

beforeAll(async () => {
  s3 = await startLocalS3();
  client = new S3Client({ ...client0(), concurrency: 8 });
  await createBucket(s3, BUCKET);
}, 30_000);

afterAll(async () => {
  await s3?.stop();
});

beforeEach(async () => {
  await s3.reset();
});

function client0() {
  return { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', endpoint: s3.endpoint, forcePathStyle: true };
}

/** Deterministic bytes: position-dependent so a part in the wrong place changes the hash. */
function payload(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Writes `bytes` in uneven chunks (so chunks straddle part boundaries). */
async function writeChunks(upload: S3Upload, bytes: Uint8Array): Promise<void> {
  let at = 0;
  for (let i = 0; at < bytes.byteLength; i++) {
    const size = [1, 4095, 700_001, 3 * MiB + 17][i % 4];
    await upload.write(bytes.subarray(at, at + size));
    at += size;
  }
}

async function unfinished(prefix = ''): Promise<string[]> {
  const uploads = await listMultipartUploads(client, BUCKET, prefix);
  return (uploads ?? []).map((u) => u.key);
}

async function caught(promise: Promise<unknown>): Promise<SourceError> {
  try {
    await promise;
  } catch (error) {
    expect(isSourceError(error), String(error)).toBe(true);
    return error as SourceError;
  }
  throw new Error('expected a SourceError');
}

function expectOneLine(error: Error, url: string): void {
  expect(error.message).toContain(url);
  expect(error.message).not.toContain('\n');
}

describe('part sizes', () => {
  it('start at 8 MiB, or what the expected size needs to fit in 10,000 parts, in whole MiB', () => {
    expect(choosePartSize()).toBe(8 * MiB);
    expect(choosePartSize(100 * MiB)).toBe(8 * MiB);
    expect(choosePartSize(200 * 1024 * MiB)).toBe(21 * MiB);
    expect(choosePartSize(undefined, MIN_PART_SIZE)).toBe(MIN_PART_SIZE);
  });

  it('fit any output that matches its hint, and any output up to 3 TB without one, in 10,000 parts of at least 5 MiB', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 4.8e12, noNaN: true }).map(Math.floor),
        fc.boolean(),
        fc.constantFrom(MIN_PART_SIZE, 8 * MiB),
        (size, hinted, minimum) => {
          if (!hinted && size > 3e12) return;
          const hint = hinted ? size : undefined;
          let part = choosePartSize(hint, minimum);
          let written = 0;
          let parts = 0;
          let grew = false;
          let smallest = part;
          let largest = part;
          while (written < size) {
            smallest = Math.min(smallest, part);
            largest = Math.max(largest, part);
            written += Math.min(part, size - written);
            parts++;
            const next = nextPartSize(part, parts, written, hint);
            grew ||= next !== part;
            part = next;
          }
          expect(parts).toBeLessThanOrEqual(MAX_PARTS);
          expect(smallest).toBeGreaterThanOrEqual(MIN_PART_SIZE);
          expect(largest).toBeLessThanOrEqual(MAX_PART_SIZE);
          // An accurate hint never needs a bigger part later (memory stays what was planned).
          if (hinted) expect(grew).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  }, 60_000);
});

describe('S3Upload', () => {
  it('writes a small output with one conditional PutObject and no multipart upload', async () => {
    const url = `s3://${BUCKET}/small/a.bin`;
    const bytes = payload(300_000);
    const upload = await S3Upload.create(client, url);
    await writeChunks(upload, bytes);
    expect(await getObject(s3, url)).toBeUndefined();
    expect(upload.uploaded).toBe(0);
    await upload.commit();
    expect(upload.uploaded).toBe(bytes.byteLength);
    expect(upload.conditional).toBe(true);
    expect(sha256((await getObject(s3, url))!)).toBe(sha256(bytes));
    const log = await s3.log();
    const writes = log.filter((r) => r.method !== 'GET');
    expect(writes).toEqual([{ method: 'PUT', path: '/out/small/a.bin', query: [], ifNoneMatch: '*' }]);
  });

  it('uploads a large output in parts, completed conditionally, with nothing left unfinished', async () => {
    const url = `s3://${BUCKET}/big/b.bin`;
    const bytes = payload(23 * MiB + 5, 2);
    const upload = await S3Upload.create(client, url, {
      partSize: MIN_PART_SIZE,
      expectedSize: bytes.byteLength,
    });
    await writeChunks(upload, bytes);
    expect(await getObject(s3, url)).toBeUndefined();
    expect(upload.uploaded).toBeLessThan(bytes.byteLength);
    await upload.commit();
    expect(upload.uploaded).toBe(bytes.byteLength);
    expect(await hashObject(s3, url)).toEqual({ sha256: sha256(bytes), size: bytes.byteLength });
    const log = await s3.log();
    const parts = log.filter((r) => r.query.includes('partNumber'));
    expect(parts).toHaveLength(5);
    const complete = log.filter((r) => r.method === 'POST' && r.query.includes('uploadId'));
    expect(complete).toEqual([
      { method: 'POST', path: '/out/big/b.bin', query: ['uploadId'], ifNoneMatch: '*' },
    ]);
    expect(await unfinished()).toEqual([]);
  });

  it('refuses an existing object without force, changing nothing; replaces it with force', async () => {
    const url = `s3://${BUCKET}/exists/c.bin`;
    const first = await S3Upload.create(client, url);
    await first.write(payload(10, 3));
    await first.commit();
    const error = await caught(S3Upload.create(client, url));
    expect(error.reason).toBe('exists');
    expectOneLine(error, url);
    expect(sha256((await getObject(s3, url))!)).toBe(sha256(payload(10, 3)));
    const second = await S3Upload.create(client, url, { force: true });
    await second.write(payload(20, 4));
    await second.commit();
    expect(second.conditional).toBeUndefined();
    expect(sha256((await getObject(s3, url))!)).toBe(sha256(payload(20, 4)));
  });

  for (const size of [1000, 12 * MiB]) {
    it(`fails without replacing an object another writer created meanwhile (${size > MiB ? 'multipart' : 'single PUT'})`, async () => {
      const url = `s3://${BUCKET}/race/${size}.bin`;
      const ours = await S3Upload.create(client, url, { partSize: MIN_PART_SIZE });
      await ours.write(payload(size, 5));
      const theirs = await S3Upload.create(client, url);
      await theirs.write(payload(7, 6));
      await theirs.commit();
      const error = await caught(ours.commit());
      expect(error.reason).toBe('exists');
      expectOneLine(error, url);
      expect(sha256((await getObject(s3, url))!)).toBe(sha256(payload(7, 6)));
      expect(await unfinished('race/')).toEqual([]);
    });
  }

  for (const mode of ['off', 'ignore'] as const) {
    it(`writes to a store that ${mode === 'off' ? 'refuses' : 'ignores'} If-None-Match, relying on the first check`, async () => {
      await s3.configure({ conditional: mode });
      const warnings: string[] = [];
      for (const size of [100, 11 * MiB]) {
        const url = `s3://${BUCKET}/noconditional-${mode}/${size}.bin`;
        const upload = await S3Upload.create(client, url, { onWarning: (m) => warnings.push(m) });
        await upload.write(payload(size, 7));
        await upload.commit();
        expect(upload.conditional).toBe(mode === 'ignore');
        expect(sha256((await getObject(s3, url))!)).toBe(sha256(payload(size, 7)));
      }
      expect(warnings).toHaveLength(mode === 'off' ? 2 : 0);
      if (mode === 'off') expect(warnings[0]).toMatch(/does not support conditional writes/);
      expect(await unfinished()).toEqual([]);
    });
  }

  it('abort() leaves no object and no unfinished upload', async () => {
    const url = `s3://${BUCKET}/aborted/d.bin`;
    const upload = await S3Upload.create(client, url, { partSize: MIN_PART_SIZE });
    await upload.write(payload(16 * MiB, 8));
    expect(await unfinished('aborted/')).toEqual(['aborted/d.bin']);
    await upload.abort();
    await upload.abort();
    expect(await getObject(s3, url)).toBeUndefined();
    expect(await unfinished('aborted/')).toEqual([]);
    const error = await caught(upload.write(payload(1)));
    expect(error.reason).toBe('aborted');
    expect((await s3.log()).some((r) => r.method === 'DELETE' && r.query.includes('uploadId'))).toBe(true);
  });

  it('an AbortSignal aborts the upload and the pending write', async () => {
    const url = `s3://${BUCKET}/signal/e.bin`;
    const controller = new AbortController();
    const upload = await S3Upload.create(client, url, { partSize: MIN_PART_SIZE, signal: controller.signal });
    await upload.write(payload(11 * MiB, 9));
    controller.abort();
    const error = await caught(
      (async () => {
        for (;;) await upload.write(payload(MiB, 10));
      })(),
    );
    expect(error.reason).toBe('aborted');
    await upload.abort();
    expect(await getObject(s3, url)).toBeUndefined();
    expect(await unfinished('signal/')).toEqual([]);
  });

  it('a part the store refuses fails the write and aborts the upload', async () => {
    const url = `s3://${BUCKET}/refused-later/f.bin`;
    const upload = await S3Upload.create(client, url, { partSize: MIN_PART_SIZE });
    await upload.write(payload(6 * MiB, 11));
    await s3.configure({ refuse: [`${BUCKET}/refused-later/`] });
    const error = await caught(
      (async () => {
        for (let i = 0; i < 40; i++) await upload.write(payload(MiB, 12));
        await upload.commit();
      })(),
    );
    expect(error.reason).toBe('denied');
    expectOneLine(error, url);
    expect(await getObject(s3, url)).toBeUndefined();
    expect(await unfinished('refused-later/')).toEqual([]);
  });

  it('keeps at most the allowed parts in flight, whatever the writer does', async () => {
    const url = `s3://${BUCKET}/bounded/g.bin`;
    const gated = new S3Client(client0());
    const send = gated.fetch;
    let inFlight = 0;
    let most = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let full!: () => void;
    const reachedBound = new Promise<void>((resolve) => {
      full = resolve;
    });
    // Parts are held until the test opens the gate: an unbounded writer would send them all.
    (gated as { fetch: typeof send }).fetch = async (input, init) => {
      if (!String(input).includes('partNumber=')) return send(input, init);
      inFlight++;
      most = Math.max(most, inFlight);
      if (inFlight === 3) full();
      await gate;
      try {
        return await send(input, init);
      } finally {
        inFlight--;
      }
    };
    const upload = await S3Upload.create(gated, url, { partSize: MIN_PART_SIZE, concurrency: 3 });
    const bytes = payload(10 * MIN_PART_SIZE + 3, 13);
    let finished = false;
    const writing = writeChunks(upload, bytes).then(() => {
      finished = true;
    });
    await reachedBound;
    // From here a writer that does not wait needs no I/O to send every part: a few event-loop
    // turns let it run as far as it would.
    for (let turn = 0; turn < 20 && !finished; turn++) await new Promise((r) => setImmediate(r));
    expect(finished).toBe(false);
    expect(most).toBe(3);
    open();
    await writing;
    await upload.commit();
    expect(most).toBe(3);
    expect(await hashObject(s3, url)).toEqual({ sha256: sha256(bytes), size: bytes.byteLength });
  });
});

describe('S3Upload errors are one line, typed, and name the URL', () => {
  it('wrong credentials', async () => {
    const url = `s3://${BUCKET}/creds/h.bin`;
    const wrong = new S3Client({ ...client0(), secretAccessKey: 'not-the-secret' });
    const error = await caught(S3Upload.create(wrong, url));
    expect(error.reason).toBe('credentials');
    expectOneLine(error, url);
    const unknown = new S3Client({ ...client0(), accessKeyId: 'NOBODY' });
    expect((await caught(S3Upload.create(unknown, url, { force: true }))).reason).toBe('credentials');
  });

  it('a missing bucket', async () => {
    const url = 's3://no-such-bucket/i.bin';
    const error = await caught(S3Upload.create(client, url));
    expect(error.reason).toBe('missing');
    expect(error.message).toMatch(/bucket "no-such-bucket" does not exist/);
    expectOneLine(error, url);
  });

  it('a refused PutObject, leaving nothing', async () => {
    await s3.configure({ refuse: [`${BUCKET}/refused/`] });
    for (const size of [10, 7 * MiB]) {
      const url = `s3://${BUCKET}/refused/${size}.bin`;
      const upload = await S3Upload.create(client, url, { partSize: MIN_PART_SIZE });
      const error = await caught(
        (async () => {
          await upload.write(payload(size, 14));
          await upload.write(payload(10, 15));
          await upload.commit();
        })(),
      );
      expect(error.reason).toBe('denied');
      expect(error.status).toBe(403);
      expectOneLine(error, url);
      expect(await getObject(s3, url)).toBeUndefined();
    }
    expect(await unfinished('refused/')).toEqual([]);
  });
});
