/**
 * `binscope convert IN OUT.arrow` (and `--to arrows`, to a file or stdout) through the built
 * CLI, read back by the real consumer, pyarrow: the schema and every row equal what
 * `binscope cat` prints for the input. An existing output is kept unless --force, and a
 * failed export leaves nothing behind.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeWith, PYTHON, pythonModules, tempDir, VECTORS, vectorsFolder } from '@binscope/testkit';
import { afterAll, expect, it } from 'vitest';
import { BIN, cli } from './helpers.js';

const scratch = tempDir('binscope-cli-arrow-');
afterAll(() => scratch.remove());
const out = (name: string) => path.join(scratch.dir, name);
const vector = (rel: string) => path.join(VECTORS, rel);
const ROWS_PY = path.join(import.meta.dirname, 'fixtures', 'arrow_rows.py');

interface Seen {
  schema: [string, string, boolean][];
  batches: number;
  rows: unknown[];
}

/** What pyarrow finds in an IPC file or stream. */
const pyarrow = (file: string, kind: 'file' | 'stream'): Seen =>
  JSON.parse(execFileSync(PYTHON, [ROWS_PY, file, kind], { encoding: 'utf8', maxBuffer: 256 << 20 }));

function ok(args: string[]) {
  const run = cli(args);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr.replace(/^wrote .*\n/m, ''), args.join(' ')).toBe('');
  return run;
}

/** A digest of many rows, compared instead of the rows themselves. */
const digest = (rows: unknown[]) => createHash('sha256').update(JSON.stringify(rows)).digest('hex');

/** The records as `binscope cat` prints them. */
const records = (file: string, ...args: string[]) =>
  ok(['cat', file, '--format', 'jsonl', ...args])
    .stdout.trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describeWith(
  [vectorsFolder(VECTORS), pythonModules(['pyarrow'])],
  'convert to Arrow IPC, read by pyarrow',
  () => {
    it('SCBF → .arrow: pyarrow reads its schema and every row', () => {
      const scbf = vector('scbf/large_100k/large_100k.scbf');
      const run = ok(['convert', scbf, out('large.arrow')]);
      expect(run.stderr).toMatch(/wrote .*large\.arrow \(scbf→arrow\)/);
      const seen = pyarrow(out('large.arrow'), 'file');
      expect(seen.schema).toEqual([
        ['id', 'int32', false],
        ['category', 'string', false],
        ['value', 'double', false],
        ['flag', 'int32', false],
        ['label', 'string', false],
      ]);
      // 100,000 rows: two record batches of at most 65,536.
      expect(seen.batches).toBe(2);
      const expected = records(scbf);
      expect(seen.rows).toHaveLength(100_000);
      expect(seen.rows.slice(0, 3)).toEqual(expected.slice(0, 3));
      expect(digest(seen.rows)).toBe(digest(expected));
    });

    it('SCBF → - --to arrows, piped into pyarrow open_stream', () => {
      const scbf = vector('scbf/basic/basic.scbf');
      const stdout = execFileSync(
        'bash',
        [
          '-c',
          'set -o pipefail; "$0" "$1" convert "$2" - --to arrows --batch-rows 4 | "$3" "$4" - stream',
          process.execPath,
          BIN,
          scbf,
          PYTHON,
          ROWS_PY,
        ],
        { encoding: 'utf8' },
      );
      const seen: Seen = JSON.parse(stdout);
      expect(seen.schema.map(([name, type]) => [name, type])).toEqual([
        ['id', 'int32'],
        ['name', 'string'],
        ['score', 'double'],
      ]);
      expect(seen.batches).toBe(2);
      expect(seen.rows).toEqual(records(scbf));
    });

    it('TARIDX → .arrow: the samples (its primary table) by default, the index rows with --index-only', () => {
      const index = vector('taridx/ustar_flat_2shards/train.taridx');
      ok(['convert', index, out('s.arrow')]);
      ok(['convert', index, out('rows.arrow'), '--index-only']);
      const samples = pyarrow(out('s.arrow'), 'file');
      expect(samples.schema.slice(0, 2)).toEqual([
        ['key', 'string', false],
        ['jpg', 'binary', true],
      ]);
      expect(samples.rows).toEqual(records(index, '--table', 'samples'));
      const rows = pyarrow(out('rows.arrow'), 'file');
      expect(rows.schema.map(([name]) => name)).toEqual(['key', 'crashid', 'members']);
      expect(rows.rows).toEqual(records(index));
    });

    it('an existing output is kept without --force, and replaced with it', () => {
      const scbf = vector('scbf/basic/basic.scbf');
      fs.writeFileSync(out('kept.arrow'), 'what the user had');
      const refused = cli(['convert', scbf, out('kept.arrow')]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/exists.*--force/);
      expect(fs.readFileSync(out('kept.arrow'), 'utf8')).toBe('what the user had');
      ok(['convert', scbf, out('kept.arrow'), '--force']);
      expect(pyarrow(out('kept.arrow'), 'file').rows).toEqual(records(scbf));
    });

    it('a failure part-way (a shard cut short) leaves no output and no temp file', () => {
      const dir = out('cut');
      fs.mkdirSync(dir);
      const from = vector('taridx/ustar_flat_2shards');
      for (const name of ['train.taridx', 'train_0000.tar', 'train_0001.tar']) {
        fs.copyFileSync(path.join(from, name), path.join(dir, name));
        fs.chmodSync(path.join(dir, name), 0o644);
      }
      fs.truncateSync(path.join(dir, 'train_0001.tar'), 2048);
      // One row per batch: the first shard's samples are written before the second fails.
      const run = cli([
        'convert',
        path.join(dir, 'train.taridx'),
        path.join(dir, 's.arrow'),
        '--batch-rows',
        '1',
      ]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/OutOfBounds: .*past the end of the file .*train_0001\.tar/);
      expect(fs.readdirSync(dir).sort()).toEqual(['train.taridx', 'train_0000.tar', 'train_0001.tar']);
    });
  },
);
