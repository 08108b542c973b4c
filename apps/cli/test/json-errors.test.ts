import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

// With --json, failures are JSON too: inside the document a verb was writing, or as the
// document itself, never a truncated array or an empty stdout.

let dir: string;
let index: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-json-errors-'));
  expect(cli(['demo', path.join(dir, 's'), '--json']).code).toBe(0);
  index = path.join(dir, 's/shards/train.taridx');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('--json errors', () => {
  it('cat --json closes the array with the error that cut it short, says it on stderr, exits 1', () => {
    // The second shard cut to 100 bytes: its samples' keys cannot be read.
    fs.truncateSync(path.join(dir, 's/shards/train_0001.tar'), 100);
    const r = cli(['cat', '--json', index]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(doc.length).toBe(5);
    expect(doc.slice(0, 4).map((s) => s.key)).toEqual([0, 1, 2, 3].map((i) => `sample_00000${i}`));
    expect(doc[4]).toMatchObject({
      path: index,
      error: { code: 'Truncated', file: 'train_0001.tar', offset: 0, exitCode: 1 },
    });
    expect(r.stderr).toMatch(/^binscope: .*Truncated: tar headers? of row 12/);
  });

  it('validate --json keeps unreadable paths in the array, beside the successes', () => {
    const missing = path.join(dir, 'nope.scbf');
    const r = cli(['validate', '--json', path.join(dir, 's/measurements.scbf'), missing]);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout) as Array<{ path: string; valid: boolean; errors: { code: string }[] }>;
    expect(doc.map((d) => [d.path, d.valid])).toEqual([
      [path.join(dir, 's/measurements.scbf'), true],
      [missing, false],
    ]);
    expect(doc[1].errors[0]).toMatchObject({
      code: 'SourceError',
      message: expect.stringMatching(/no such file/),
    });
  });

  it('a verb that fails before writing prints the error as its JSON document', () => {
    for (const args of [
      ['info', '--json', path.join(dir, 'nope.scbf')],
      ['inspect', '--json', path.join(dir, 'nope.scbf')],
      ['convert', '--json', path.join(dir, 'nope.csv'), path.join(dir, 'x.scbf')],
    ]) {
      const r = cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(JSON.parse(r.stdout), args.join(' ')).toMatchObject({
        error: {
          code: expect.stringMatching(/SourceError|UsageError/),
          message: expect.stringContaining('nope'),
        },
      });
      expect(r.stderr).toContain('nope');
    }
  });

  it('head --json holds the error as the only entry of its array', () => {
    const r = cli(['head', '--json', path.join(dir, 'nope.scbf')]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual([
      { path: path.join(dir, 'nope.scbf'), error: expect.objectContaining({ code: 'SourceError' }) },
    ]);
  });

  it('validate --deep exits 1 when every shard of the index is missing', () => {
    const lone = path.join(dir, 'lone');
    fs.mkdirSync(lone);
    fs.copyFileSync(index, path.join(lone, 'train.taridx'));
    const r = cli(['validate', '--deep', '--json', path.join(lone, 'train.taridx')]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)[0].errors[0].message).toMatch(/no train_\*\.tar shards/);
  });
});
