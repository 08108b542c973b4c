import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listMultipartUploads } from '@binscope/core/s3';
import { tempDir } from '@binscope/testkit';
import { createBucket, getObject, type LocalS3, startLocalS3 } from '@binscope/testkit/s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toyBytes } from './fixtures/toy-format/index.mjs';
import { BIN, cli, cliAsync, REPO, STACK_LINE } from './helpers.js';

// Issue #33: every writer of the CLI writes to s3://, atomically (the object appears only
// complete; failures, Ctrl-C and SIGTERM abort the upload), never onto an input, replacing an
// object only with --force. The toy format (a test plugin) drives the generic verbs.

const TOY = path.join(__dirname, 'fixtures/toy-format/index.mjs');
const BUCKET = 'out';
const scratch = tempDir('binscope-cli-s3-writers-');
let s3: LocalS3;
let env: NodeJS.ProcessEnv;
const at = (name: string) => path.join(scratch.dir, name);
const url = (key: string) => `s3://${BUCKET}/${key}`;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const run = (args: string[]) => cliAsync(args, { env, killAfterMs: 120_000 });
const toy = (args: string[]) => run([...args, '--plugin', TOY]);

async function unfinished(prefix: string): Promise<string[]> {
  return ((await listMultipartUploads(s3.client, BUCKET, prefix)) ?? []).map((u) => u.key);
}

/** A CSV of `rows` rows whose SCBF is not tiny. */
function csvText(rows: number): string {
  let text = 'id,name,score\n';
  for (let i = 0; i < rows; i++) text += `${i},name ${i % 97},${(i * 0.37).toFixed(2)}\n`;
  return text;
}

beforeAll(async () => {
  s3 = await startLocalS3();
  env = { ...s3.env(scratch.dir), BINSCOPE_STATE_DIR: at('state') };
  await createBucket(s3, BUCKET);
  fs.writeFileSync(at('table.csv'), csvText(20_000));
  const local = cli(['convert', at('table.csv'), at('table.scbf')]);
  expect(local.code, local.stderr).toBe(0);
  const enc = new TextEncoder();
  fs.writeFileSync(
    at('a.toy'),
    toyBytes([
      { id: 1, name: 'alpha', score: 1, blob: enc.encode('first blob') },
      { id: 2, name: 'beta', score: 2 },
    ]),
  );
}, 60_000);

afterAll(async () => {
  await s3?.stop();
  scratch.remove();
});

beforeEach(async () => {
  await s3.reset();
});

