import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '@binscope/testkit';
import { AwsClient } from 'aws4fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, STACK_LINE } from './helpers.js';
import { createBucket, type LocalS3, S3_KEYS, startLocalS3, upload } from './s3-helpers.js';
import { VECTORS, VECTORS_PRESENT, validVectors } from './vectors.js';

const scratch = tempDir('binscope-cli-s3-');
let s3: LocalS3;
let env: NodeJS.ProcessEnv;
const BUCKET = 'data';

/** A local run and an s3:// run of one verb must print the same, but for the name. */
function same(verb: string[], local: string, remote: string): void {
  const a = cli([...verb, local], { env });
  const b = cli([...verb, remote], { env });
  expect(b.stderr).not.toMatch(STACK_LINE);
  expect(b.code, `${verb.join(' ')} ${remote}: ${b.stderr}`).toBe(a.code);
  // inspect's tree starts with the input's base name; a URL shows whole.
  const localOut = a.stdout.replace(
    new RegExp(`^${path.basename(local).replace(/\./g, '\\.')}(?= )`, 'gm'),
    local,
  );
  expect(normalize(b.stdout, [remote])).toBe(normalize(localOut, [local]));
}

/** Names differ (a URL, a path, a base name) and so do the column widths they set. */
function normalize(text: string, names: string[]): string {
  let out = text;
  for (const name of names) out = out.split(name).join('<input>');
  return out.replace(/<input>\/?/g, '<input>').replace(/ {2,}/g, '  ');
}

function s3Url(local: string): string {
  return `s3://${BUCKET}/vectors/${path.relative(VECTORS, local).split(path.sep).join('/')}`;
}

beforeAll(async () => {
  s3 = await startLocalS3();
  env = {
    ...S3_KEYS,
    AWS_ENDPOINT_URL: s3.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_SHARED_CREDENTIALS_FILE: path.join(scratch.dir, 'none'),
    AWS_CONFIG_FILE: path.join(scratch.dir, 'none'),
  };
  await createBucket(s3, BUCKET);
  if (VECTORS_PRESENT) await upload(s3, BUCKET, 'vectors', VECTORS);
  // A generated file, written by our own writer, beside the vectors.
  const csv = path.join(scratch.dir, 'gen.csv');
  fs.writeFileSync(csv, `id,name\n${Array.from({ length: 500 }, (_, i) => `${i},n${i}`).join('\n')}\n`);
  const made = cli(['convert', csv, path.join(scratch.dir, 'gen.scbf')]);
  expect(made.code, made.stderr).toBe(0);
  await upload(s3, BUCKET, 'generated/gen.scbf', path.join(scratch.dir, 'gen.scbf'));
  await upload(s3, BUCKET, 'generated/gen.csv', csv);
}, 60_000);

afterAll(async () => {
  await s3?.stop();
  scratch.remove();
});

describe.skipIf(!VECTORS_PRESENT)('every read verb by s3:// URL on the vectors', () => {
  for (const format of ['mldf', 'scbf', 'udf', 'taridx', 'scdl']) {
    for (const v of validVectors(format)) {
      it(`${format}/${v.name}: detect, info, inspect, validate, head print as for the local path`, () => {
        const remote = s3Url(v.target) + (format === 'scdl' ? '/' : '');
        same(['detect'], v.target, remote);
        same(['info', '--json'], v.target, remote);
        same(['inspect', '--depth', '2'], v.target, remote);
        same(['validate', '--json'], v.target, remote);
        same(['head', '-n', '3'], v.target, remote);
      });
    }
  }

  it('reads an SCDL archive named as a prefix without the trailing slash', () => {
    const v = validVectors('scdl')[0];
    same(['info'], v.target, s3Url(v.target));
  });

  it('cat and diff compare a remote file with a local one', () => {
    const v = validVectors('scbf')[0];
    same(['cat'], v.target, s3Url(v.target));
    const diff = cli(['diff', s3Url(v.target), v.target], { env });
    expect(diff.code, diff.stderr).toBe(0);
  });

  it('get finds shards beside an s3:// index by listing its prefix', () => {
    const v = validVectors('taridx')[0];
    const key = (JSON.parse(cli(['head', '-n', '1', v.target]).stdout) as { key: string }).key;
    const local = cli(['get', v.target, key, '--json'], { env });
    const remote = cli(['get', s3Url(v.target), key, '--json'], { env });
    expect(remote.code, remote.stderr).toBe(0);
    expect({ ...JSON.parse(remote.stdout), index: '' }).toEqual({ ...JSON.parse(local.stdout), index: '' });
    const ext = (JSON.parse(local.stdout) as { members: Array<{ ext: string }> }).members[0].ext;
    const bytes = cli(['get', s3Url(v.target), key, '--ext', ext, '-o', '-'], { env });
    expect(bytes.code, bytes.stderr).toBe(0);
    expect(bytes.stdoutBytes.equals(cli(['get', v.target, key, '--ext', ext]).stdoutBytes)).toBe(true);
  });

  it('index reads the shards under an s3:// prefix, byte-identical to the local index', () => {
    const v =
      validVectors('taridx').find((c) => path.basename(c.target) === 'train.taridx') ??
      validVectors('taridx')[0];
    const fold = path.basename(v.target, '.taridx');
    const out = path.join(scratch.dir, `${fold}-from-s3.taridx`);
    const run = cli(['index', `${path.dirname(s3Url(v.target))}/`, '--fold', fold, '-o', out], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(out).equals(fs.readFileSync(v.target))).toBe(true);
    // As for a local folder, an existing index is replaced only with --force.
    const again = cli(['index', `${path.dirname(s3Url(v.target))}/`, '--fold', fold, '-o', out], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists; pass --force/);
    const forced = cli(['index', `${path.dirname(s3Url(v.target))}/`, '--fold', fold, '-o', out, '--force'], {
      env,
    });
    expect(forced.code, forced.stderr).toBe(0);
  });
});

