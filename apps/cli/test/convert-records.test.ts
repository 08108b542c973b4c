import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConverterInfo } from '@binscope/core';
import { tempDir } from '@binscope/testkit';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { addConverterOptions, converterValues } from '../src/convert-options.js';
import { BUILT, cli, REPO } from './helpers.js';

// Records of any format → SCBF and → MLDF through the built CLI: the `*` converters are
// picked by the output's extension, their refusals reach the user, and nothing half-written
// is left behind.

const scratch = tempDir('binscope-cli-records-');
afterAll(() => scratch.remove());
const basic = path.join(REPO, '../shared/vectors/scbf/basic/basic.scbf');
const out = (name: string) => path.join(scratch.dir, name);
const lines = (file: string) =>
  cli(['cat', file])
    .stdout.trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe.runIf(BUILT && fs.existsSync(basic))('binscope convert: records → SCBF / MLDF', () => {
  it('SCBF → MLDF → SCBF: the sample position needs --cast, then every row comes back', () => {
    const toMldf = cli(['convert', basic, out('basic.mldf')]);
    expect(toMldf.stderr).toContain('wrote');
    expect(toMldf.code).toBe(0);
    const refused = cli(['convert', out('basic.mldf'), out('back.scbf')]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('UnsupportedFeature: column "sample" (uint64)');
    expect(refused.stderr).toContain('pass --cast');
    expect(fs.existsSync(out('back.scbf'))).toBe(false);
    const cast = cli(['convert', out('basic.mldf'), out('back.scbf'), '--cast']);
    expect(cast.code, cast.stderr).toBe(0);
    const original = lines(basic);
    expect(original.length).toBeGreaterThan(0);
    expect(lines(out('back.scbf'))).toEqual(original.map((row, sample) => ({ sample, ...row })));
  });

  it('nulls are refused without --nulls and kept with it', () => {
    fs.writeFileSync(out('n.csv'), 'id,x\n1,2.5\n2,\n3,4.5\n');
    expect(cli(['convert', out('n.csv'), out('n.scbf'), '--nulls']).code).toBe(0);
    const refused = cli(['convert', out('n.scbf'), out('n2.scbf')]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('column "x" (float64) row 1 is null');
    expect(fs.existsSync(out('n2.scbf'))).toBe(false);
    expect(cli(['convert', out('n.scbf'), out('n2.scbf'), '--nulls']).code).toBe(0);
    expect(lines(out('n2.scbf'))).toEqual([
      { id: 1, x: 2.5 },
      { id: 2, x: null },
      { id: 3, x: 4.5 },
    ]);
  });
});

describe('a converter option several conversions declare', () => {
  const converter = (id: string, choices: string[]): ConverterInfo => ({
    specificationVersion: 2,
    id,
    from: '*',
    to: id,
    title: `to ${id}`,
    output: 'file',
    extensions: [id],
    options: [{ name: 'images', type: 'string', choices, description: `${id} images` }],
    load: () => Promise.reject(new Error('not loaded')),
  });
  const all = [converter('a', ['raw', 'bytes']), converter('b', ['struct', 'png'])];
  const parse = (args: string[]) => {
    const cmd = new Command().exitOverride();
    addConverterOptions(cmd, all);
    cmd.parse(args, { from: 'user' });
    return cmd.opts();
  };

  it("takes every declarer's choices, and each converter checks its own", () => {
    expect(converterValues(all[0], all, parse(['--images', 'bytes']))).toEqual({ images: 'bytes' });
    expect(converterValues(all[1], all, parse(['--images', 'png']))).toEqual({ images: 'png' });
    expect(() => converterValues(all[0], all, parse(['--images', 'png']))).toThrow(
      '--images png: to a takes raw, bytes',
    );
    expect(() => parse(['--images', 'jpeg'])).toThrow();
  });
});
