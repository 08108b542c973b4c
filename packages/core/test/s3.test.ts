import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBinscopeError } from '../src/index.js';
import { parseS3Url, S3Client, S3Directory } from '../src/s3.js';
import { parseAwsIni, resolveS3Settings } from '../src/node/index.js';

const payload = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 13 + (i >> 9)) & 0xff);
let server: S3rver;
let endpoint: string;
let scratch: string;
const keys = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-s3-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: scratch });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ ...keys, endpoint, forcePathStyle: true });
  expect((await client.fetch(`${endpoint}/data`, { method: 'PUT' })).status).toBe(200);
  for (const [key, body] of [
    ['set/a.bin', payload],
    ['set/sub/b.bin', payload.subarray(0, 10)],
    ['other.bin', payload.subarray(0, 5)],
  ] as const) {
    const response = await client.fetch(`s3://data/${key}`, { method: 'PUT', body });
    expect(response.status).toBe(200);
  }
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('S3 sources against a local S3 API', () => {
  it('reads ranges of an object named by its s3:// URL, signed', async () => {
    const client = new S3Client({ ...keys, endpoint, forcePathStyle: true });
    const source = await client.open('s3://data/set/a.bin');
    expect(source.size).toBe(payload.byteLength);
    expect(source.name).toBe('s3://data/set/a.bin');
    expect(Array.from(await source.read(150_000, 1000))).toEqual(
      Array.from(payload.subarray(150_000, 151_000)),
    );
    expect(client.requests).toBe(2);
  });

  it('lists a prefix as a folder, paging with continuation tokens', async () => {
    const client = new S3Client({ ...keys, endpoint, forcePathStyle: true });
    const listed = await client.list('data', 'set/', 1_000);
    expect(listed.map((o) => o.key).sort()).toEqual(['set/a.bin', 'set/sub/b.bin']);
    const directory = new S3Directory(client, 's3://data/set');
    expect(await directory.list()).toEqual(['a.bin', 'sub/b.bin']);
    expect(await directory.has('sub/b.bin')).toBe(true);
    expect(await directory.has('other.bin')).toBe(false);
    expect(Array.from(await (await directory.open('sub/b.bin')).read(0, 10))).toEqual(
      Array.from(payload.subarray(0, 10)),
    );
  });

  it('stops a listing that grows past its bound', async () => {
    const client = new S3Client({ ...keys, endpoint, forcePathStyle: true });
    const error = await client.list('data', '', 2).catch((e) => e);
    expect(isBinscopeError(error, 'SourceError')).toBe(true);
  });

  it.each([
    ['a missing key', 's3://data/set/nope.bin', {}, /NoSuchKey/],
    ['a missing bucket', 's3://nobucket/a.bin', {}, /NoSuchBucket/],
    ['wrong credentials', 's3://data/set/a.bin', { accessKeyId: 'WRONG' }, /InvalidAccessKeyId/],
  ])('names the URL and the S3 error for %s', async (_, url, override, code) => {
    const client = new S3Client({ ...keys, ...override, endpoint, forcePathStyle: true });
    const error = await client.open(url).catch((e) => e);
    expect(isBinscopeError(error, 'SourceError')).toBe(true);
    expect(error.message).toContain(url);
    expect(error.message).toMatch(code);
    expect(error.message).not.toContain('\n');
  });
});

describe('S3 settings', () => {
  it('parses s3:// URLs', () => {
    expect(parseS3Url('s3://b/x/y.bin')).toEqual({ bucket: 'b', key: 'x/y.bin' });
    expect(parseS3Url('s3://b')).toEqual({ bucket: 'b', key: '' });
    expect(
      isBinscopeError(
        (() => {
          try {
            parseS3Url('s3:///k');
          } catch (e) {
            return e;
          }
        })(),
        'SourceError',
      ),
    ).toBe(true);
  });

  it('addresses buckets path-style or virtual-host style', () => {
    const pathStyle = new S3Client({ endpoint: 'http://127.0.0.1:9000', forcePathStyle: true });
    expect(pathStyle.httpUrl({ bucket: 'b', key: 'a b/c.bin' })).toBe('http://127.0.0.1:9000/b/a%20b/c.bin');
    const virtual = new S3Client({ region: 'eu-west-1' });
    expect(virtual.httpUrl({ bucket: 'b', key: 'k' })).toBe('https://b.s3.eu-west-1.amazonaws.com/k');
  });

  it('takes keys from the environment before the profile, and the profile from AWS_PROFILE', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-aws-'));
    fs.mkdirSync(path.join(home, '.aws'));
    fs.writeFileSync(
      path.join(home, '.aws', 'credentials'),
      '[default]\naws_access_key_id = D\naws_secret_access_key = DS\n[work]\naws_access_key_id = W\naws_secret_access_key = WS\naws_session_token = WT\n',
    );
    fs.writeFileSync(
      path.join(home, '.aws', 'config'),
      '[profile work]\nregion = eu-central-1\ns3 =\n  addressing_style = path\n',
    );
    try {
      expect(resolveS3Settings({}, home)).toMatchObject({
        accessKeyId: 'D',
        region: 'us-east-1',
        forcePathStyle: false,
      });
      expect(resolveS3Settings({ AWS_PROFILE: 'work' }, home)).toMatchObject({
        accessKeyId: 'W',
        sessionToken: 'WT',
        region: 'eu-central-1',
        forcePathStyle: true,
      });
      expect(
        resolveS3Settings(
          { AWS_PROFILE: 'work', AWS_ACCESS_KEY_ID: 'E', AWS_SECRET_ACCESS_KEY: 'ES', AWS_REGION: 'x' },
          home,
        ),
      ).toMatchObject({ accessKeyId: 'E', secretAccessKey: 'ES', region: 'x' });
      expect(resolveS3Settings({ AWS_ENDPOINT_URL: 'http://h:1' }, home)).toMatchObject({
        endpoint: 'http://h:1',
        forcePathStyle: true,
      });
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('reads nested blocks of the shared files', () => {
    expect(parseAwsIni('[p]\na = 1\ns3 =\n  x = y\n# c\nb=2')).toEqual({
      p: { a: '1', s3: '', 's3.x': 'y', b: '2' },
    });
  });
});
