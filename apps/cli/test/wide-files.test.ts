import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemorySource, toPlainTree } from '@binscope/core';
import { writeMldfFile } from '@binscope/mldf/node';
import { inspectScbf, openScbf } from '@binscope/scbf';
import { writeScbfFile } from '@binscope/scbf/node';
import { tempDir } from '@binscope/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, STACK_LINE } from './helpers.js';

/**
 * Nothing a file sets (a column count, a nesting depth) reaches the call stack: no spread of a
 * file-sized list into an argument list, no recursion as deep as a file says.
 */
const COLUMNS = 150_000;
const scratch = tempDir('binscope-cli-wide-');
const wide = path.join(scratch.dir, 'wide.scbf');

beforeAll(async () => {
  const values = Int32Array.of(1, 2, 3);
  await writeScbfFile(
    wide,
    Array.from({ length: COLUMNS }, (_, i) => ({ name: `c${i}`, type: 'int32' as const, values })),
  );
}, 300_000);
afterAll(() => scratch.remove());

describe(`an SCBF file of ${COLUMNS.toLocaleString('en-US')} columns that binscope wrote`, () => {
  it('inspect --json and inspect print its tree', () => {
    const json = cli(['inspect', '--json', wide]);
    expect(json.stderr).not.toMatch(/call stack/);
    expect(json.code, json.stderr).toBe(0);
    const tree = JSON.parse(json.stdout) as {
      value: string;
      children: { name: string; childCount?: number }[];
    };
    expect(tree.value).toBe(`SCBF, 3 rows × ${COLUMNS} columns`);
    expect(tree.children.find((c) => c.name === 'column data')?.childCount).toBe(COLUMNS);
    const text = cli(['inspect', wide]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/column data/);
    expect(text.stderr).not.toMatch(STACK_LINE);
  }, 300_000);

  it('the whole tree, made plain for JSON, spans every column', async () => {
    const bytes = fs.readFileSync(wide);
    const reader = await openScbf(new MemorySource(bytes, 'wide.scbf'));
    const plain = toPlainTree(inspectScbf(reader));
    const data = plain.children?.find((c) => c.name === 'column data');
    expect(data?.children).toHaveLength(COLUMNS);
    expect(data?.offset).toBe(reader.columns[0].blocks[0].offset);
    expect(JSON.stringify(plain).length).toBeGreaterThan(COLUMNS * 100);
  }, 300_000);
});

describe('JSON nested deeper than any upstream writer makes', () => {
  it('is an InvalidValue naming the depth, not a stack overflow, in records and their printing', async () => {
    const deep = path.join(scratch.dir, 'deep.mldf');
    const depth = 200_000;
    // The writer stringifies values, so it cannot make such JSON: a string of the same length
    // ("xx…x" in quotes) is written, then its bytes are replaced by [[…]].
    const placeholder = 'x'.repeat(2 * depth - 2);
    await writeMldfFile(deep, [{ name: 'meta', type: 'JSON' }], [{ meta: placeholder }]);
    const bytes = fs.readFileSync(deep);
    const at = bytes.indexOf(`"${placeholder}"`);
    expect(at).toBeGreaterThan(0);
    bytes.fill('[', at, at + depth).fill(']', at + depth, at + 2 * depth);
    fs.writeFileSync(deep, bytes);
    const run = cli(['head', '--format', 'jsonl', deep]);
    expect(run.stderr).not.toMatch(/call stack/);
    expect(run.stderr).toMatch(/InvalidValue.*nested deeper than 1000 levels/);
    expect(run.code).toBe(1);
  }, 120_000);
});