describe('generated files and conversions by URL', () => {
  it('convert reads CSV and SCBF from s3:// and writes what the local conversion writes', () => {
    const fromS3 = path.join(scratch.dir, 'from-s3.scbf');
    expect(cli(['convert', `s3://${BUCKET}/generated/gen.csv`, fromS3], { env }).code).toBe(0);
    expect(fs.readFileSync(fromS3).equals(fs.readFileSync(path.join(scratch.dir, 'gen.scbf')))).toBe(true);
    const back = cli(['convert', `s3://${BUCKET}/generated/gen.scbf`, '-'], { env });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toBe(fs.readFileSync(path.join(scratch.dir, 'gen.csv'), 'utf8'));
  });

  it('a presigned URL reads as plain HTTP, without credentials', async () => {
    const signer = new AwsClient({
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      service: 's3',
      region: 'us-east-1',
    });
    const signed = await signer.sign(`${s3.endpoint}/${BUCKET}/generated/gen.scbf?X-Amz-Expires=600`, {
      aws: { signQuery: true },
    });
    const run = cli(['info', '--json', signed.url], {
      env: { AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ format: 'scbf' });
  });

  it.skipIf(!VECTORS_PRESENT)(
    'every read verb by plain https-style URL (the bucket served anonymously)',
    () => {
      const httpUrl = (local: string) =>
        `${s3.endpoint}/${BUCKET}/vectors/${path.relative(VECTORS, local).split(path.sep).join('/')}`;
      for (const format of ['mldf', 'scbf', 'udf']) {
        const v = validVectors(format)[0];
        for (const verb of [
          ['detect'],
          ['info', '--json'],
          ['inspect', '--depth', '2'],
          ['validate', '--json'],
        ])
          same(verb, v.target, httpUrl(v.target));
        same(['head', '-n', '3'], v.target, httpUrl(v.target));
      }
      const scbf = validVectors('scbf')[0];
      same(['cat'], scbf.target, httpUrl(scbf.target));
      const diff = cli(['diff', httpUrl(scbf.target), scbf.target], { env });
      expect(diff.code, diff.stderr).toBe(0);
      // A TARIDX index over HTTP: S3 serves no folder page, so its shards are named with --shards.
      const taridx = validVectors('taridx')[0];
      same(['detect'], taridx.target, httpUrl(taridx.target));
      const key = (JSON.parse(cli(['head', '-n', '1', taridx.target]).stdout) as { key: string }).key;
      const shards = `${path.dirname(s3Url(taridx.target))}/`;
      const remote = cli(['get', httpUrl(taridx.target), key, '--shards', shards, '--json'], { env });
      expect(remote.code, remote.stderr).toBe(0);
      const local = cli(['get', taridx.target, key, '--json'], { env });
      expect({ ...JSON.parse(remote.stdout), index: '' }).toEqual({ ...JSON.parse(local.stdout), index: '' });
    },
  );

  it.skipIf(!VECTORS_PRESENT)('an SCDL archive reads from an HTTP base URL by its fixed file names', () => {
    const v = validVectors('scdl')[0];
    const base = `${s3.endpoint}/${BUCKET}/vectors/${path.relative(VECTORS, v.target).split(path.sep).join('/')}/`;
    same(['info', '--json'], v.target, base);
    same(['head', '-n', '3'], v.target, base);
  });
});

describe('failures name the URL in one typed line', () => {
  const cases: Array<[string, string, NodeJS.ProcessEnv, RegExp]> = [
    ['a missing key', `s3://${BUCKET}/generated/nope.scbf`, {}, /NoSuchKey/],
    ['a missing bucket', 's3://no-such-bucket/x.scbf', {}, /NoSuchBucket/],
    [
      'wrong credentials',
      `s3://${BUCKET}/generated/gen.scbf`,
      { AWS_ACCESS_KEY_ID: 'WRONG' },
      /InvalidAccessKeyId/,
    ],
  ];
  for (const [what, url, extra, code] of cases) {
    it(what, () => {
      const run = cli(['info', url], { env: { ...env, ...extra } });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(url);
      expect(lines[0]).toMatch(code);
    });
  }

  it('a denied request (an expired presigned URL)', async () => {
    const signer = new AwsClient({
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      service: 's3',
      region: 'us-east-1',
    });
    const signed = await signer.sign(`${s3.endpoint}/${BUCKET}/generated/gen.scbf?X-Amz-Expires=1`, {
      aws: { signQuery: true, datetime: '20200101T000000Z' },
    });
    const run = cli(['info', signed.url], { env });
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(signed.url);
    expect(lines[0]).toMatch(/403/);
  });

  it('a random-access verb given standard input says it needs random access', () => {
    const run = cli(['info', '-'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/random access/);
  });
});
