import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemorySource } from '@binscope/core';
import { expectSameBytes } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import {
  dictionaryColumns,
  encodeScbf,
  extensionsOf,
  openScbf,
  scbfPlugin,
  scbfToCsvChunks,
  validateScbf,
} from '../src/index.js';
import { jsonRows, whereRows } from './helpers.js';
import { csvToScbf, rewriteScbfFile, scbfToCsv } from '../src/node.js';

const src = (bytes: Uint8Array) => new MemorySource(bytes, 'd.scbf');

/** Rows as the CLI prints them (records through recordToJson). */
async function records(bytes: Uint8Array) {
  return jsonRows(await openScbf(src(bytes)));
}

const colours = ['red', 'green', 'red', 'blue', 'red', 'green', 'blue', 'red'];
const rows = [...colours, ...colours];

async function encoded() {
  const { columns, dictionaries } = dictionaryColumns([
    { name: 'id', values: Int32Array.from(rows, (_, i) => i) },
    { name: 'colour', type: 'utf8', values: rows },
    { name: 'unique', type: 'utf8', values: rows.map((c, i) => `${c}${i}`) },
  ]);
  return { bytes: await encodeScbf(columns, { extensions: { dictionaries } }), dictionaries };
}

describe('dictionary encoding (extension kind 4)', () => {
  it('encodes only utf8 columns with few distinct values, codes in first-appearance order', async () => {
    const { bytes, dictionaries } = await encoded();
    expect([...dictionaries]).toEqual([[1, ['red', 'green', 'blue']]]);
    const reader = await openScbf(src(bytes));
    expect(reader.columns.map((c) => c.type)).toEqual(['int32', 'int32', 'utf8']);
    // What an extension-unaware reader sees: the codes.
    expect(Array.from((await reader.readColumn('colour')) as Int32Array)).toEqual([
      0, 1, 0, 2, 0, 1, 2, 0, 0, 1, 0, 2, 0, 1, 2, 0,
    ]);
    expect((await records(bytes)).map((r) => r.colour)).toEqual(rows);
    expect((await extensionsOf(reader))!.dictionaries!.get(1)).toEqual(['red', 'green', 'blue']);
  });

  it('info says so and validate warns that upstream readers cannot read the text', async () => {
    const { bytes } = await encoded();
    const reader = await openScbf(src(bytes));
    const info = await scbfPlugin.info!(reader);
    const extensions = info.properties.find(([k]) => k === 'extensions')![1] as string;
    expect(extensions).toMatch(/dictionary encoding \(colour: .*upstream/);
    const stats = info.properties.find(([k]) => k === 'stats colour')![1] as string;
    expect(stats).toMatch(/^dictionary of 3 strings \(min "blue", max "red"\)/);
    const report = await validateScbf(src(bytes));
    expect(report.errors).toEqual([]);
    expect(report.warnings.map((w) => w.code)).toEqual(['DictionaryEncoded']);
  });

  it('a code past its dictionary is OutOfBounds in validate and in records', async () => {
    const bytes = await encodeScbf([{ name: 'c', type: 'int32', values: Int32Array.of(0, 1, 3) }], {
      extensions: { dictionaries: new Map([[0, ['a', 'b', 'c']]]) },
    });
    const report = await validateScbf(src(bytes));
    expect(report.errors.map((e) => e.code)).toEqual(['OutOfBounds']);
    expect(report.errors[0].message).toMatch(/row 2: code 3/);
    await expect(records(bytes)).rejects.toMatchObject({ code: 'OutOfBounds' });
  });

  it('a dictionary for a utf8 column is refused', async () => {
    const bytes = await encodeScbf([{ name: 's', type: 'utf8', values: ['a'] }], {
      extensions: { dictionaries: new Map([[0, ['a']]]) },
    });
    expect((await validateScbf(src(bytes))).errors[0].code).toBe('SchemaMismatch');
  });

  it('cat --where compares the strings and skips by the dictionary range', async () => {
    const { bytes } = await encoded();
    const reader = await openScbf(src(bytes));
    const ids = [];
    for await (const r of whereRows(reader, "colour = 'red'")) ids.push(r.id);
    expect(ids).toEqual([0, 2, 4, 7, 8, 10, 12, 15]);
    let skipped = false;
    for await (const _ of whereRows(reader, "colour > 'zebra'", { onSkip: () => (skipped = true) }))
      throw new Error('no row can match');
    expect(skipped).toBe(true);
  });

  it('CSV → SCBF with --dictionary auto (and nulls) → CSV is byte-identical', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scbf-dict-'));
    try {
      const lines = ['id,kind,score,note'];
      for (let i = 0; i < 40; i++)
        lines.push(`${i},${['cat', 'dog', '"x,y"', ''][i % 4]},${i % 5 === 0 ? '' : `${i}.5`},n${i}`);
      const text = `${lines.join('\n')}\n`;
      const csv = path.join(dir, 'in.csv');
      fs.writeFileSync(csv, text);
      const scbf = path.join(dir, 'out.scbf');
      await csvToScbf(csv, scbf);
      const result = await rewriteScbfFile(scbf, scbf, { nulls: true, dictionary: 'auto' });
      expect(result).toEqual({ nullColumns: ['score'], dictionaryColumns: ['kind'] });
      const back = path.join(dir, 'back.csv');
      await scbfToCsv(scbf, back);
      expect(fs.readFileSync(back, 'utf8')).toBe(text);
      // A window of rows (cat --format csv --offset): nulls and codes are looked up by absolute row.
      const reader = await openScbf(src(new Uint8Array(fs.readFileSync(scbf))));
      let window = '';
      for await (const chunk of scbfToCsvChunks(reader, { offset: 13, limit: 6 })) window += chunk;
      expect(window).toBe(`${[lines[0], ...lines.slice(14, 20)].join('\n')}\n`);
      // A second rewrite decodes the dictionary first instead of encoding the codes again.
      await rewriteScbfFile(scbf, scbf, { dictionary: 'off' });
      const plain = await openScbf(src(new Uint8Array(fs.readFileSync(scbf))));
      expect(plain.columns.map((c) => c.type)).toEqual(['int32', 'utf8', 'float64', 'utf8']);
      await scbfToCsv(scbf, back);
      expect(fs.readFileSync(back, 'utf8')).toBe(text);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a rewrite deflates as asked (pythonZlib, level), as the CSV converter did', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scbf-dict-zlib-'));
    try {
      const file = path.join(dir, 'z.scbf');
      // Enough varied codes and numbers that node:zlib's and Python's deflate pick different matches.
      const many = Array.from({ length: 20_000 }, (_, i) => colours[((i * 7919) % 8) ^ ((i >> 5) % 8)]);
      const input = [
        { name: 'colour', type: 'utf8' as const, values: many },
        {
          name: 'n',
          type: 'int32' as const,
          values: Int32Array.from(many, (_, i) => (i * 2654435761) % 1000),
        },
      ];
      const { columns, dictionaries } = dictionaryColumns(input);
      for (const write of [{ pythonZlib: true }, { level: 0 }]) {
        fs.writeFileSync(file, await encodeScbf(input));
        await rewriteScbfFile(file, file, { dictionary: 'auto', ...write });
        const expected = await encodeScbf(columns, { ...write, extensions: { dictionaries } });
        expectSameBytes(fs.readFileSync(file), expected, file);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
