import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '@binscope/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, REPO, STACK_LINE } from './helpers.js';

// A stdout that fails (a full disk: /dev/full) is a one-line error and exit 2; a reader that
// goes away (`| head`) ends the output quietly, as `cat`'s does. Neither may leave node's
// "unsettled top-level await" (exit 13) or a stack trace.

const scratch = tempDir('binscope-cli-stdout-');
const d = (name: string) => path.join(scratch.dir, 'demo', name);
const big = path.join(scratch.dir, 'big.csv');

beforeAll(() => {
  const demo = cli(['demo', path.join(scratch.dir, 'demo')]);
  expect(demo.code, demo.stderr).toBe(0);
  // Bigger than any pipe buffer, so the reader's going away is seen mid-output.
  const rows = Array.from({ length: 60_000 }, (_, i) => `${i},name ${i},${i / 8}`);
  fs.writeFileSync(big, `id,name,score\n${rows.join('\n')}\n`);
  expect(cli(['convert', big, path.join(scratch.dir, 'big.scbf')]).code).toBe(0);
}, 120_000);
afterAll(() => scratch.remove());

/** Every verb that writes stdout, with arguments that make it write. */
const verbs = (): [string, string[]][] => [
  ['detect', ['detect', d('measurements.scbf'), d('train.mldf'), d('scene.udf')]],
  ['info', ['info', d('train.mldf')]],
  ['info --json', ['info', '--json', d('scene.udf')]],
  ['inspect', ['inspect', d('measurements.scbf')]],
  ['validate', ['validate', d('cells_scdl')]],
  ['head', ['head', path.join(scratch.dir, 'big.scbf'), '-n', '50000']],
  ['cat', ['cat', path.join(scratch.dir, 'big.scbf')]],
  ['diff', ['diff', d('measurements.scbf'), path.join(scratch.dir, 'big.scbf')]],
  ['convert csv → - (SCBF bytes)', ['convert', big, '-']],
  ['convert scbf → - (CSV text)', ['convert', path.join(scratch.dir, 'big.scbf'), '-']],
  ['get (members)', ['get', d('shards/train.taridx'), 'sample_000001']],
  ['get --ext (payload bytes)', ['get', d('shards/train.taridx'), 'sample_000001', '--ext', 'ppm']],
  [
    'index --json',
    ['index', d('shards'), '--fold', 'train', '-o', path.join(scratch.dir, 'i.taridx'), '--force', '--json'],
  ],
  ['demo', ['demo', path.join(scratch.dir, 'demo2'), '--force']],
];

describe('stdout on a full disk (/dev/full)', () => {
  for (const [name, args] of verbs()) {
    it(`${name}: one line, exit 2`, () => {
      const full = fs.openSync('/dev/full', 'w');
      try {
        const run = spawnSync(process.execPath, [BIN, ...args], {
          cwd: REPO,
          stdio: ['ignore', full, 'pipe'],
          encoding: 'utf8',
          timeout: 120_000,
        });
        expect(run.signal, `${name} hung`).toBeNull();
        expect(run.status, run.stderr).toBe(2);
        const lines = run.stderr.split('\n').filter((l) => l.trim() && !/^wrote |^binscope demo:/.test(l));
        expect(lines, run.stderr).toEqual([
          'binscope: cannot write to stdout: no space left on device (ENOSPC)',
        ]);
        expect(run.stderr).not.toMatch(STACK_LINE);
      } finally {
        fs.closeSync(full);
      }
    }, 150_000);
  }
});

/** Runs `binscope ARGS | head -c 1`: the reader takes one chunk and goes away. */
function readOneChunk(
  args: string[],
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

describe('a stdout reader that goes away (| head)', () => {
  for (const [name, args] of verbs()) {
    it(`${name}: stops quietly with its own exit code`, async () => {
      const run = await readOneChunk(args);
      expect(run.signal).toBeNull();
      expect(run.code, run.stderr).not.toBe(13);
      expect([0, 1], run.stderr).toContain(run.code);
      expect(run.stderr).not.toMatch(/cannot write|EPIPE|Error/);
      expect(run.stderr).not.toMatch(STACK_LINE);
    }, 150_000);
  }
});
