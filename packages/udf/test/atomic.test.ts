import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBinscopeError } from '@binscope/core';
import { openFile } from '@binscope/core/node';
import { runUnprivileged, tempDir } from '@binscope/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { UdfBuilder, validateUdf } from '../src/index.js';
import { openUdfFile, writeUdfFile } from '../src/node.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, '..');

function small(marker: number): UdfBuilder {
  const file = new UdfBuilder({ id: 'ATOM' });
  file.setRoot(file.dataset().table('m', { prim: 'u32', data: [marker] }));
  return file;
}

async function marker(file: string): Promise<number> {
  const reader = await openUdfFile(file);
  try {
    return (await (await reader.root())!.read('m')).values![0] as number;
  } finally {
    await reader.close();
  }
}

const temps = (dir: string) => fs.readdirSync(dir).filter((n) => n.includes('.binscope-tmp-'));

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('atomic writes', () => {
  it('replaces the target only once the new file is complete', async () => {
    const { dir, remove } = tempDir('udf-atomic-');
    cleanup = remove;
    const target = path.join(dir, 'out.udf');
    await writeUdfFile(target, small(1));
    expect(await marker(target)).toBe(1);
    await writeUdfFile(target, small(2));
    expect(await marker(target)).toBe(2);
    expect(temps(dir)).toEqual([]);
  });

  it('leaves the target untouched when building fails mid-write', async () => {
    const { dir, remove } = tempDir('udf-atomic-');
    cleanup = remove;
    const target = path.join(dir, 'out.udf');
    await writeUdfFile(target, small(7));
    const broken = small(8);
    broken.dataset().table('i', { prim: 'u8', hint: 'index', indexName: 'missing', data: [0] });
    await expect(writeUdfFile(target, broken)).rejects.toThrow(/missing/);
    expect(await marker(target)).toBe(7);
    expect(temps(dir)).toEqual([]);
  });

  it('fails with a clear error for a missing directory or a directory in the way', async () => {
    const { dir, remove } = tempDir('udf-atomic-');
    cleanup = remove;
    const error = await writeUdfFile(path.join(dir, 'no', 'such', 'out.udf'), small(1)).catch(
      (e: unknown) => e,
    );
    expect(isBinscopeError(error, 'SourceError')).toBe(true);
    expect(String((error as Error).message)).toMatch(/no such file or directory/);
    fs.mkdirSync(path.join(dir, 'taken.udf'));
    const clash = await writeUdfFile(path.join(dir, 'taken.udf'), small(1)).catch((e: unknown) => e);
    expect(isBinscopeError(clash, 'SourceError')).toBe(true);
    expect(fs.statSync(path.join(dir, 'taken.udf')).isDirectory()).toBe(true);
    expect(temps(dir)).toEqual([]);
  });

  it('fails with a clear error in a read-only directory and leaves the target', async () => {
    const { dir, remove } = tempDir('udf-atomic-');
    cleanup = () => {
      fs.chmodSync(dir, 0o755);
      remove();
    };
    const target = path.join(dir, 'out.udf');
    await writeUdfFile(target, small(3));
    fs.chmodSync(dir, 0o555);
    // The writer runs as an unprivileged user: root would ignore the folder's permissions.
    const child = runUnprivileged(
      (locate) => `
      const { UdfBuilder } = await import(${JSON.stringify(locate(pkg, 'dist/index.js'))});
      const { writeUdfFile } = await import(${JSON.stringify(locate(pkg, 'dist/node.js'))});
      const file = new UdfBuilder({ id: 'ATOM' });
      file.setRoot(file.dataset().table('m', { prim: 'u32', data: [4] }));
      try {
        await writeUdfFile(${JSON.stringify(target)}, file);
        console.log('written');
      } catch (error) {
        console.log(error.name, error.message);
      }`,
    );
    expect(child.stderr).toBe('');
    expect(child.stdout).toMatch(/^SourceError .*permission denied/);
    expect(await marker(target)).toBe(3);
    expect(temps(dir)).toEqual([]);
  });
});

describe('a writer killed mid-write (SIGKILL)', () => {
  function runChild(target: string): { child: ChildProcess; lines: string[]; started: Promise<void> } {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'fixtures', 'write-child.ts'), target, '16'],
      {
        cwd: pkg,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const lines: string[] = [];
    const started = new Promise<void>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        lines.push(...chunk.split('\n').filter(Boolean));
        if (lines.some((l) => l.startsWith('writing'))) resolve();
      });
      child.on('exit', (code) => reject(new Error(`child exited early with ${code}`)));
    });
    return { child, lines, started };
  }

  it('leaves the complete previous file or the complete new one, and the next write clears its temp files', async () => {
    const { dir, remove } = tempDir('udf-kill-');
    cleanup = remove;
    const target = path.join(dir, 'out.udf');
    await writeUdfFile(target, small(42));
    // Kill at increasing delays so the kills land before, during and after a rename.
    const delays = [0, 15, 40, 90, 200, 400];
    let sawTemp = false;
    for (const delay of delays) {
      const { child, started } = runChild(target);
      await started;
      await new Promise((r) => setTimeout(r, delay));
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      sawTemp ||= temps(dir).length > 0;
      // Whatever happened, the target is a whole, valid file: the previous one or a complete new one.
      const source = openFile(target);
      const report = await validateUdf(source);
      await source.close();
      expect(report.errors).toEqual([]);
      const reader = await openUdfFile(target);
      const id = reader.header.id;
      const tables = (await reader.root())!.tables.length;
      await reader.close();
      expect([id, tables]).toSatisfy(
        ([i, n]: [string, number]) => (i === 'ATOM' && n === 1) || (i === 'KILL' && n === 8),
      );
    }
    // The next successful write removes the temp files dead writers left behind.
    await writeUdfFile(target, small(43));
    expect(await marker(target)).toBe(43);
    expect(temps(dir)).toEqual([]);
    // The kill right after a write started must have caught it with its temp file half written.
    expect(sawTemp).toBe(true);
  }, 120_000);
});
