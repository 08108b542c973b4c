import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { tempDir } from '@binscope/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

// Only a regular file (or nothing) is ever replaced at an output path, --force or not: never a
// device (`get … -o /dev/null --force` as root would replace /dev/null), a FIFO, a socket, or
// a symbolic link (renaming over it drops the link; a dangling one used to go without --force).

const scratch = tempDir('binscope-cli-special-out-');
const at = (name: string) => path.join(scratch.dir, name);
let server: net.Server;

/** A character device this test may lose: its own node under root, /dev/null for anyone else. */
function characterDevice(): string {
  if (process.getuid?.() !== 0) return '/dev/null';
  execFileSync('mknod', [at('null'), 'c', '1', '3']);
  return at('null');
}

beforeAll(async () => {
  fs.writeFileSync(at('in.csv'), 'a,b\n1,x\n2,y\n');
  expect(cli(['demo', at('demo')]).code).toBe(0);
  execFileSync('mkfifo', [at('fifo.scbf')]);
  fs.symlinkSync(at('nowhere.scbf'), at('dangling.scbf'));
  fs.writeFileSync(at('kept.mldf'), 'kept');
  fs.symlinkSync(at('kept.mldf'), at('link.mldf'));
  server = net.createServer();
  await new Promise<void>((resolve) => server.listen(at('sock.taridx'), resolve));
}, 60_000);
afterAll(() => {
  server.close();
  scratch.remove();
});

describe('outputs that are not regular files', () => {
  const shards = () => path.join(scratch.dir, 'demo', 'shards');
  const cases = (): [string, string, string[], RegExp][] => [
    [
      'a FIFO (convert --force)',
      at('fifo.scbf'),
      ['convert', at('in.csv'), at('fifo.scbf'), '--force'],
      /a FIFO \(named pipe\)/,
    ],
    [
      'a dangling link (convert, no --force)',
      at('dangling.scbf'),
      ['convert', at('in.csv'), at('dangling.scbf')],
      /a symbolic link/,
    ],
    [
      'a link to a file (convert --force)',
      at('link.mldf'),
      ['convert', path.join(shards(), 'train.taridx'), at('link.mldf'), '--force'],
      /a symbolic link/,
    ],
    [
      'a socket (index -o --force)',
      at('sock.taridx'),
      ['index', shards(), '--fold', 'train', '-o', at('sock.taridx'), '--force'],
      /a socket/,
    ],
  ];
  for (const [name, target, args, kind] of cases()) {
    it(`${name} is refused and left as it was`, () => {
      const before = fs.lstatSync(target);
      const run = cli(args);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(kind);
      expect(run.stderr).toMatch(/not a regular file; binscope replaces only regular files/);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      const after = fs.lstatSync(target);
      expect([after.ino, after.mode]).toEqual([before.ino, before.mode]);
    });
  }

  it('a character device (get -o --force) is refused and left as it was', () => {
    const device = characterDevice();
    const before = fs.lstatSync(device);
    const run = cli([
      'get',
      path.join(shards(), 'train.taridx'),
      'sample_000001',
      '--ext',
      'cls',
      '-o',
      device,
      '--force',
    ]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/it is a character device, not a regular file/);
    const after = fs.lstatSync(device);
    expect(after.isCharacterDevice()).toBe(true);
    expect([after.ino, after.rdev]).toEqual([before.ino, before.rdev]);
  });

  it('the link target and the folder keep their contents; nothing else was written', () => {
    expect(fs.readFileSync(at('kept.mldf'), 'utf8')).toBe('kept');
    const names = fs.readdirSync(scratch.dir).filter((n) => n.startsWith('.'));
    expect(names).toEqual([]);
  });

  it('a folder at a file output is refused, even with --force, and kept', () => {
    fs.mkdirSync(at('dir.scbf'));
    fs.writeFileSync(at('dir.scbf/inside'), 'kept');
    const run = cli(['convert', at('in.csv'), at('dir.scbf'), '--force']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/it is a folder, not a regular file/);
    expect(fs.readdirSync(at('dir.scbf'))).toEqual(['inside']);
  });
});
