import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
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

describe('only regular files (and, for archives, folders) are replaced', () => {
  const bytes = new TextEncoder().encode('new');

  it('a FIFO, a socket, a dangling or a live symbolic link at the target stay as they are', async () => {
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(dir, 'sock'), resolve));
    try {
      fs.symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));
      fs.writeFileSync(path.join(dir, 'real'), 'kept');
      fs.symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
      const cases: [string, RegExp][] = [
        ['fifo', /it is a FIFO \(named pipe\), not a regular file/],
        ['sock', /it is a socket, not a regular file/],
        ['dangling', /it is a symbolic link, not a regular file/],
        ['link', /it is a symbolic link, not a regular file/],
      ];
      for (const [name, message] of cases) {
        const target = path.join(dir, name);
        const before = fs.lstatSync(target);
        await expect(writeFileAtomic(target, bytes), name).rejects.toThrow(message);
        await expect(
          writeDirectoryAtomic(target, async (temp) => fs.writeFileSync(path.join(temp, 'f'), 'x')),
          name,
        ).rejects.toThrow(message);
        const after = fs.lstatSync(target);
        expect([after.ino, after.mode], name).toEqual([before.ino, before.mode]);
      }
      expect(fs.readFileSync(path.join(dir, 'real'), 'utf8')).toBe('kept');
      expect(fs.readdirSync(dir).sort()).toEqual(['dangling', 'fifo', 'link', 'real', 'sock']);
    } finally {
      server.close();
    }
  });

  it('a special file that appears while writing is refused at commit', async () => {
    const target = path.join(dir, 'late');
    const file = AtomicFile.create(target);
    await file.write(bytes);
    execFileSync('mkfifo', [target]);
    await expect(file.commit()).rejects.toThrow(/it is a FIFO/);
    expect(fs.lstatSync(target).isFIFO()).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['late']);
  });

  it('a folder is replaced only by a folder writer, a file by either', async () => {
    fs.mkdirSync(path.join(dir, 'folder'));
    await expect(writeFileAtomic(path.join(dir, 'folder'), bytes)).rejects.toThrow(
      /it is a folder, not a regular file/,
    );
    fs.writeFileSync(path.join(dir, 'plain'), 'old');
    await writeFileAtomic(path.join(dir, 'plain'), bytes);
    expect(fs.readFileSync(path.join(dir, 'plain'), 'utf8')).toBe('new');
  });

  it('/dev/null, for a user who could replace it, is refused as a character device', () => {
    // Run as an unprivileged user: were the rule broken, root would replace /dev/null.
    const child = runUnprivileged(
      (locate) => `
      const { writeFileAtomic } = await import(${JSON.stringify(locate(pkg, 'dist/node/index.js'))});
      try {
        await writeFileAtomic('/dev/null', new Uint8Array(1));
        console.log('written');
      } catch (error) {
        console.log(error.name, error.message);
      }`,
    );
    expect(child.stderr).toBe('');
    expect(child.stdout).toMatch(
      /^SourceError cannot write \/dev\/null: it is a character device, not a regular file/,
    );
    expect(fs.statSync('/dev/null').isCharacterDevice()).toBe(true);
  });
});
