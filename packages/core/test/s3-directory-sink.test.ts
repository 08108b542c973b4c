import { createBucket, getObject, type LocalS3, startLocalS3 } from '../../../tests/testkit/src/s3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  isSourceError,
  listMultipartUploads,
  S3Client,
  S3DirectorySink,
  type SourceError,
} from '../src/index.js';

const MiB = 1024 * 1024;
const BUCKET = 'archives';
let s3: LocalS3;
let client: S3Client;
const enc = new TextEncoder();

beforeAll(async () => {
  s3 = await startLocalS3();
  client = new S3Client({
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    endpoint: s3.endpoint,
    forcePathStyle: true,
  });
  await createBucket(s3, BUCKET);
}, 30_000);

afterAll(async () => {
  await s3?.stop();
});

beforeEach(async () => {
  await s3.reset();
});

async function keys(prefix: string): Promise<string[]> {
  return (await client.list(BUCKET, prefix)).map((o) => o.key.slice(prefix.length)).sort();
}

async function text(url: string): Promise<string | undefined> {
  const bytes = await getObject(s3, url);
  return bytes && new TextDecoder().decode(bytes);
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

/** Writes an archive the way SCDL's writer does: header.sch first, arrays after. */
async function writeArchive(
  sink: S3DirectorySink,
  tag: string,
  names = ['data.npy', 'obs/labels.json'],
): Promise<void> {
  await sink.write('header.sch', enc.encode(`SCDL ${tag}`));
  for (const name of names) {
    await sink.write(name, async (out) => {
      await out.write(enc.encode(`${name} `));
      await out.write(enc.encode(tag));
    });
  }
}

describe('S3DirectorySink', () => {
  it('writes every file as an object and the marker last, so the prefix is complete only at the end', async () => {
    const url = `s3://${BUCKET}/a/`;
    const sink = await S3DirectorySink.create(client, url, { marker: 'header.sch' });
    await writeArchive(sink, 'one');
    // Everything but the marker is there: a reader sees an incomplete archive.
    expect(await keys('a/')).toEqual(['data.npy', 'obs/labels.json']);
    await sink.commit();
    expect(await keys('a/')).toEqual(['data.npy', 'header.sch', 'obs/labels.json']);
    expect(await text(`${url}header.sch`)).toBe('SCDL one');
    expect(await text(`${url}obs/labels.json`)).toBe('obs/labels.json one');
    const puts = (await s3.log()).filter((r) => r.method === 'PUT').map((r) => r.path);
    expect(puts.at(-1)).toBe('/archives/a/header.sch');
  });

  it('writes many files under one signal without piling listeners on it', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const sink = await S3DirectorySink.create(client, `s3://${BUCKET}/many/`, {
        marker: 'header.sch',
        signal: controller.signal,
      });
      for (let i = 0; i < 25; i++) await sink.write(`f${i}.npy`, enc.encode(String(i)));
      await sink.write('header.sch', enc.encode('SCDL'));
      await sink.commit();
      await new Promise((resolve) => setImmediate(resolve));
      expect((await keys('many/')).length).toBe(26);
      expect(warnings.map((w) => w.name)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('streams a large file in parts without holding it', async () => {
    const url = `s3://${BUCKET}/big/`;
    const sink = await S3DirectorySink.create(client, url, {
      marker: 'header.sch',
      upload: { partSize: 5 * MiB },
    });
    await sink.write('header.sch', enc.encode('SCDL'));
    await sink.write('data.npy', async (out) => {
      for (let i = 0; i < 12; i++) await out.write(new Uint8Array(MiB).fill(i));
    });
    await sink.commit();
    const data = (await getObject(s3, `${url}data.npy`))!;
    expect(data.byteLength).toBe(12 * MiB);
    expect([data[0], data[5 * MiB], data[12 * MiB - 1]]).toEqual([0, 5, 11]);
    expect((await s3.log()).filter((r) => r.query.includes('partNumber'))).toHaveLength(3);
  });

  it('abort() deletes what it wrote and leaves no unfinished upload', async () => {
    const url = `s3://${BUCKET}/b/`;
    const sink = await S3DirectorySink.create(client, url, {
      marker: 'header.sch',
      upload: { partSize: 5 * MiB },
    });
    await writeArchive(sink, 'one');
    let abortDuring: Promise<void> | undefined;
    const failed = await caught(
      sink.write('late.npy', async (out) => {
        await out.write(new Uint8Array(6 * MiB));
        abortDuring = sink.abort();
        await out.write(new Uint8Array(6 * MiB));
      }),
    );
    expect(failed.reason).toBe('aborted');
    await abortDuring;
    expect(await keys('b/')).toEqual([]);
    expect((await listMultipartUploads(client, BUCKET, 'b/')) ?? []).toEqual([]);
    expect((await caught(sink.write('x', new Uint8Array(1)))).reason).toBe('aborted');
  });

  it('a failed file aborts the whole archive', async () => {
    const url = `s3://${BUCKET}/c/`;
    const sink = await S3DirectorySink.create(client, url, { marker: 'header.sch' });
    await writeArchive(sink, 'one');
    const error = new Error('converter failed');
    await expect(
      sink.write('more.npy', async (out) => {
        await out.write(enc.encode('partial'));
        throw error;
      }),
    ).rejects.toBe(error);
    expect(await keys('c/')).toEqual([]);
  });

  it('refuses a prefix with objects without force, changing nothing', async () => {
    const url = `s3://${BUCKET}/d/`;
    const first = await S3DirectorySink.create(client, url, { marker: 'header.sch' });
    await writeArchive(first, 'one');
    await first.commit();
    const error = await caught(S3DirectorySink.create(client, url, { marker: 'header.sch' }));
    expect(error.reason).toBe('exists');
    expect(error.message).toContain(url);
    expect(error.message).not.toContain('\n');
    expect(await keys('d/')).toEqual(['data.npy', 'header.sch', 'obs/labels.json']);
  });

  it('replaces an archive with force: old marker first, leftovers deleted, new marker last', async () => {
    const url = `s3://${BUCKET}/e/`;
    const first = await S3DirectorySink.create(client, url, { marker: 'header.sch' });
    await writeArchive(first, 'one', ['data.npy', 'old-only.npy']);
    await first.commit();
    await s3.reset();
    const second = await S3DirectorySink.create(client, url, { marker: 'header.sch', force: true });
    await writeArchive(second, 'two', ['data.npy', 'new-only.npy']);
    expect(await keys('e/')).toEqual(['data.npy', 'new-only.npy', 'old-only.npy']);
    await second.commit();
    expect(await keys('e/')).toEqual(['data.npy', 'header.sch', 'new-only.npy']);
    expect(await text(`${url}header.sch`)).toBe('SCDL two');
    const changes = (await s3.log())
      .filter((r) => r.method === 'PUT' || r.method === 'DELETE')
      .map((r) => `${r.method} ${r.path}`);
    expect(changes[0]).toBe('DELETE /archives/e/header.sch');
    expect(changes.at(-1)).toBe('PUT /archives/e/header.sch');
  });

  it('an aborted replacement leaves the prefix empty, not a mix; one aborted before writing leaves the old archive', async () => {
    const url = `s3://${BUCKET}/f/`;
    const first = await S3DirectorySink.create(client, url, { marker: 'header.sch' });
    await writeArchive(first, 'one', ['data.npy', 'old-only.npy']);
    await first.commit();
    const early = await S3DirectorySink.create(client, url, { marker: 'header.sch', force: true });
    await early.write('header.sch', enc.encode('SCDL two'));
    await early.abort();
    expect(await keys('f/')).toEqual(['data.npy', 'header.sch', 'old-only.npy']);
    expect(await text(`${url}header.sch`)).toBe('SCDL one');
    const late = await S3DirectorySink.create(client, url, { marker: 'header.sch', force: true });
    await late.write('data.npy', enc.encode('two'));
    await late.abort();
    expect(await keys('f/')).toEqual([]);
  });

  it('an archive whose marker was never written is not committed', async () => {
    const url = `s3://${BUCKET}/g/`;
    const sink = await S3DirectorySink.create(client, url, { marker: 'header.sch' });
    await sink.write('data.npy', enc.encode('x'));
    const error = await caught(sink.commit());
    expect(error.message).toMatch(/header\.sch was never written/);
    expect(await keys('g/')).toEqual([]);
  });

  it('refuses paths that leave the prefix', async () => {
    const sink = await S3DirectorySink.create(client, `s3://${BUCKET}/h/`, { marker: 'header.sch' });
    for (const bad of ['../x', '/x', 'a//b', ''])
      await expect(sink.write(bad, new Uint8Array(1))).rejects.toThrow(/not a relative path/);
    await sink.abort();
  });

  it('says which: wrong credentials, a missing bucket', async () => {
    const wrong = new S3Client({
      accessKeyId: 'S3RVER',
      secretAccessKey: 'nope',
      endpoint: s3.endpoint,
      forcePathStyle: true,
    });
    const url = `s3://${BUCKET}/i/`;
    expect((await caught(S3DirectorySink.create(wrong, url, { marker: 'header.sch' }))).reason).toBe(
      'credentials',
    );
    const missing = await caught(
      S3DirectorySink.create(client, 's3://nothing-here/i/', { marker: 'header.sch' }),
    );
    expect(missing.reason).toBe('missing');
    expect(missing.message).toContain('s3://nothing-here/i/');
  });
});
