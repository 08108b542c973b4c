import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemorySource } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { encodeScbf, extensionsOf, openScbf, splitNulls, validateScbf } from '../src/index.js';
import { jsonRows, whereRows } from './helpers.js';
import { csvToScbf, nullableScbfFile, scbfToCsv } from '../src/node.js';

const src = (bytes: Uint8Array) => new MemorySource(bytes, 'n.scbf');

/** Rows as the CLI prints them (records through recordToJson). */
async function records(bytes: Uint8Array) {
  return jsonRows(await openScbf(src(bytes)));
}

describe('null bitmaps (extension kind 3)', () => {
  it('nulls read back as null; the block holds 0, which extension-unaware readers see', async () => {
    const { columns, nulls } = splitNulls([
      { name: 'n', type: 'int32', values: [5, null, -3, null] },
      { name: 'x', type: 'float64', values: [null, 1.5, 2.5, 3.5] },
      { name: 's', type: 'utf8', values: ['a', '', 'c', 'd'] },
    ]);
    const bytes = await encodeScbf(columns, { extensions: { nulls } });
    expect(await records(bytes)).toEqual([
      { n: 5, x: null, s: 'a' },
      { n: null, x: 1.5, s: '' },
      { n: -3, x: 2.5, s: 'c' },
      { n: null, x: 3.5, s: 'd' },
    ]);
    const reader = await openScbf(src(bytes));
    expect(Array.from((await reader.readColumn('n')) as Int32Array)).toEqual([5, 0, -3, 0]);
    const stats = (await extensionsOf(reader))!.statistics!;
    expect(stats[0]).toMatchObject({ nullCount: 2, min: -3, max: 5 });
    expect(stats[1]).toMatchObject({ nullCount: 1, min: 1.5, max: 3.5 });
    expect((await validateScbf(reader.source)).errors).toEqual([]);
    const hits = [];
    for await (const r of whereRows(reader, 'n <= 5')) hits.push(r.n);
    expect(hits).toEqual([5, -3]);
  });

  it('a bitmap for a utf8 column or of the wrong length is refused', async () => {
    const bad = await encodeScbf([{ name: 's', type: 'utf8', values: ['a'] }], {
      extensions: { nulls: new Map([[0, new Uint8Array([1])]]) },
    });
    expect((await validateScbf(src(bad))).errors[0].code).toBe('SchemaMismatch');
    const short = await encodeScbf([{ name: 'n', type: 'int32', values: new Array(9).fill(0) }], {
      extensions: { nulls: new Map([[0, new Uint8Array([1])]]) },
    });
    expect((await validateScbf(src(short))).errors[0].code).toBe('CountMismatch');
  });

  it('CSV with empty numeric cells → SCBF with nulls → CSV is byte-identical', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scbf-nulls-'));
    try {
      const text = 'id,score,name,empty\n1,2.5,a,\n,,b,\n3,,"c,d",\n-4,0.0,,\n';
      const csv = path.join(dir, 'in.csv');
      fs.writeFileSync(csv, text);
      const scbf = path.join(dir, 'out.scbf');
      const result = await csvToScbf(csv, scbf);
      expect(result.columns.map((c) => c.type)).toEqual(['utf8', 'utf8', 'utf8', 'utf8']);
      const { nullColumns } = await nullableScbfFile(scbf, scbf);
      expect(nullColumns).toEqual(['id', 'score']);
      const reader = await openScbf(src(new Uint8Array(fs.readFileSync(scbf))));
      expect(reader.columns.map((c) => c.type)).toEqual(['int32', 'float64', 'utf8', 'utf8']);
      expect((await records(new Uint8Array(fs.readFileSync(scbf))))[1]).toEqual({
        id: null,
        score: null,
        name: 'b',
        empty: '',
      });
      const back = path.join(dir, 'back.csv');
      await scbfToCsv(scbf, back);
      expect(fs.readFileSync(back, 'utf8')).toBe(text);
      // Running it again keeps the nulls it already found.
      await nullableScbfFile(scbf, scbf);
      await scbfToCsv(scbf, back);
      expect(fs.readFileSync(back, 'utf8')).toBe(text);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
