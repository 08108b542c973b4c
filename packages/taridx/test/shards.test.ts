import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBinscopeError, MemorySource } from '@binscope/core';
import { NodeDirectory, openPath } from '@binscope/core/node';
import { builtFile, describeWith, tarBytes, tempDir } from '@binscope/testkit';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { indexShards, openTaridx, taridxPlugin } from '../src/index.js';
import { indexFold, openTaridxFile } from '../src/node.js';

const scratch: Array<{ remove: () => void }> = [];
afterEach(() => {
  for (const s of scratch.splice(0)) s.remove();
});

function shard(first: number, count: number): Uint8Array {
  const entries = [];
  for (let k = first; k < first + count; k++) {
    const key = `k${String(k).padStart(5, '0')}`;
    entries.push({ name: `${key}.jpg`, data: new Uint8Array(600 + k).fill(k & 0xff) });
    entries.push({ name: `${key}.cls`, data: new TextEncoder().encode(String(k % 10)) });
  }
  return tarBytes(entries);
}

async function foldOnDisk(shards = 4, perShard = 5): Promise<string> {
  const tmp = tempDir();
  scratch.push(tmp);
  for (let i = 0; i < shards; i++)
    fs.writeFileSync(
      path.join(tmp.dir, `d_${String(i).padStart(4, '0')}.tar`),
      shard(i * perShard, perShard),
    );
  await indexFold(tmp.dir, 'd');
  return tmp.dir;
}

describe('one folder, several users', () => {
  it('serves the indexer, a reader, and another reader after the first closed what it opened', async () => {
    const dir = await foldOnDisk();
    const directory = new NodeDirectory(dir);
    const { bytes } = await indexShards({ directory, fold: 'd' });
    const index = () => new MemorySource(bytes, 'd.taridx');
    const first = await openTaridx(index(), { shards: directory });
    expect((await first.get('k00002'))?.[0].data.byteLength).toBe(602);
    await first.close();
    const second = await openTaridx(index(), { shards: directory });
    expect((await second.get('k00002'))?.[0].data.byteLength).toBe(602);
    expect((await second.get('k00017'))?.[0].data.byteLength).toBe(617);
    await second.close();
    await directory.close();
  });
});

describe('missing and changed shards', () => {
  it('validates clean against untouched shards', async () => {
    const dir = await foldOnDisk();
    const report = await taridxPlugin.validate(openPath(path.join(dir, 'd.taridx')));
    expect(report).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('names a missing last shard, in validate and when reading', async () => {
    const dir = await foldOnDisk();
    fs.rmSync(path.join(dir, 'd_0003.tar'));
    const report = await taridxPlugin.validate(openPath(path.join(dir, 'd.taridx')));
    expect(report.valid).toBe(false);
    expect(report.errors[0].code).toBe('OutOfBounds');
    expect(report.errors[0].message).toMatch(/d_0003\.tar/);
    const reader = await openTaridxFile(path.join(dir, 'd.taridx'));
    const error = await (async () => reader.get('k00017'))().catch((e: unknown) => e);
    expect(isBinscopeError(error, 'OutOfBounds')).toBe(true);
    expect(String(error)).toMatch(/d_0003\.tar is probably missing/);
    await reader.close();
  });

  it('names a missing shard in the middle of the numbering', async () => {
    const dir = await foldOnDisk();
    fs.rmSync(path.join(dir, 'd_0001.tar'));
    const report = await taridxPlugin.validate(openPath(path.join(dir, 'd.taridx')));
    expect(report.valid).toBe(false);
    expect(report.warnings.map((w) => w.message).join('\n')).toMatch(/d_0001\.tar seems to be missing/);
    expect(report.errors.map((e) => e.message).join('\n')).toMatch(/d_0001\.tar/);
  });

  it('detects a shard rewritten after indexing, in validate and on read', async () => {
    const dir = await foldOnDisk();
    // Same names, one member grown: every later header moves.
    const entries = [];
    for (let k = 5; k < 10; k++) {
      const key = `k${String(k).padStart(5, '0')}`;
      entries.push({ name: `${key}.jpg`, data: new Uint8Array(k === 6 ? 2000 : 600 + k) });
      entries.push({ name: `${key}.cls`, data: new TextEncoder().encode('1') });
    }
    fs.writeFileSync(path.join(dir, 'd_0001.tar'), tarBytes(entries));
    const report = await taridxPlugin.validate(openPath(path.join(dir, 'd.taridx')));
    expect(report.valid).toBe(false);
    expect(report.errors[0]).toMatchObject({ code: 'CountMismatch', file: 'd_0001.tar' });
    const reader = await openTaridxFile(path.join(dir, 'd.taridx'));
    const error = await (async () => reader.get('k00007'))().catch((e: unknown) => e);
    expect(isBinscopeError(error, 'FormatError')).toBe(true);
    expect(String(error)).toMatch(/changed after indexing/);
    expect((await reader.get('k00002'))?.[0].data.byteLength).toBe(602);
    await reader.close();
  });

  it('warns about members appended after indexing', async () => {
    const dir = await foldOnDisk(2, 3);
    const more = shard(3, 4);
    fs.writeFileSync(path.join(dir, 'd_0001.tar'), more);
    fs.writeFileSync(
      path.join(dir, 'd_0000.tar'),
      Buffer.concat([shard(0, 3).subarray(0, -1024), shard(40, 1)]),
    );
    const report = await taridxPlugin.validate(openPath(path.join(dir, 'd.taridx')));
    expect(report.warnings.some((w) => w.code === 'UnindexedMembers' && w.file === 'd_0000.tar')).toBe(true);
  });
});

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/node.js');

describeWith(builtFile(dist), 'an indexer killed mid-write', () => {
  it('leaves the previous index or the complete new one, and no litter after the next run', async () => {
    const dir = await foldOnDisk(6, 400);
    const target = path.join(dir, 'd.taridx');
    const complete = fs.readFileSync(target);
    fs.writeFileSync(target, 'previous');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 80 }), async (delayMs) => {
        fs.writeFileSync(target, 'previous');
        const child = spawn(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `const { indexFold } = await import(${JSON.stringify(dist)}); process.stdout.write('go\\n'); for (;;) await indexFold(${JSON.stringify(dir)}, 'd');`,
          ],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        const exited = new Promise((r) => child.once('exit', r));
        await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
        await new Promise((r) => setTimeout(r, delayMs));
        child.kill('SIGKILL');
        await exited;
        const now = fs.readFileSync(target);
        expect(now.toString() === 'previous' || now.equals(complete)).toBe(true);
        await indexFold(dir, 'd');
        expect(fs.readFileSync(target).equals(complete)).toBe(true);
        expect(fs.readdirSync(dir).filter((n) => n.includes('binscope-tmp'))).toEqual([]);
      }),
      { numRuns: 8, seed: 3 },
    );
  }, 60_000);

  it('fails clearly when the output cannot be written and leaves the existing index untouched', async () => {
    const dir = await foldOnDisk(1, 2);
    const target = path.join(dir, 'd.taridx');
    const before = fs.readFileSync(target);
    const error = await indexFold(dir, 'd', { output: path.join(dir, 'no-such-folder', 'd.taridx') }).catch(
      (e: unknown) => e,
    );
    expect(isBinscopeError(error, 'SourceError')).toBe(true);
    expect(String(error)).toMatch(/cannot write .*no such file or directory/);
    expect(fs.readFileSync(target).equals(before)).toBe(true);
    expect(fs.readdirSync(dir).filter((n) => n.includes('binscope-tmp'))).toEqual([]);
  });
});
