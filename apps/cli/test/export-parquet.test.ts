/**
 * `binscope convert IN OUT.parquet` through the built CLI: any format's records to one Parquet
 * file (to a path or to stdout), `--table`, `--index-only`, and a folder of one file per table.
 * What was written is read back by the CLI itself (its Parquet plugin) and compared with the
 * input's records.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeWith, tempDir, VECTORS, vectorsFolder } from '@binscope/testkit';
import { afterAll, expect, it } from 'vitest';
import { cli } from './helpers.js';

const scratch = tempDir('binscope-cli-parquet-');
afterAll(() => scratch.remove());
const out = (name: string) => path.join(scratch.dir, name);
const vector = (rel: string) => path.join(VECTORS, rel);

function ok(args: string[], cwd?: string) {
  const run = cli(args, { cwd });
  expect(run.stderr.replace(/^wrote .*\n/m, ''), args.join(' ')).toBe('');
  expect(run.code, run.stderr).toBe(0);
  return run;
}

/** Parquet has no "absent": a field a record leaves out reads back as a null. */
const withoutNulls = (lines: string) =>
  lines
    .trim()
    .split('\n')
    .map((l) =>
      JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(l)).filter(([, v]) => v !== null))),
    );

/** The records as the CLI prints them, one JSON line each. */
const records = (file: string, ...args: string[]) => ok(['cat', file, '--format', 'jsonl', ...args]).stdout;

describeWith(vectorsFolder(VECTORS), 'convert to Parquet', () => {
  it('SCBF → .parquet: the same records, and the count in info', () => {
    const scbf = vector('scbf/basic/basic.scbf');
    const run = ok(['convert', scbf, out('basic.parquet')]);
    expect(run.stderr).toMatch(/wrote .*basic\.parquet \(scbf→parquet\)/);
    expect(records(out('basic.parquet'))).toBe(records(scbf));
    const info = JSON.parse(ok(['info', out('basic.parquet'), '--json']).stdout);
    expect(info.counts).toMatchObject({ rows: 6, columns: 3 });
    // A .parquet file is detected by its magic, whatever its name.
    fs.copyFileSync(out('basic.parquet'), out('basic.bin'));
    expect(ok(['detect', out('basic.bin')]).stdout).toMatch(/parquet/);
  });

  it('- writes the file to stdout', () => {
    const scbf = vector('scbf/unicode_empty/unicode_empty.scbf');
    const run = cli(['convert', scbf, '-', '--to', 'parquet']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdoutBytes.subarray(0, 4).toString()).toBe('PAR1');
    fs.writeFileSync(out('stdout.parquet'), run.stdoutBytes);
    expect(records(out('stdout.parquet'))).toBe(records(scbf));
  });

  it('TARIDX: the samples by default, the index rows with --index-only, a table by --table', () => {
    const index = vector('taridx/ustar_flat_2shards/train.taridx');
    ok(['convert', index, out('samples.parquet')]);
    ok(['convert', index, out('rows.parquet'), '--index-only']);
    ok(['convert', index, out('named.parquet'), '--table', 'samples', '--compression', 'gzip']);
    expect(records(out('samples.parquet'))).toBe(records(index, '--table', 'samples'));
    expect(records(out('named.parquet'))).toBe(records(out('samples.parquet')));
    expect(records(out('rows.parquet'))).toBe(records(index));
    const info = JSON.parse(ok(['info', out('named.parquet'), '--json']).stdout);
    expect(info.properties.compression).toBe('GZIP');
  });

  it('--table of a table the input lacks is refused, naming its tables, and writes nothing', () => {
    const run = cli([
      'convert',
      vector('taridx/ustar_flat_2shards/train.taridx'),
      out('nope.parquet'),
      '--table',
      'nope',
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--table "nope": no such table in .*; its tables: "samples"/);
    expect(fs.existsSync(out('nope.parquet'))).toBe(false);
  });

  it('a folder output: one Parquet file per table of a UDF file, named after it', () => {
    const udf = vector('udf/nested_text_json/nested_text_json.udf');
    // a relative folder, as people type it
    ok(['convert', udf, 'tables'], scratch.dir);
    const files = fs.readdirSync(out('tables')).sort();
    expect(files).toContain('udf.parquet');
    expect(files).toContain('title.parquet');
    expect(files.every((f) => /^[A-Za-z0-9._-]+\.parquet$/.test(f))).toBe(true);
    expect(withoutNulls(records(out('tables/udf.parquet')))).toEqual(withoutNulls(records(udf)));
    // (the CLI's `cat --table` lists only tables known at open; UDF's are found by reading)
    expect(records(out('tables/title.parquet'))).toBe('{"title":"Nested UDF ✓"}\n');
    expect(records(out('tables/children_0_names.parquet')).trim().split('\n')).toEqual([
      '{"names":"alpha"}',
      '{"names":""}',
      '{"names":"γάμμα"}',
      '{"names":"emoji 🎉"}',
    ]);
    const tables = (JSON.parse(ok(['info', udf, '--json']).stdout).counts.tables as number) + 1;
    expect(files.length).toBe(tables);
    // --to names the format; a trailing slash names the folder variant, not a file called `slashed/`
    ok(['convert', udf, 'slashed/', '--to', 'parquet'], scratch.dir);
    expect(fs.readdirSync(out('slashed')).sort()).toEqual(files);
  });

  it('a Parquet file converts again: Parquet → Parquet keeps the records', () => {
    ok([
      'convert',
      vector('mldf/ndarray_image/ndarray_image.mldf'),
      out('nd.parquet'),
      '--row-group-size',
      '2',
    ]);
    ok(['convert', out('nd.parquet'), out('nd2.parquet')]);
    expect(records(out('nd2.parquet'))).toBe(records(out('nd.parquet')));
    expect(JSON.parse(ok(['info', out('nd.parquet'), '--json']).stdout).counts.rowGroups).toBe(3);
    expect(ok(['validate', out('nd2.parquet')]).stdout).toMatch(/valid/);
  });
});