describe('every writer to s3://', () => {
  it('convert CSV → SCBF and back, local to store, store to store, store to stdout', async () => {
    const up = await run(['convert', at('table.csv'), url('t/table.scbf')]);
    expect(up.code, up.stderr).toBe(0);
    expect(sha256((await getObject(s3, url('t/table.scbf')))!)).toBe(
      sha256(fs.readFileSync(at('table.scbf'))),
    );
    await s3.client.fetch(url('t/in.csv'), { method: 'PUT', body: fs.readFileSync(at('table.csv')) });
    const across = await run(['convert', url('t/in.csv'), url('t/across.scbf'), '--json']);
    expect(across.code, across.stderr).toBe(0);
    expect(JSON.parse(across.stdout)).toMatchObject({ output: url('t/across.scbf'), conversion: 'csv→scbf' });
    expect(sha256((await getObject(s3, url('t/across.scbf')))!)).toBe(
      sha256(fs.readFileSync(at('table.scbf'))),
    );
    const back = await run(['convert', url('t/across.scbf'), url('t/back.csv')]);
    expect(back.code, back.stderr).toBe(0);
    expect(new TextDecoder().decode(await getObject(s3, url('t/back.csv')))).toBe(csvText(20_000));
    expect(await unfinished('t/')).toEqual([]);
  });

  it('replaces an object only with --force, and never writes onto an input', async () => {
    await s3.client.fetch(url('f/x.scbf'), { method: 'PUT', body: 'precious' });
    const refused = await run(['convert', at('table.csv'), url('f/x.scbf')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(`binscope: ${url('f/x.scbf')} exists; pass --force to replace it`);
    expect(new TextDecoder().decode(await getObject(s3, url('f/x.scbf')))).toBe('precious');
    const forced = await run(['convert', at('table.csv'), url('f/x.scbf'), '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    const onInput = await run(['convert', url('f/x.scbf'), url('f/x.scbf'), '--to', 'csv', '--force']);
    expect(onInput.code).toBe(2);
    expect(onInput.stderr).toMatch(/refusing to write s3:\/\/out\/f\/x\.scbf: it is the input/);
  });

  it('get -o, a converter verb -o, a folder output under a prefix, and demo', async () => {
    const value = await toy(['get', at('a.toy'), 'alpha', '--field', 'blob', '-o', url('g/blob.bin')]);
    expect(value.code, value.stderr).toBe(0);
    expect(new TextDecoder().decode(await getObject(s3, url('g/blob.bin')))).toBe('first blob');
    fs.copyFileSync(at('a.toy'), at('a2.toy'));
    const joined = await toy(['concat', at('a.toy'), at('a2.toy'), '-o', url('g/joined.toy')]);
    expect(joined.code, joined.stderr).toBe(0);
    expect((await toy(['info', '--json', url('g/joined.toy')])).stdout).toContain('"records": 4');
    const folder = await toy(['convert', at('a.toy'), url('g/folder/')]);
    expect(folder.code, folder.stderr).toBe(0);
    expect(new TextDecoder().decode(await getObject(s3, url('g/folder/done.json')))).toBe('{"records":2}');
    expect(await getObject(s3, url('g/folder/records/1.txt'))).toBeDefined();
    const demo = await toy(['demo', url('demo/'), '--json']);
    expect(demo.code, demo.stderr).toBe(0);
    const files = JSON.parse(demo.stdout).files as Array<{ path: string; format: string }>;
    expect(files).toContainEqual(expect.objectContaining({ path: url('demo/sample.toy'), format: 'toy' }));
    const manifest = JSON.parse(
      new TextDecoder().decode(await getObject(s3, url('demo/binscope-demo.json'))),
    );
    expect(manifest.files).toContain(url('demo/sample.toy'));
  });

  it('a folder output needs a marker to go to object storage: the marker is written last', async () => {
    await s3.configure({ refuse: [`${BUCKET}/m/folder/records/1.txt`] });
    const r = await toy(['convert', at('a.toy'), url('m/folder/')]);
    expect(r.code).toBe(2);
    // What was written is deleted, the marker never appeared: the prefix is empty, not partial.
    expect(await getObject(s3, url('m/folder/done.json'))).toBeUndefined();
    expect(await getObject(s3, url('m/folder/records/0.txt'))).toBeUndefined();
  });
});

describe('failures are one typed line naming the URL, and leave nothing', () => {
  const cases: Array<[string, () => NodeJS.ProcessEnv, string, RegExp]> = [
    [
      'wrong credentials',
      () => ({ ...env, AWS_ACCESS_KEY_ID: 'WRONG' }),
      url('e/creds.scbf'),
      /InvalidAccessKeyId/,
    ],
    ['a missing bucket', () => env, 's3://no-such-bucket/x.scbf', /NoSuchBucket/],
    ['a refused PUT', () => env, url('denied/x.scbf'), /AccessDenied|403/],
  ];
  for (const [what, environment, target, code] of cases) {
    it(what, async () => {
      await s3.configure({ refuse: [`${BUCKET}/denied/`] });
      const r = await cliAsync(['convert', at('table.csv'), target], {
        env: environment(),
        killAfterMs: 60_000,
      });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toMatch(STACK_LINE);
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toContain(target);
      expect(lines[0]).toMatch(code);
      if (target.startsWith(`s3://${BUCKET}/`)) {
        expect(await getObject(s3, target)).toBeUndefined();
        expect(await unfinished(target.slice(`s3://${BUCKET}/`.length))).toEqual([]);
      }
    });
  }
});

/** Seeded, so a failure can be replayed: the kill points of every run. */
function points(count: number, size: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: count }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return 1 + (s % (size - 1));
  });
}

describe('a writer killed at any point', () => {
  it('leaves no object; SIGTERM aborts its upload, and the next write aborts what SIGKILL left', async () => {
    // Two inputs of 6 MiB: the joined output takes more than one 8 MiB part (a multipart upload).
    const blob = new Uint8Array(60_000);
    for (let i = 0; i < blob.length; i++) blob[i] = (i * 7919) & 0xff;
    const records = Array.from({ length: 100 }, (_, i) => ({ id: i, name: `r${i}`, score: i, blob }));
    fs.writeFileSync(at('big-a.toy'), toyBytes(records));
    fs.writeFileSync(at('big-b.toy'), toyBytes(records));
    const size = 2 * fs.statSync(at('big-a.toy')).size - 8;
    const runs = points(20, size, 33);
    const seen = { SIGKILL: 0, SIGTERM: 0, multipart: 0 };
    for (const [i, stopAt] of runs.entries()) {
      const signal = i % 2 === 0 ? 'SIGTERM' : 'SIGKILL';
      const prefix = `kill/${i}/`;
      const child = spawn(
        process.execPath,
        [
          BIN,
          'concat',
          at('big-a.toy'),
          at('big-b.toy'),
          '-o',
          url(`${prefix}out.toy`),
          '--pause-at',
          String(stopAt),
          '--plugin',
          TOY,
        ],
        { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString('utf8');
          if (stderr.includes('waiting')) resolve();
        });
        child.once('exit', (c) => reject(new Error(`exited (${c}) before pausing: ${stderr}`)));
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once('exit', (_c, s) => resolve(s)),
      );
      child.kill(signal);
      expect(await exited).toBe(signal);
      expect(await getObject(s3, url(`${prefix}out.toy`)), `run ${i} at ${stopAt}`).toBeUndefined();
      // The first 8 MiB part went up once the output passed it: a multipart upload was under way.
      const started = stopAt > 8 * 1024 * 1024;
      if (started) seen.multipart++;
      if (signal === 'SIGTERM') expect(await unfinished(prefix)).toEqual([]);
      else {
        // SIGKILL cannot be caught: the upload stays until the next write to the store aborts it (the journal).
        const next = await toy([
          'get',
          at('a.toy'),
          'alpha',
          '--field',
          'blob',
          '-o',
          url(`${prefix}next.bin`),
        ]);
        expect(next.code, next.stderr).toBe(0);
        expect(await unfinished(prefix)).toEqual([]);
      }
      seen[signal]++;
    }
    expect(seen.SIGKILL + seen.SIGTERM).toBeGreaterThanOrEqual(20);
    expect(seen.multipart).toBeGreaterThan(2);
  }, 600_000);
});
