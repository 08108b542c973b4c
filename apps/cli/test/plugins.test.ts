import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '@binscope/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The toy format is a test fixture, never shipped: a third party's plugin module.
import { toyBytes } from './fixtures/toy-format/index.mjs';
import { cli, STACK_LINE } from './helpers.js';

const TOY = path.join(__dirname, 'fixtures/toy-format/index.mjs');
const scratch = tempDir('binscope-cli-plugins-');
afterAll(() => scratch.remove());

const enc = new TextEncoder();
const at = (name: string) => path.join(scratch.dir, name);
const RECORDS = [
  { id: 1, name: 'alpha', score: 0.5, blob: enc.encode('first blob') },
  { id: 2, name: 'beta', score: 2.5 },
  { id: 3, name: 'gamma', score: -1, blob: enc.encode('third') },
];
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/** The CLI with the toy plugin loaded, as a user would load it. */
const toy = (args: string[], options: Parameters<typeof cli>[1] = {}) =>
  cli([...args, '--plugin', TOY], options);
const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

beforeAll(() => {
  fs.writeFileSync(at('a.toy'), toyBytes(RECORDS));
  fs.writeFileSync(at('b.toy'), toyBytes(RECORDS.map((r) => (r.name === 'beta' ? { ...r, score: 9.5 } : r))));
  fs.writeFileSync(at('copy.toy'), toyBytes(RECORDS));
  const whole = toyBytes(RECORDS);
  fs.writeFileSync(at('cut.toy'), whole.subarray(0, whole.length - 4));
});

