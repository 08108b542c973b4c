import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeWith, tempDir, VECTORS, vectorsFolder } from '@binscope/testkit';
import { createBucket, getObject, type LocalS3, startLocalS3 } from '@binscope/testkit/s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliAsync } from './helpers.js';

// Issue #33 with the real formats' writers (s3-writers.test.ts drives the generic verbs with a
// toy plugin): what each writes to s3:// is byte for byte what it writes to a local path.

const BUCKET = 'formats';
const scratch = tempDir('binscope-cli-s3-formats-');
const shards = path.join(VECTORS, 'taridx/ustar_flat_2shards');
const h5ad = path.join(VECTORS, 'scdl/basic_float32_raw/source/input.h5ad');
let s3: LocalS3;
let env: NodeJS.ProcessEnv;
const at = (name: string) => path.join(scratch.dir, name);
const url = (key: string) => `s3://${BUCKET}/${key}`;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const run = (args: string[]) => cliAsync(args, { env, killAfterMs: 120_000 });

async function objectHash(key: string): Promise<string | undefined> {
  const bytes = await getObject(s3, url(key));
  return bytes && sha256(bytes);
}

async function ok(args: string[]): Promise<string> {
  const r = await run(args);
  expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/** Every file below `dir`, as paths relative to it with '/' separators. */
function filesBelow(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = `${prefix}${entry.name}`;
    if (entry.isDirectory()) out.push(...filesBelow(path.join(dir, entry.name), `${rel}/`));
    else out.push(rel);
  }
  return out;
}

describeWith(vectorsFolder(VECTORS), 'the format writers to s3://', () => {
  beforeAll(async () => {
    s3 = await startLocalS3();
    env = { ...s3.env(scratch.dir), BINSCOPE_STATE_DIR: at('state') };
    await createBucket(s3, BUCKET);
  }, 60_000);

  afterAll(async () => {
    await s3?.stop();
    scratch.remove();
  });

  it('index -o and get -o write what they write locally', async () => {
    await ok(['index', shards, '--fold', 'train', '-o', url('i/train.taridx')]);
    await ok(['index', shards, '--fold', 'train', '-o', at('train.taridx')]);
    expect(await objectHash('i/train.taridx')).toBe(sha256(fs.readFileSync(at('train.taridx'))));
    const index = path.join(shards, 'train.taridx');
    await ok(['get', index, '000000', '--ext', 'json', '-o', url('i/000000.json')]);
    await ok(['get', index, '000000', '--ext', 'json', '-o', at('000000.json')]);
    expect(await objectHash('i/000000.json')).toBe(sha256(fs.readFileSync(at('000000.json'))));
  });

  it('TARIDX → MLDF writes the local conversion byte for byte, and it reads back from the store', async () => {
    const index = path.join(shards, 'train.taridx');
    await ok(['convert', index, url('m/train.mldf'), '--keep-encoded']);
    await ok(['convert', index, at('train.mldf'), '--keep-encoded']);
    expect(await objectHash('m/train.mldf')).toBe(sha256(fs.readFileSync(at('train.mldf'))));
    expect(await ok(['validate', url('m/train.mldf')])).toMatch(/valid \(mldf\)/);
  });

  it('.h5ad → SCDL under a prefix holds the local archive file for file', async () => {
    await ok(['convert', h5ad, url('s/pbmc/')]);
    await ok(['convert', h5ad, at('pbmc')]);
    const files = filesBelow(at('pbmc'));
    expect(files).toContain('header.sch');
    for (const file of files)
      expect(await objectHash(`s/pbmc/${file}`), file).toBe(sha256(fs.readFileSync(at(`pbmc/${file}`))));
    expect(await ok(['validate', url('s/pbmc/')])).toMatch(/valid \(scdl\)/);
  });

  it('demo writes a sample of every format to the store, each detected as its format', async () => {
    const made = JSON.parse(await ok(['demo', url('demo/'), '--json'])) as {
      files: Array<{ path: string; format: string }>;
    };
    expect(made.files.map((f) => f.format)).toEqual(
      expect.arrayContaining(['scbf', 'udf', 'mldf', 'taridx', 'scdl']),
    );
    for (const file of made.files) {
      const [detected] = JSON.parse(await ok(['detect', '--json', file.path])) as Array<{ format: string }>;
      expect(detected.format, file.path).toBe(file.format);
    }
  });
});
