import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tarBytes, tempDir } from '@binscope/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, REPO } from './helpers.js';

// `binscope index` on a tar cut inside a header (7 of 10 members whole) used to write an index
// of 7 rows and exit 0. A cut stream is bad content: exit 1, one line, no index.

const scratch = tempDir('binscope-cli-cut-tar-');
const at = (name: string) => path.join(scratch.dir, name);
let cut: Uint8Array;

beforeAll(() => {
  const enc = new TextEncoder();
  const full = tarBytes(
    Array.from({ length: 10 }, (_, i) => ({ name: `s${i}.cls`, data: enc.encode(String(i)) })),
  );
  cut = full.subarray(0, 7 * 1024 + 200);
  fs.mkdirSync(at('shards'));
  fs.writeFileSync(at('shards/f_0.tar'), cut);
});
afterAll(() => scratch.remove());

describe('index of a tar cut inside a header', () => {
  it('a shard folder: exit 1, Truncated at the cut header, no index written', () => {
    const run = cli(['index', at('shards'), '--fold', 'f', '-o', at('f.taridx')]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/Truncated: tar header at 7168 is cut off/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(at('f.taridx'))).toBe(false);
  });

  it('a stream on stdin: the same', () => {
    const run = spawnSync(
      process.execPath,
      [BIN, 'index', '-', '--fold', 'f', '--shard-name', 'f_0.tar', '-o', at('s.taridx')],
      { cwd: REPO, input: cut, encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/Truncated: tar header at 7168 is cut off/);
    expect(fs.existsSync(at('s.taridx'))).toBe(false);
  });
});
