import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, REPO } from './helpers.js';
import { VECTORS_PRESENT, validVectors } from './vectors.js';

const scratch = tempDir('binscope-cli-stdio-');
afterAll(() => scratch.remove());

/** Runs the CLI with `input` on stdin. */
function piped(
  args: string[],
  input: Uint8Array | string,
): { code: number | null; stdout: Buffer; stderr: string } {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: scratch.dir, input, maxBuffer: 64 << 20 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr.toString('utf8') };
}

const CSV = `id,name,score\n${Array.from({ length: 300 }, (_, i) => `${i},row ${i},${i / 4}`).join('\n')}\n`;

describe('- for standard input and output', () => {
  it('convert - OUT.scbf reads CSV from stdin, as from the file', () => {
    fs.writeFileSync(path.join(scratch.dir, 'in.csv'), CSV);
    expect(cli(['convert', path.join(scratch.dir, 'in.csv'), path.join(scratch.dir, 'file.scbf')]).code).toBe(
      0,
    );
    const run = piped(['convert', '-', 'pipe.scbf'], CSV);
    expect(run.code, run.stderr).toBe(0);
    expect(
      fs
        .readFileSync(path.join(scratch.dir, 'pipe.scbf'))
        .equals(fs.readFileSync(path.join(scratch.dir, 'file.scbf'))),
    ).toBe(true);
  });

  it('convert - - turns CSV on stdin into SCBF on stdout, and SCBF → CSV writes to stdout', () => {
    const scbf = piped(['convert', '-', '-'], CSV);
    expect(scbf.code, scbf.stderr).toBe(0);
    expect(scbf.stdout.equals(fs.readFileSync(path.join(scratch.dir, 'file.scbf')))).toBe(true);
    const csv = spawnSync(process.execPath, [BIN, 'convert', path.join(scratch.dir, 'file.scbf'), '-'], {
      cwd: REPO,
    });
    expect(csv.status, csv.stderr.toString()).toBe(0);
    expect(csv.stdout.toString('utf8')).toBe(CSV);
    // Nothing but the staged output may be left behind.
    expect(fs.readdirSync(scratch.dir).sort()).toEqual(['file.scbf', 'in.csv', 'pipe.scbf']);
  });

  it('SCBF on stdin is refused as needing random access, not parsed as CSV', () => {
    const run = piped(['convert', '-', 'x.scbf'], fs.readFileSync(path.join(scratch.dir, 'file.scbf')));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/random access/);
    expect(fs.existsSync(path.join(scratch.dir, 'x.scbf'))).toBe(false);
  });

  it.each(['info', 'validate', 'head', 'inspect'])('%s - says the format needs random access', (verb) => {
    const run = piped([verb, '-'], 'whatever');
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/random access/);
  });

  it.skipIf(!VECTORS_PRESENT)('index - --shard-name indexes a streamed tar as the file of that name', () => {
    const v = validVectors('taridx').find((c) => fs.existsSync(path.join(c.dir, 'train_0000.tar')));
    if (!v) return;
    const shard = path.join(v.dir, 'train_0000.tar');
    const local = path.join(scratch.dir, 'shards');
    fs.mkdirSync(local);
    fs.copyFileSync(shard, path.join(local, 'train_0000.tar'));
    expect(cli(['index', local, '--fold', 'train']).code).toBe(0);
    const run = piped(
      ['index', '-', '--fold', 'train', '--shard-name', 'train_0000.tar', '-o', 'piped.taridx'],
      fs.readFileSync(shard),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(
      fs
        .readFileSync(path.join(scratch.dir, 'piped.taridx'))
        .equals(fs.readFileSync(path.join(local, 'train.taridx'))),
    ).toBe(true);
    const unnamed = piped(['index', '-', '--fold', 'train'], fs.readFileSync(shard));
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toMatch(/--shard-name/);
  });
});
