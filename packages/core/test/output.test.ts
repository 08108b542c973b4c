import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { createBucket, getObject, type LocalS3, startLocalS3 } from '../../../tests/testkit/src/s3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isBinscopeError, type SourceError } from '../src/index.js';
import { listMultipartUploads, S3Client, S3Upload } from '../src/s3.js';
import {
  openDirectoryOutput,
  openOutput,
  type OutputOptions,
  runTrackedCleanups,
} from '../src/node/index.js';

const BUCKET = 'outputs';
const enc = new TextEncoder();
let s3: LocalS3;
let client: S3Client;
let dir: string;
let journal: string;

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
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-output-'));
  journal = path.join(dir, '.journal');
  return () => fs.rmSync(dir, { recursive: true, force: true });
});

function options<T extends object = object>(extra?: T & OutputOptions): OutputOptions & T {
  return { s3: client, journal, ...extra } as OutputOptions & T;
}

async function caught(promise: Promise<unknown>): Promise<SourceError> {
  try {
    await promise;
  } catch (error) {
    expect(isBinscopeError(error, 'SourceError'), String(error)).toBe(true);
    return error as SourceError;
  }
  throw new Error('expected a SourceError');
}

async function unfinished(prefix: string): Promise<string[]> {
  return ((await listMultipartUploads(client, BUCKET, prefix)) ?? []).map((u) => u.key);
}

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('openOutput to a local path', () => {
  it('appears whole on commit; abort leaves the previous file', async () => {
    const target = path.join(dir, 'out.bin');
    const out = await openOutput(target, options());
    await out.write(enc.encode('hello '));
    await out.write(enc.encode('world'));
    expect(out.position).toBe(11);
    expect(fs.existsSync(target)).toBe(false);
    await out.commit();
    expect(fs.readFileSync(target, 'utf8')).toBe('hello world');
    const again = await openOutput(target, options({ force: true }));
    await again.write(enc.encode('partial'));
    await again.abort();
    expect(fs.readFileSync(target, 'utf8')).toBe('hello world');
    expect(fs.readdirSync(dir).filter((n) => n !== '.journal')).toEqual(['out.bin']);
  });

  it('refuses an existing file without force, and any of the inputs whatever path names it', async () => {
    const target = path.join(dir, 'in.csv');
    fs.writeFileSync(target, 'a\n');
    const exists = await caught(openOutput(target, options()));
    expect(exists.reason).toBe('exists');
    fs.linkSync(target, path.join(dir, 'hard.csv'));
    fs.symlinkSync(target, path.join(dir, 'soft.csv'));
    for (const input of [target, path.join(dir, 'hard.csv'), path.join(dir, 'soft.csv'), `${dir}/./in.csv`]) {
      const error = await caught(openOutput(target, options({ force: true, inputs: [input] })));
      expect(error.message).toMatch(/refusing to write .*: it is the input/);
    }
    expect(fs.readFileSync(target, 'utf8')).toBe('a\n');
  });

  it('refuses what is not a regular file before asking about --force, and leaves it as it was', async () => {
    const kept = path.join(dir, 'kept.bin');
    fs.writeFileSync(kept, 'kept');
    fs.symlinkSync(kept, path.join(dir, 'link.bin'));
    fs.mkdirSync(path.join(dir, 'folder.bin'));
    for (const [name, what] of [
      ['link.bin', /it is a symbolic link, not a regular file/],
      ['folder.bin', /it is a folder, not a regular file/],
    ] as const) {
      for (const force of [false, true]) {
        const error = await caught(openOutput(path.join(dir, name), options({ force })));
        expect(error.message).toMatch(what);
      }
    }
    const fifo = path.join(dir, 'fifo');
    spawnSync('mkfifo', [fifo]);
    const error = await caught(openDirectoryOutput(fifo, options({ marker: 'm' })));
    expect(error.message).toMatch(/it is a FIFO \(named pipe\), not a regular file/);
    expect(fs.lstatSync(path.join(dir, 'link.bin')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(kept, 'utf8')).toBe('kept');
    expect(fs.readdirSync(path.join(dir, 'folder.bin'))).toEqual([]);
  });

  it('writes `-` to the given stream', async () => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    const out = await openOutput('-', options({ stdout: stream }));
    const bytes = enc.encode('to stdout');
    await out.write(bytes);
    bytes.fill(0);
    await out.commit();
    expect(Buffer.concat(chunks).toString()).toBe('to stdout');
  });
});

