import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO } from './helpers.js';

// A FIFO given as a path used to hang every verb (open() waits for a writer). Each verb must
// refuse it at once with a one-line error; the time limit only bounds a hang, it is no benchmark.

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-fifo-'));
  execFileSync('mkfifo', [
    path.join(dir, 'pipe.csv'),
    path.join(dir, 'pipe.scbf'),
    path.join(dir, 'pipe.taridx'),
  ]);
  fs.mkdirSync(path.join(dir, 'shards'));
  execFileSync('mkfifo', [path.join(dir, 'shards', 'f_0.tar')]);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: REPO, timeout: 20_000, encoding: 'utf8' });
  return { code: r.status, signal: r.signal, stderr: r.stderr };
}

describe('special files are refused, never waited on', () => {
  // Paths are made inside each test: `dir` exists only once beforeAll has run.
  const p = (name: string) => `@${name}`;
  const cases: [string, string[]][] = [
    ['detect', ['detect', p('pipe.scbf')]],
    ['info', ['info', p('pipe.scbf')]],
    ['inspect', ['inspect', p('pipe.scbf')]],
    ['validate', ['validate', p('pipe.scbf')]],
    ['head', ['head', p('pipe.scbf')]],
    ['cat', ['cat', p('pipe.scbf')]],
    ['diff', ['diff', p('pipe.scbf'), p('pipe.scbf')]],
    ['convert', ['convert', p('pipe.csv'), p('out.scbf')]],
    ['get', ['get', p('pipe.taridx'), 'key']],
  ];
  for (const [verb, args] of cases) {
    it(`${verb} exits with a one-line error naming the FIFO`, () => {
      const r = run(args.map((a) => (a.startsWith('@') ? path.join(dir, a.slice(1)) : a)));
      expect(r.signal, `${verb} hung`).toBeNull();
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/FIFO \(named pipe\), not a regular file/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    });
  }

  it('index does not take a FIFO named like a shard for one', () => {
    const r = run(['index', path.join(dir, 'shards'), '--fold', 'f', '-o', path.join(dir, 'f.taridx')]);
    expect(r.signal, 'index hung').toBeNull();
    // The converter finds no shard (an I/O-class error since index is a declared conversion: exit 2).
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no shards named f_\*\.tar/);
  });
});
