import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

const scratch = tempDir('binscope-cli-ext-');
afterAll(() => scratch.remove());

describe('SCBF extensions through the CLI', () => {
  const csv = path.join(scratch.dir, 't.csv');
  const text = 'id,city,score\n1,Oslo,2.5\n2,Rome,1.0\n3,Oslo,7.25\n4,,0.5\n';
  fs.writeFileSync(csv, text);

  it('convert --extensions adds the footer; info shows statistics; CSV round trip is unchanged', () => {
    const plain = path.join(scratch.dir, 'plain.scbf');
    const extended = path.join(scratch.dir, 'ext.scbf');
    expect(cli(['convert', csv, plain]).code).toBe(0);
    expect(cli(['convert', csv, extended, '--extensions']).code).toBe(0);
    const a = fs.readFileSync(plain);
    const b = fs.readFileSync(extended);
    expect(b.subarray(0, a.length).equals(a)).toBe(true);
    expect(b.length).toBeGreaterThan(a.length);
    const info = cli(['info', extended]);
    expect(info.stdout).toMatch(/extensions: footer v1: block checksums/);
    expect(info.stdout).toMatch(/stats score: min 0\.5, max 7\.25/);
    expect(cli(['info', plain]).stdout).toMatch(/extensions: none/);
    const back = path.join(scratch.dir, 'back.csv');
    expect(cli(['convert', extended, back]).code).toBe(0);
    expect(fs.readFileSync(back, 'utf8')).toBe(text);
    expect(cli(['validate', extended]).stdout).toMatch(/valid.*0 errors, 0 warnings/);
  });

  it('cat --where filters rows and says when statistics let it skip every block', () => {
    const extended = path.join(scratch.dir, 'ext.scbf');
    const hit = cli(['cat', extended, '--where', "city = 'Oslo' and score > 3", '--format', 'jsonl']);
    expect(hit.code).toBe(0);
    expect(
      hit.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([{ id: 3, city: 'Oslo', score: 7.25 }]);
    const miss = cli(['cat', extended, '--where', 'id > 10', '--format', 'jsonl']);
    expect(miss.code).toBe(0);
    expect(miss.stdout).toBe('');
    // The plugin took the filter over and skipped every column unread (its statistics exclude it).
    expect(miss.stderr).toMatch(/skipped unread \(id, city, score\)/);
    expect(cli(['cat', extended, '--where', 'id >']).code).toBe(2);
  });

  it('convert --nulls: empty numeric cells are nulls, shown as null, and the CSV round trip holds', () => {
    const sparse = path.join(scratch.dir, 'sparse.csv');
    const csvText = 'id,score\n1,2.5\n,\n3,0.25\n';
    fs.writeFileSync(sparse, csvText);
    const out = path.join(scratch.dir, 'sparse.scbf');
    const r = cli(['convert', sparse, out, '--nulls', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).nullColumns).toEqual(['id', 'score']);
    expect(cli(['info', out]).stdout).toMatch(
      /schema: id: int32, score: float64[\s\S]*null bitmaps \(id, score\)/,
    );
    const rows = cli(['cat', out, '--format', 'jsonl'])
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows[1]).toEqual({ id: null, score: null });
    const back = path.join(scratch.dir, 'sparse-back.csv');
    expect(cli(['convert', out, back]).code).toBe(0);
    expect(fs.readFileSync(back, 'utf8')).toBe(csvText);
  });

  it('validate names a corrupted block', () => {
    const extended = path.join(scratch.dir, 'ext.scbf');
    const bad = path.join(scratch.dir, 'bad.scbf');
    const bytes = fs.readFileSync(extended);
    // The last block ends where the footer starts; its last byte is part of the adler32 trailer.
    const trailer = bytes.subarray(bytes.length - 16);
    const bodyLength = Number(trailer.readBigUInt64LE(0));
    const lastBlockByte = bytes.length - 16 - bodyLength - 1;
    const copy = Buffer.from(bytes);
    copy[lastBlockByte] ^= 0xff;
    fs.writeFileSync(bad, copy);
    const report = cli(['validate', bad, '--json']);
    expect(report.code).toBe(1);
    expect(report.stdout).toMatch(/column \\"score\\" values block \(block 3\) is corrupted/);
  });

  it('convert --dictionary auto: info says so, validate warns about upstream, CSV round trip holds', () => {
    const repetitive = path.join(scratch.dir, 'repetitive.csv');
    const lines = ['n,city'];
    for (let i = 0; i < 12; i++) lines.push(`${i},${['Oslo', 'Rome', 'Lima'][i % 3]}`);
    const csvText = `${lines.join('\n')}\n`;
    fs.writeFileSync(repetitive, csvText);
    const out = path.join(scratch.dir, 'repetitive.scbf');
    const r = cli(['convert', repetitive, out, '--dictionary', 'auto', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).dictionaryColumns).toEqual(['city']);
    expect(cli(['info', out]).stdout).toMatch(/dictionary encoding \(city: .*upstream/);
    const report = cli(['validate', out]);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/upstream SCBF readers cannot read its text/);
    const hit = cli(['cat', out, '--where', "city = 'Lima'", '--format', 'jsonl']);
    expect(
      hit.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).n),
    ).toEqual([2, 5, 8, 11]);
    const back = path.join(scratch.dir, 'repetitive-back.csv');
    expect(cli(['convert', out, back]).code).toBe(0);
    expect(fs.readFileSync(back, 'utf8')).toBe(csvText);
    expect(cli(['convert', repetitive, out, '--dictionary', 'sometimes']).code).toBe(2);
  });
});
