/**
 * `get`, `head`, `cat`, `diff` and `convert` on folds written by the real tools. GNU tar
 * `--format=posix` writes a PAX `x` header named `./PaxHeaders/<name>` before each member
 * (same key and extension as the member), Python's `tarfile` a `././@PaxHeader` before
 * non-ASCII names: the index records them (as upstream's indexer does), the verbs never show
 * one as a member.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeWith, gnuTar, gnuTarShard, pythonModules, pythonTarShard, tempDir } from '@binscope/testkit';
import { afterAll, expect, it } from 'vitest';
import { cli } from './helpers.js';

const scratch = tempDir('binscope-cli-pax-');
afterAll(() => scratch.remove());

function fold(name: string, shard: Uint8Array): string {
  const dir = path.join(scratch.dir, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'train_0.tar'), shard);
  expect(cli(['index', dir, '--fold', 'train']).code).toBe(0);
  return path.join(dir, 'train.taridx');
}

const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describeWith(gnuTar(), 'a GNU tar --format=posix fold', () => {
  it('get KEY --ext cls prints the file, not the PAX record; get KEY lists the members once', () => {
    const index = fold(
      'gnu',
      gnuTarShard([
        { name: 'ü.cls', data: '3' },
        { name: 'ü.json', data: '{"n":12345678901234567890}' },
      ]),
    );
    const cls = cli(['get', index, 'ü', '--ext', 'cls']);
    expect(cls.stderr).toBe('');
    expect([cls.code, cls.stdout]).toEqual([0, '3']);
    const listing = JSON.parse(cli(['get', index, 'ü', '--json']).stdout);
    expect(listing.members.map((m: { ext: string }) => m.ext)).toEqual(['cls', 'json']);
    const head = lines(cli(['head', index]).stdout);
    expect(head.map((r) => [r.key, r.members.length])).toEqual([['ü', 2]]);
    const out = path.join(scratch.dir, 'gnu.mldf');
    const converted = cli(['convert', index, out]);
    expect(converted.code, converted.stderr).toBe(0);
    const [sample] = lines(cli(['cat', out]).stdout);
    expect(sample).toMatchObject({ __key__: 'ü', cls: 3 });
    expect(Object.keys(sample)).toEqual(['sample', '__key__', 'cls', 'json']);
  });
});

describeWith(pythonModules(['tarfile']), 'a Python tarfile PAX fold', () => {
  it('head, cat and diff show no @PaxHeader record; get @PaxHeader finds nothing', () => {
    const entries = [
      { name: 'a_é.cls', data: '1' },
      { name: 'b.cls', data: '2' },
    ];
    const index = fold('py', pythonTarShard(entries));
    const records = lines(cli(['cat', index]).stdout);
    expect(records.map((r) => [r.key, r.members.map((m: { ext: string }) => m.ext)])).toEqual([
      ['a_?', ['cls']],
      ['b', ['cls']],
    ]);
    expect(lines(cli(['head', index, '-n', '1']).stdout).map((r) => r.key)).toEqual(['a_?']);
    expect(cli(['get', index, '@PaxHeader']).code).toBe(1);
    // The same shard indexed twice: equal, record for record.
    const again = fold('py-again', pythonTarShard(entries));
    const diff = cli(['diff', index, again, '--json']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(JSON.parse(diff.stdout)).toMatchObject({ equal: true, recordsCompared: 2 });
  });
});