describe('a third-party format loaded with --plugin works in every verb, with no app file naming it', () => {
  it('detect, info and the help name it', () => {
    const d = toy(['detect', '--json', at('a.toy')]);
    expect(d.code, d.stderr).toBe(0);
    expect(JSON.parse(d.stdout)[0]).toMatchObject({ format: 'toy', title: 'TOY test records' });
    const info = toy(['info', '--json', at('a.toy')]);
    expect(info.code, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout)).toMatchObject({ format: 'toy', records: 3, counts: { records: 3 } });
    expect(toy(['--help']).stdout).toMatch(/TOY \(\.toy\)\s+TOY test records/);
    // Without the plugin the same file is unknown.
    expect(cli(['detect', at('a.toy')]).code).toBe(1);
  });

  it('inspect draws the tree, and marks the defect of a broken file on its node', () => {
    const good = toy(['inspect', at('a.toy')]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/record 2\s+row/);
    const broken = toy(['inspect', '--json', at('cut.toy')]);
    expect(broken.code).toBe(1);
    const doc = JSON.parse(broken.stdout);
    expect(doc.problems).toEqual([
      expect.objectContaining({
        code: 'Truncated',
        offset: fs.statSync(at('cut.toy')).size,
        severity: 'error',
      }),
    ]);
    // Placed on a node of the tree, not left on the root.
    expect(doc.problems[0].path).not.toBe('');
    expect(toy(['inspect', at('cut.toy')]).stdout).toContain('✗ Truncated');
  });

  it("validate lists the broken file's error with its offset; the good one is valid", () => {
    const r = toy(['validate', '--json', at('a.toy'), at('cut.toy')]);
    expect(r.code).toBe(1);
    const [a, cut] = JSON.parse(r.stdout);
    expect(a).toMatchObject({ format: 'toy', valid: true, errors: [] });
    expect(cut).toMatchObject({ format: 'toy', valid: false });
    expect(cut.errors[0]).toMatchObject({ code: 'Truncated', file: 'cut.toy' });
  });

  it('head prints records by the schema; cat --where filters them; --table picks a table', () => {
    const head = toy(['head', '-n', '2', at('a.toy')]);
    expect(head.code, head.stderr).toBe(0);
    expect(lines(head.stdout)).toEqual([
      { id: 1, name: 'alpha', score: 0.5, blob: { size: 10, sha256: sha256('first blob') } },
      { id: 2, name: 'beta', score: 2.5, blob: { size: 0, sha256: sha256('') } },
    ]);
    const where = toy([
      'cat',
      at('a.toy'),
      '--where',
      "score >= 0 and name != 'alpha'",
      '--columns',
      'id,name',
    ]);
    expect(where.code, where.stderr).toBe(0);
    expect(lines(where.stdout)).toEqual([{ id: 2, name: 'beta' }]);
    // offset and limit count matching records.
    const window = toy([
      'cat',
      at('a.toy'),
      '--where',
      'id > 0',
      '--offset',
      '1',
      '-n',
      '1',
      '--fields',
      'id',
    ]);
    expect(lines(window.stdout)).toEqual([{ id: 2 }]);
    const bad = toy(['cat', at('a.toy'), '--where', 'nope = 1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).not.toMatch(STACK_LINE);
    const table = toy(['cat', at('a.toy'), '--table', 'summary']);
    expect(lines(table.stdout)).toEqual([{ records: 3, bytes: fs.statSync(at('a.toy')).size }]);
    expect(toy(['cat', at('a.toy'), '--table', 'nope']).code).toBe(2);
    const csv = toy(['cat', at('a.toy'), '--format', 'csv', '--columns', 'id,name,score']);
    expect(csv.stdout).toBe('id,name,score\n1,alpha,0.5\n2,beta,2.5\n3,gamma,-1\n');
  });

  it('diff: equal copies, and a changed value located in both files', () => {
    const same = toy(['diff', at('a.toy'), at('copy.toy')]);
    expect(same.code, same.stdout + same.stderr).toBe(0);
    const r = toy(['diff', '--json', at('a.toy'), at('b.toy')]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.differences).toEqual([
      expect.objectContaining({
        kind: 'record',
        path: 'records[1].score',
        a: expect.objectContaining({
          value: 2.5,
          location: expect.objectContaining({ record: 1, file: 'a.toy' }),
        }),
        b: expect.objectContaining({ value: 9.5 }),
      }),
    ]);
  });

  it('get finds a record by its key and writes one value', () => {
    const found = toy(['get', '--json', at('a.toy'), 'gamma']);
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout)).toMatchObject({
      index: at('a.toy'),
      found: true,
      id: 3,
      name: 'gamma',
    });
    const bytes = toy(['get', at('a.toy'), 'gamma', '--field', 'blob']);
    expect(bytes.stdout).toBe('third');
    const saved = toy(['get', '--json', at('a.toy'), 'alpha', '--field', 'blob', '-o', at('blob.bin')]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(fs.readFileSync(at('blob.bin'), 'utf8')).toBe('first blob');
    expect(JSON.parse(saved.stdout)).toMatchObject({ size: 10, sha256: sha256('first blob') });
    expect(toy(['get', at('a.toy'), 'nobody']).code).toBe(1);
    const onInput = toy(['get', at('a.toy'), 'alpha', '--field', 'blob', '-o', at('a.toy'), '--force']);
    expect(onInput.code).toBe(2);
    expect(onInput.stderr).toMatch(/refusing to write .*: it is the input/);
  });

  it("convert runs the plugin's converters with their declared options; its verb has a default output", () => {
    fs.writeFileSync(at('in.csv'), 'id,name,score\n7,x,1.5\n8,y,2\n');
    const help = toy(['convert', '--help']).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--score-scale <n> CSV → TOY: multiply every score by this');
    const made = toy(['convert', at('in.csv'), at('in.toy'), '--score-scale', '10', '--json']);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ conversion: 'csv→toy', records: 2 });
    expect(lines(toy(['cat', at('in.toy'), '--fields', 'score']).stdout)).toEqual([
      { score: 15 },
      { score: 20 },
    ]);
    // An option of another conversion is refused, not ignored.
    const wrong = toy(['convert', at('a.toy'), at('folder'), '--score-scale', '2']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--score-scale is not an option of TOY → folder of records');
    const folder = toy(['convert', at('a.toy'), at('folder')]);
    expect(folder.code, folder.stderr).toBe(0);
    expect(fs.readdirSync(at('folder')).sort()).toEqual(['done.json', 'records']);
    const joined = toy(['concat', at('a.toy'), at('in.toy'), '--label', 'joined', '--json']);
    expect(joined.code, joined.stderr).toBe(0);
    expect(JSON.parse(joined.stdout)).toMatchObject({
      path: path.join(scratch.dir, 'joined.toy'),
      records: 5,
    });
    expect(toy(['info', '--json', at('joined.toy')]).stdout).toContain('"records": 5');
  });

  it('demo writes its declared sample too', () => {
    const r = toy(['demo', at('demo'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).files as Array<{ path: string; format: string }>;
    expect(files).toContainEqual(expect.objectContaining({ path: at('demo/sample.toy'), format: 'toy' }));
  });
});

describe('naming plugin modules', () => {
  it('BINSCOPE_PLUGINS names them too', () => {
    const r = cli(['detect', at('a.toy')], { env: { BINSCOPE_PLUGINS: TOY } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('toy (TOY test records)');
  });

  it('a package name resolves from the current folder', () => {
    const project = at('project');
    fs.mkdirSync(path.join(project, 'node_modules'), { recursive: true });
    fs.symlinkSync(path.dirname(TOY), path.join(project, 'node_modules', 'binscope-toy-format'));
    const r = cli(['detect', at('a.toy'), '--plugin', 'binscope-toy-format'], { cwd: project });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('toy (TOY test records)');
  });

  const bad: Array<[string, string, RegExp]> = [
    [
      'a module that does not exist',
      './no/such/plugin.mjs',
      /--plugin \.\/no\/such\/plugin\.mjs: cannot import it/,
    ],
    [
      'a package that is not installed',
      'no-such-binscope-plugin',
      /--plugin no-such-binscope-plugin: cannot find the package/,
    ],
    [
      'a module exporting no format',
      'empty.mjs',
      /--plugin .*empty\.mjs: the module exports no format or converter/,
    ],
    [
      'a v1 plugin',
      'v1.mjs',
      /--plugin .*v1\.mjs: plugin "old" implements specification "v1".*must be ported to the v2 contract/,
    ],
    [
      'a plugin taking a built-in id',
      'taken.mjs',
      /--plugin .*taken\.mjs: format id "scbf" is already a built-in format/,
    ],
  ];
  beforeAll(() => {
    fs.writeFileSync(at('empty.mjs'), 'export const something = 1;\n');
    const info = (id: string, version: unknown) =>
      `export default { specificationVersion: ${JSON.stringify(version)}, id: '${id}', title: 'X', kind: 'file', extensions: ['x'], magic: [{ offset: 0, bytes: 'XXXX' }], load: async () => ({}) };\n`;
    fs.writeFileSync(at('v1.mjs'), info('old', 'v1'));
    fs.writeFileSync(at('taken.mjs'), info('scbf', 2));
  });
  for (const [what, spec, message] of bad) {
    it(`${what}: one typed line naming it, exit 2, in any verb`, () => {
      const module = spec.endsWith('.mjs') && !spec.startsWith('.') ? at(spec) : spec;
      for (const verb of [
        ['detect', at('a.toy')],
        ['head', at('a.toy')],
      ]) {
        const r = cli([...verb, '--plugin', module]);
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        const errors = r.stderr.trim().split('\n');
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatch(message);
      }
    });
  }
});
