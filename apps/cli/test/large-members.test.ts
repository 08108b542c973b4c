import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tarHeader, tempDir } from '@binscope/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, REPO, STACK_LINE } from './helpers.js';

/**
 * Members of 4 GiB and more (T6 sizes): shards made sparse with truncate, so a 5 GiB member
 * costs a few KB of disk. Every verb must answer or fail with a typed error, never a raw
 * RangeError, and `get` must stream (bounded reads), never hold the member.
 */
const scratch = tempDir('binscope-cli-large-');
afterAll(() => scratch.remove());

const LARGEST_READ = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'largest-read.cjs');
const GiB = 2 ** 30;
let index: string;
let midIndex: string;

/** A sparse shard `<fold>_0.tar`: small label, then a `size`-byte .bin (a hole), then another sample. */
function sparseFold(
  dir: string,
  fold: string,
  size: number,
  fill?: (fd: number, at: number) => void,
): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${fold}_0.tar`);
  const fd = fs.openSync(file, 'w');
  let at = 0;
  const member = (name: string, bytes: number, payload?: Uint8Array) => {
    fs.writeSync(fd, tarHeader({ name, size: bytes }), 0, 512, at);
    if (payload) fs.writeSync(fd, payload, 0, payload.byteLength, at + 512);
    if (!payload && fill) fill(fd, at + 512);
    at += 512 + Math.ceil(bytes / 512) * 512;
  };
  member('a.cls', 1, Uint8Array.of(0x31));
  member('a.bin', size);
  member('b.cls', 1, Uint8Array.of(0x32));
  fs.ftruncateSync(fd, at + 1024);
  fs.closeSync(fd);
  return file;
}

beforeAll(() => {
  const big = path.join(scratch.dir, 'big');
  sparseFold(big, 'huge', 5 * GiB);
  const made = cli(['index', big, '--fold', 'huge']);
  if (made.code !== 0) throw new Error(`index failed: ${made.stderr}`);
  index = path.join(big, 'huge.taridx');
  // 48 MiB with bytes at both ends: small enough to copy, big enough to see a whole-member read.
  const mid = path.join(scratch.dir, 'mid');
  sparseFold(mid, 'mid', 48 << 20, (fd, at) => {
    fs.writeSync(fd, Buffer.from('head'), 0, 4, at);
    fs.writeSync(fd, Buffer.from('tail'), 0, 4, at + (48 << 20) - 4);
  });
  const madeMid = cli(['index', mid, '--fold', 'mid']);
  if (madeMid.code !== 0) throw new Error(`index failed: ${madeMid.stderr}`);
  midIndex = path.join(mid, 'mid.taridx');
});

function expectNoCrash(r: { code: number | null; stderr: string }): void {
  expect(r.stderr).not.toMatch(/RangeError|Invalid typed array/);
  expect(r.stderr).not.toMatch(STACK_LINE);
}

describe('members of 5 GiB', () => {
  it('cat, head and diff list the samples', () => {
    for (const args of [
      ['cat', index],
      ['head', '-n', '2', index],
      ['diff', index, index],
    ]) {
      const r = cli(args);
      expectNoCrash(r);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(0);
      if (args[0] !== 'diff') expect(r.stdout).toContain(String(5 * GiB));
    }
  });

  it('get --ext streams: the reader of stdout stops it after 1 MiB, reads stay bounded', async () => {
    const out = path.join(scratch.dir, 'largest');
    const child = spawn(
      process.execPath,
      ['--require', LARGEST_READ, BIN, 'get', index, 'a', '--ext', 'bin'],
      {
        cwd: REPO,
        env: { ...process.env, BINSCOPE_LARGEST_READ: out },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let got = 0;
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdout.on('data', (d: Buffer) => {
      got += d.byteLength;
      if (got >= 1 << 20) child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expectNoCrash({ code, stderr });
    expect(got).toBeGreaterThanOrEqual(1 << 20);
    expect(Number(fs.readFileSync(out, 'utf8'))).toBeLessThanOrEqual(4 << 20);
  }, 60_000);
});

describe('get writes members in bounded chunks', () => {
  it('get --ext -o copies a 48 MiB member exactly, reading at most 4 MiB at a time', () => {
    const target = path.join(scratch.dir, 'mid.bin');
    const largest = path.join(scratch.dir, 'largest-mid');
    const r = cli(['get', midIndex, 'a', '--ext', 'bin', '-o', target, '--json'], {
      nodeArgs: ['--require', LARGEST_READ],
      env: { BINSCOPE_LARGEST_READ: largest },
    });
    expect(r.code, r.stderr).toBe(0);
    const bytes = fs.readFileSync(target);
    expect(bytes.byteLength).toBe(48 << 20);
    expect(bytes.subarray(0, 4).toString()).toBe('head');
    expect(bytes.subarray(bytes.byteLength - 4).toString()).toBe('tail');
    expect(JSON.parse(r.stdout).sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(Number(fs.readFileSync(largest, 'utf8'))).toBeLessThanOrEqual(4 << 20);
  });
});