describe('openOutput to s3://', () => {
  it('uploads, journaling the multipart upload only while it runs', async () => {
    const url = `s3://${BUCKET}/a/out.bin`;
    const out = await openOutput(url, options({ upload: { partSize: 5 * 1024 * 1024 } }));
    await out.write(new Uint8Array(6 * 1024 * 1024).fill(7));
    expect(fs.readdirSync(journal)).toHaveLength(1);
    await out.write(enc.encode('end'));
    await out.commit();
    expect(fs.readdirSync(journal)).toHaveLength(0);
    const got = (await getObject(s3, url))!;
    expect(got.byteLength).toBe(6 * 1024 * 1024 + 3);
    expect(await unfinished('a/')).toEqual([]);
  });

  it('refuses the s3:// URL of an input, and an existing object without force', async () => {
    const url = `s3://${BUCKET}/b/in.csv`;
    const first = await openOutput(url, options());
    await first.write(enc.encode('x'));
    await first.commit();
    const same = await caught(openOutput(url, options({ force: true, inputs: ['data.csv', url] })));
    expect(same.message).toBe(`refusing to write ${url}: it is the input ${url}; choose another output`);
    expect((await caught(openOutput(url, options()))).reason).toBe('exists');
  });

  it('aborts, at the next write, the uploads of binscope processes on this machine that died', async () => {
    let uploadId = '';
    // The second part's bytes start the multipart upload; the hook tells its id.
    const started = await S3Upload.create(client, `s3://${BUCKET}/c/left.bin`, {
      partSize: 5 * 1024 * 1024,
      onUploadStarted: (id) => {
        uploadId = id;
      },
    });
    await started.write(new Uint8Array(5 * 1024 * 1024 + 1));
    expect(uploadId).not.toBe('');
    fs.mkdirSync(journal, { recursive: true });
    fs.writeFileSync(
      path.join(journal, 'dead.json'),
      JSON.stringify({
        store: s3.endpoint,
        url: `s3://${BUCKET}/c/left.bin`,
        uploadId,
        pid: deadPid(),
        host: os.hostname(),
        started: new Date().toISOString(),
      }),
    );
    expect(await unfinished('c/')).toHaveLength(1);
    const out = await openOutput(`s3://${BUCKET}/c/other.bin`, options());
    expect(await unfinished('c/')).toEqual([]);
    expect(fs.readdirSync(journal)).toEqual([]);
    await out.abort();
    await started.abort();
  });

  it('reports unfinished uploads other writers left at the key, and aborts them when asked', async () => {
    const url = `s3://${BUCKET}/d/out.bin`;
    const foreign = await S3Upload.create(client, url, { partSize: 5 * 1024 * 1024 });
    await foreign.write(new Uint8Array(5 * 1024 * 1024 + 1));
    const warnings: string[] = [];
    const out = await openOutput(url, options({ onWarning: (m) => warnings.push(m) }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/1 unfinished multipart upload from other writers/);
    await out.abort();
    expect(await unfinished('d/')).toEqual(['d/out.bin']);
    const cleaning = await openOutput(url, options({ abortUnfinished: true }));
    expect(await unfinished('d/')).toEqual([]);
    await cleaning.abort();
  });

  it('SIGINT/SIGTERM cleanups abort an open upload', async () => {
    const url = `s3://${BUCKET}/e/out.bin`;
    const out = await openOutput(url, options({ upload: { partSize: 5 * 1024 * 1024 } }));
    await out.write(new Uint8Array(6 * 1024 * 1024));
    expect(await unfinished('e/')).toEqual(['e/out.bin']);
    await runTrackedCleanups();
    expect(await unfinished('e/')).toEqual([]);
    expect(await getObject(s3, url)).toBeUndefined();
    expect((await caught(out.write(new Uint8Array(1)))).reason).toBe('aborted');
  });
});

describe('openDirectoryOutput', () => {
  it('a local folder appears on commit; abort leaves nothing', async () => {
    const target = path.join(dir, 'archive');
    const out = await openDirectoryOutput(target, options({ marker: 'header.sch' }));
    await out.write('header.sch', enc.encode('SCDL'));
    await out.write('obs/labels.json', async (sink) => sink.write(enc.encode('[]')));
    expect(fs.existsSync(target)).toBe(false);
    await out.commit();
    expect(fs.readFileSync(path.join(target, 'obs/labels.json'), 'utf8')).toBe('[]');
    expect((await caught(openDirectoryOutput(target, options({ marker: 'header.sch' })))).reason).toBe(
      'exists',
    );
    const again = await openDirectoryOutput(target, options({ marker: 'header.sch', force: true }));
    await again.write('header.sch', enc.encode('SCDL 2'));
    await again.abort();
    expect(fs.readFileSync(path.join(target, 'header.sch'), 'utf8')).toBe('SCDL');
    expect(fs.readdirSync(dir).sort()).toEqual(['archive']);
  });

  it('a folder named by a relative path takes files inside it', async () => {
    const target = path.relative(process.cwd(), path.join(dir, 'relative-archive'));
    expect(path.isAbsolute(target)).toBe(false);
    const out = await openDirectoryOutput(target, options({ marker: 'header.sch' }));
    await out.write('obs/labels.json', enc.encode('[]'));
    await out.write('header.sch', enc.encode('SCDL'));
    expect((await caught(out.write('../escape', enc.encode('x')))).message).toMatch(/not a path inside it/);
    await out.commit();
    expect(fs.readFileSync(path.join(dir, 'relative-archive', 'obs/labels.json'), 'utf8')).toBe('[]');
  });

  it('refuses a folder that holds an input', async () => {
    const target = path.join(dir, 'shards');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'a.tar'), 'x');
    const error = await caught(
      openDirectoryOutput(
        target,
        options({ marker: 'header.sch', force: true, inputs: [path.join(target, 'a.tar')] }),
      ),
    );
    expect(error.message).toMatch(/it holds the input/);
    const s3Error = await caught(
      openDirectoryOutput(
        `s3://${BUCKET}/in`,
        options({ marker: 'header.sch', force: true, inputs: [`s3://${BUCKET}/in/x.h5ad`] }),
      ),
    );
    expect(s3Error.message).toMatch(/it holds the input/);
  });

  it('an s3:// prefix gets its marker last', async () => {
    const url = `s3://${BUCKET}/f/archive`;
    const out = await openDirectoryOutput(url, options({ marker: 'header.sch' }));
    await out.write('header.sch', enc.encode('SCDL'));
    await out.write('data.npy', enc.encode('data'));
    expect((await client.list(BUCKET, 'f/archive/')).map((o) => o.key)).toEqual(['f/archive/data.npy']);
    await out.commit();
    expect((await client.list(BUCKET, 'f/archive/')).map((o) => o.key).sort()).toEqual([
      'f/archive/data.npy',
      'f/archive/header.sch',
    ]);
  });
});
