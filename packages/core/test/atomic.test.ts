import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// Relative, not the package: @binscope/testkit depends on core, so core cannot depend on it.
import { runUnprivileged } from '../../../tests/testkit/src/unprivileged.js';
import { AtomicFile, removeStaleTemps, writeDirectoryAtomic, writeFileAtomic } from '../src/node/index.js';

const pkg = path.resolve(import.meta.dirname, '..');
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-atomic-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('atomic writes', () => {
  it('replaces a file only on commit', async () => {
    const target = path.join(dir, 'out.bin');
    fs.writeFileSync(target, 'old');
    const file = AtomicFile.create(target);
    await file.write(new TextEncoder().encode('new content'));
    expect(fs.readFileSync(target, 'utf8')).toBe('old');
    await file.commit();
    expect(fs.readFileSync(target, 'utf8')).toBe('new content');
    expect(fs.readdirSync(dir)).toEqual(['out.bin']);
  });

  it('leaves the target untouched when the writer fails', async () => {
    const target = path.join(dir, 'out.bin');
    fs.writeFileSync(target, 'old');
    await expect(
      writeFileAtomic(target, async (sink) => {
        await sink.write(new Uint8Array([1, 2, 3]));
        throw new Error('writer failed');
      }),
    ).rejects.toThrow('writer failed');
    expect(fs.readFileSync(target, 'utf8')).toBe('old');
    expect(fs.readdirSync(dir)).toEqual(['out.bin']);
  });

  it('fails clearly under a path that is a file', async () => {
    fs.writeFileSync(path.join(dir, 'afile'), 'x');
    await expect(writeFileAtomic(path.join(dir, 'afile', 'out.bin'), new Uint8Array(1))).rejects.toThrow(
      /cannot write/,
    );
  });

  it('fails clearly in a read-only directory and leaves it empty', () => {
    const ro = path.join(dir, 'ro');
    fs.mkdirSync(ro);
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(ro, 0o555);
    try {
      // The writer runs as an unprivileged user: root would ignore the folder's permissions.
      const child = runUnprivileged(
        (locate) => `
        const { writeFileAtomic } = await import(${JSON.stringify(locate(pkg, 'dist/node/index.js'))});
        try {
          await writeFileAtomic(${JSON.stringify(path.join(ro, 'out.bin'))}, new Uint8Array(1));
          console.log('written');
        } catch (error) {
          console.log(error.name, error.message);
        }`,
      );
      expect(child.stderr).toBe('');
      expect(child.stdout).toMatch(/^SourceError cannot write .*out\.bin: permission denied/);
      expect(fs.readdirSync(ro)).toEqual([]);
    } finally {
      fs.chmodSync(ro, 0o755);
    }
  });

  it('removes temp files left by dead writers after the next success', async () => {
    const target = path.join(dir, 'out.bin');
    const stale = path.join(dir, `.out.bin.binscope-tmp-999999999-abc`);
    fs.writeFileSync(stale, 'partial');
    await writeFileAtomic(target, new Uint8Array([9]));
    expect(fs.existsSync(stale)).toBe(false);
    removeStaleTemps(target);
    expect(fs.readdirSync(dir)).toEqual(['out.bin']);
  });

  it('builds a directory under a temp name and swaps it in', async () => {
    const target = path.join(dir, 'archive');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'old.txt'), 'old');
    await writeDirectoryAtomic(target, async (temp) => {
      fs.writeFileSync(path.join(temp, 'header.sch'), 'new');
      expect(fs.existsSync(path.join(target, 'old.txt'))).toBe(true);
    });
    expect(fs.readdirSync(target)).toEqual(['header.sch']);
    expect(fs.readdirSync(dir)).toEqual(['archive']);
    await expect(
      writeDirectoryAtomic(target, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(fs.readdirSync(target)).toEqual(['header.sch']);
    expect(fs.readdirSync(dir)).toEqual(['archive']);
  });
});
