import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tarBytes, tempDir, describeWith } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, STACK_LINE } from './helpers.js';
import { VECTORS, VECTORS_NEEDED, validVectors } from './vectors.js';

const scratch = tempDir('binscope-cli-verbs-');
afterAll(() => scratch.remove());

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function fresh(name: string): string {
  const dir = path.join(scratch.dir, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

describeWith(VECTORS_NEEDED, `convert, diff, index and get on the vectors in ${VECTORS}`, () => {
  describe('convert CSV ⇄ SCBF', () => {
    for (const v of validVectors('scbf').filter((c) => typeof c.expected.source_csv === 'string')) {
      it(`${v.name}: CSV → SCBF → CSV is byte-identical, and the SCBF equals the vector in content`, () => {
        const dir = fresh(`scbf-${v.name}`);
        const csv = path.join(v.dir, v.expected.source_csv as string);
        const scbf = path.join(dir, `${v.name}.scbf`);
        const back = path.join(dir, `${v.name}.csv`);
        const to = cli(['convert', csv, scbf, '--json']);
        expect(to.code, to.stderr).toBe(0);
        expect(JSON.parse(to.stdout)).toMatchObject({ output: scbf, conversion: 'csv→scbf' });
        const from = cli(['convert', scbf, back]);
        expect(from.code, from.stderr).toBe(0);
        expect(from.stdout).toBe('');
        if (v.expected.csv_roundtrip_identical === true)
          expect(sha256(fs.readFileSync(back))).toBe(sha256(fs.readFileSync(csv)));

        const same = cli(['diff', scbf, v.target, '--json']);
        expect(same.code, same.stdout + same.stderr).toBe(0);
        expect(JSON.parse(same.stdout)).toMatchObject({ equal: true, differences: [] });
      });
    }

    it('SCBF files that differ only in compressed bytes are equal in content', () => {
      const v = validVectors('scbf').find((c) => typeof c.expected.source_csv === 'string');
      expect(v).toBeDefined();
      const dir = fresh('levels');
      const csv = path.join(v!.dir, v!.expected.source_csv as string);
      const fast = path.join(dir, 'fast.scbf');
      const small = path.join(dir, 'small.scbf');
      expect(cli(['convert', csv, fast, '--level', '0']).code).toBe(0);
      expect(cli(['convert', csv, small, '--level', '9']).code).toBe(0);
      expect(sha256(fs.readFileSync(fast))).not.toBe(sha256(fs.readFileSync(small)));
      const r = cli(['diff', fast, small]);
      expect(r.code, r.stdout).toBe(0);
      expect(r.stdout).toContain('equal in content');
    });

    it('a changed value is a difference with its location in both files, exit 1', () => {
      const v = validVectors('scbf').find((c) => c.name === 'basic') ?? validVectors('scbf')[0];
      const dir = fresh('changed');
      const csv = fs.readFileSync(path.join(v.dir, v.expected.source_csv as string), 'utf8').split('\n');
      // Append one row: counts and records both differ.
      const original = path.join(dir, 'a.csv');
      const changed = path.join(dir, 'b.csv');
      fs.writeFileSync(original, csv.join('\n'));
      const extra = csv[1];
      fs.writeFileSync(changed, `${csv.filter((l) => l).join('\n')}\n${extra}\n`);
      expect(cli(['convert', original, path.join(dir, 'a.scbf')]).code).toBe(0);
      expect(cli(['convert', changed, path.join(dir, 'b.scbf')]).code).toBe(0);
      const r = cli(['diff', path.join(dir, 'a.scbf'), path.join(dir, 'b.scbf'), '--json']);
      expect(r.code).toBe(1);
      const report = JSON.parse(r.stdout);
      expect(report.equal).toBe(false);
      const rows = report.differences.find((d: { path: string }) => d.path === 'counts.rows');
      expect(rows).toBeDefined();
      expect(rows.a.value + 1).toBe(rows.b.value);
      for (const side of [rows.a, rows.b]) {
        expect(side.location).toMatchObject({ offset: expect.any(Number), length: expect.any(Number) });
      }
      const extraRecord = report.differences.find((d: { kind: string }) => d.kind === 'record');
      expect(extraRecord).toMatchObject({
        a: { present: false },
        b: { present: true, location: { record: rows.a.value } },
      });
      const human = cli(['diff', path.join(dir, 'a.scbf'), path.join(dir, 'b.scbf')]);
      expect(human.code).toBe(1);
      expect(human.stdout).toContain('counts.rows');
    });

    it('refuses conversions it does not know, exit 2', () => {
      const r = cli(['convert', __filename, path.join(scratch.dir, 'x.scbf')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('binscope converts');
      expect(r.stderr).not.toMatch(STACK_LINE);
    });

    it('a CSV the converter rejects leaves no output file behind', () => {
      const dir = fresh('bad-csv');
      fs.writeFileSync(path.join(dir, 'bad.csv'), 'a,b\n1,2\n3\n');
      const out = path.join(dir, 'bad.scbf');
      const r = cli(['convert', path.join(dir, 'bad.csv'), out]);
      expect([1, 2]).toContain(r.code);
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(fs.readdirSync(dir)).toEqual(['bad.csv']);
    });
  });

  describe('convert .h5ad → SCDL (the options in each source/conversion.json)', () => {
    for (const v of validVectors('scdl').filter((c) =>
      fs.existsSync(path.join(c.dir, 'source', 'conversion.json')),
    )) {
      it(`${v.name}: arrays byte-identical to upstream's archive, and equal in content`, () => {
        const source = path.join(v.dir, 'source');
        const conversion = JSON.parse(fs.readFileSync(path.join(source, 'conversion.json'), 'utf8'));
        const inputs = conversion.inputs as string[];
        const input = inputs.length === 1 ? inputs[0] : path.dirname(inputs[0]);
        const out = path.join(fresh(`h5ad-${v.name}`), 'archive');
        const args = ['convert', input, out, '--data-dtype', conversion.data_dtype];
        if (conversion.matrix === 'X') args.push('--use-x');
        const r = cli(args, { cwd: source });
        expect(r.code, r.stderr).toBe(0);
        for (const file of ['header.sch', 'data.npy', 'row_ptr.npy', 'col_ptr.npy']) {
          expect(sha256(fs.readFileSync(path.join(out, file))), file).toBe(
            sha256(fs.readFileSync(path.join(v.target, file))),
          );
        }
        const same = cli(['diff', out, v.target]);
        expect(same.code, same.stdout).toBe(0);
        expect(cli(['validate', out]).code).toBe(0);

        // An existing archive is replaced only with --force.
        const again = cli(args, { cwd: source });
        expect(again.code).toBe(2);
        expect(again.stderr).toContain('--force');
        expect(cli([...args, '--force'], { cwd: source }).code).toBe(0);
      });
    }

    it('a value the data dtype cannot hold is refused (C10) unless --lossy-cast', () => {
      const v = validVectors('scdl').find((c) => c.name === 'basic_float32_raw');
      expect(v).toBeDefined();
      // raw.X holds fractions (0.25 …): uint16 cannot hold them.
      const input = path.join(v!.dir, 'source', 'input.h5ad');
      const dir = fresh('lossy-cast');
      const out = path.join(dir, 'archive');
      const refused = cli(['convert', input, out, '--data-dtype', 'uint16']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /InvalidValue.*row \d+, column \d+: value \d+\.\d+ cannot be stored as uint16/,
      );
      expect(refused.stderr).not.toMatch(STACK_LINE);
      expect(fs.readdirSync(dir)).toEqual([]);
      const lossy = cli(['convert', input, out, '--data-dtype', 'uint16', '--lossy-cast']);
      expect(lossy.code, lossy.stderr).toBe(0);
      expect(lossy.stderr).toContain('changed');
    });

    it('never replaces a folder that is not an SCDL archive', () => {
      const v = validVectors('scdl').find((c) => fs.existsSync(path.join(c.dir, 'source', 'input.h5ad')));
      expect(v).toBeDefined();
      const precious = fresh('precious');
      fs.writeFileSync(path.join(precious, 'keep.txt'), 'mine');
      const r = cli(['convert', path.join(v!.dir, 'source', 'input.h5ad'), precious, '--force']);
      expect(r.code).toBe(2);
      expect(fs.readFileSync(path.join(precious, 'keep.txt'), 'utf8')).toBe('mine');
    });
  });

  describe('convert SCDL → .h5ad', () => {
    for (const v of validVectors('scdl').filter((c) =>
      fs.existsSync(path.join(c.dir, 'source', 'conversion.json')),
    )) {
      it(`${v.name}: the archive's matrix comes back byte-identical through .h5ad, or a var space mix is refused`, () => {
        const conversion = JSON.parse(fs.readFileSync(path.join(v.dir, 'source', 'conversion.json'), 'utf8'));
        const dir = fresh(`to-h5ad-${v.name}`);
        const h5ad = path.join(dir, 'cells.h5ad');
        const r = cli(['convert', v.target, h5ad, '--json']);
        if (conversion.inputs.length > 1) {
          // Files with different genes: the archive's rows use several var spaces.
          expect(r.code).toBe(1);
          expect(r.stderr).toMatch(/UnsupportedFeature: var blocks 0 and 1 hold different features/);
          expect(fs.readdirSync(dir)).toEqual([]);
          return;
        }
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject({ output: h5ad, conversion: 'scdl→h5ad' });
        const back = path.join(dir, 'archive');
        const again = cli(['convert', h5ad, back, '--use-x', '--data-dtype', conversion.data_dtype]);
        expect(again.code, again.stderr).toBe(0);
        for (const file of ['data.npy', 'row_ptr.npy', 'col_ptr.npy'])
          expect(sha256(fs.readFileSync(path.join(back, file))), file).toBe(
            sha256(fs.readFileSync(path.join(v.target, file))),
          );
        // --to names the format when the output's extension does not.
        const named = path.join(dir, 'cells.out');
        expect(cli(['convert', v.target, named, '--to', 'h5ad']).code).toBe(0);
        expect(fs.readFileSync(named).subarray(0, 4).toString('latin1')).toBe('\x89HDF');
      });
    }
  });

  describe('index and get', () => {
    for (const v of validVectors('taridx')) {
      const fold = path.basename(v.target, '.taridx');
      it(`${v.name}: index rebuilds ${path.basename(v.target)} byte for byte`, () => {
        const dir = fresh(`index-${v.name}`);
        for (const f of fs.readdirSync(v.dir).filter((f) => f.endsWith('.tar')))
          fs.copyFileSync(path.join(v.dir, f), path.join(dir, f));
        const r = cli(['index', dir, '--fold', fold, '--json']);
        expect(r.code, r.stderr).toBe(0);
        const doc = JSON.parse(r.stdout);
        expect(doc.path).toBe(path.join(dir, `${fold}.taridx`));
        expect(sha256(fs.readFileSync(doc.path))).toBe(sha256(fs.readFileSync(v.target)));
        const other = path.join(dir, 'elsewhere.taridx');
        expect(cli(['index', dir, '--fold', fold, '-o', other]).code).toBe(0);
        expect(sha256(fs.readFileSync(other))).toBe(sha256(fs.readFileSync(v.target)));

        // The converter finds no input (an I/O-class error, exit 2), and nothing is written.
        const none = cli(['index', dir, '--fold', 'no_such_fold']);
        expect(none.code).toBe(2);
        expect(none.stderr).toContain('no shards named no_such_fold_*.tar');
        expect(fs.existsSync(path.join(dir, 'no_such_fold.taridx'))).toBe(false);
      });

      it(`${v.name}: get lists members and returns each payload with the expected sha256`, () => {
        type Member = { ext: string; size: number; sha256: string };
        const samples = (
          v.expected.samples as Array<{ stem: string; crashid: number; members: Member[] }>
        ).filter((s) => s.stem && !s.stem.startsWith('@') && !/[^\x20-\x7e]/.test(s.stem));
        expect(samples.length).toBeGreaterThan(0);
        const dir = fresh(`get-${v.name}`);
        for (const sample of samples.slice(0, 4)) {
          const list = cli(['get', v.target, sample.stem, '--json']);
          expect(list.code, list.stderr).toBe(0);
          // Today's shape: the index, then the record as `head` prints it ({key, crashid, members}).
          const doc = JSON.parse(list.stdout);
          expect(doc).toMatchObject({
            index: v.target,
            key: sample.stem,
            found: true,
            crashid: sample.crashid,
          });
          expect(doc.members.map((m: Member) => m.ext)).toEqual(sample.members.map((m) => m.ext));
          for (const member of sample.members.slice(0, 3).filter((m) => m.ext !== '')) {
            const first = sample.members.find((m) => m.ext === member.ext)!;
            const out = cli(['get', v.target, sample.stem, '--ext', member.ext]);
            expect(out.code, out.stderr).toBe(0);
            expect(sha256(out.stdoutBytes)).toBe(first.sha256);
            const file = path.join(dir, `${sample.stem}.${member.ext}`);
            // --force: a sample may hold two members with one extension, saved to one file in turn.
            const saved = cli([
              'get',
              v.target,
              sample.stem,
              '--ext',
              member.ext,
              '-o',
              file,
              '--json',
              '--force',
            ]);
            expect(saved.code, saved.stderr).toBe(0);
            expect(JSON.parse(saved.stdout)).toMatchObject({
              output: file,
              sha256: first.sha256,
              size: first.size,
            });
            expect(sha256(fs.readFileSync(file))).toBe(first.sha256);
          }
        }
        const missing = cli(['get', v.target, 'no-such-key-anywhere']);
        expect(missing.code).toBe(1);
        expect(missing.stdout).toBe('');
        expect(missing.stderr).toContain('no record with key');
        const noExt = cli(['get', v.target, samples[0].stem, '--ext', 'nosuchext']);
        expect(noExt.code).toBe(1);
        const shardsElsewhere = cli(['get', v.target, samples[0].stem, '--shards', '/no/such/dir']);
        expect(shardsElsewhere.code).toBe(2);
      });
    }

    it('get refuses a file that is not an index, exit 1', () => {
      const v = validVectors('taridx')[0];
      const tar = fs.readdirSync(v.dir).find((f) => f.endsWith('.tar'))!;
      const r = cli(['get', path.join(v.dir, tar), 'x']);
      expect(r.code).toBe(1);
      // A shard is read through its index: the entry's own advice says so.
      expect(r.stderr).toContain('tar shard (container)');
      expect(r.stderr).toContain('binscope index');
    });
  });
});

describe('demo', () => {
  it('writes a sample of every format, then detects and describes each', () => {
    const dir = path.join(scratch.dir, 'demo');
    const r = cli(['demo', dir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      dir: string;
      files: Array<{ path: string; format: string | null; info?: Record<string, unknown> }>;
    };
    expect(doc.dir).toBe(dir);
    const formats = doc.files.map((f) => f.format);
    for (const id of ['scbf', 'udf', 'mldf', 'taridx', 'scdl', 'tar']) expect(formats).toContain(id);
    for (const f of doc.files.filter((x) => x.format !== 'tar')) {
      expect(f.info).toMatchObject({ format: f.format });
      expect(Object.keys(f.info!.counts as object).length).toBeGreaterThan(0);
    }
    // Everything the project's own writers made is valid.
    const paths = doc.files.filter((x) => x.format !== 'tar').map((f) => f.path);
    const v = cli(['validate', '--json', '--deep', ...paths]);
    expect(v.code, v.stdout).toBe(0);

    // The folder now holds the samples: writing them again takes --force.
    expect(cli(['demo', dir]).code).toBe(2);
    const human = cli(['demo', dir, '--force']);
    expect(human.code).toBe(0);
    for (const f of doc.files) expect(human.stdout).toContain(`${f.path}: ${f.format}`);
  });

  it('without DIR writes into a new temp folder and says where', () => {
    const r = cli(['demo']);
    expect(r.code, r.stderr).toBe(0);
    const dir = /sample files in (.+)\n/.exec(r.stdout)?.[1];
    expect(dir).toBeDefined();
    expect(fs.existsSync(path.join(dir!, 'measurements.scbf'))).toBe(true);
    fs.rmSync(dir!, { recursive: true, force: true });
  });
});

describe('get on a shard rewritten after indexing', () => {
  it('refuses the member whose tar header no longer names the key, exit 1, nothing on stdout', () => {
    const dir = fresh('taridx-rewritten');
    const enc = new TextEncoder();
    const tar = tarBytes([
      { name: 'k1.jpg', data: new Uint8Array(700).fill(1) },
      { name: 'k1.json', data: enc.encode('{"k":1}') },
      { name: 'k2.jpg', data: new Uint8Array(10).fill(2) },
    ]);
    fs.writeFileSync(path.join(dir, 'f_0000.tar'), tar);
    expect(cli(['index', dir, '--fold', 'f']).code).toBe(0);
    const index = path.join(dir, 'f.taridx');
    expect(cli(['get', index, 'k1', '--ext', 'json']).stdout).toBe('{"k":1}');
    // Same length, same place: k1.json becomes k9.json (header at 512 + 1024).
    const edited = tar.slice();
    edited[1536 + 1] = '9'.charCodeAt(0);
    fs.writeFileSync(path.join(dir, 'f_0000.tar'), edited);
    const r = cli(['get', index, 'k1', '--ext', 'json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/stem "k9" is not the sample's key \(the shard changed after indexing\?\)/);
  });
});
