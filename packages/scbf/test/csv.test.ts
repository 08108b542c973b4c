import * as fs from 'node:fs';
import * as path from 'node:path';
import { isBinscopeError } from '@binscope/core';
import { NodeFileSource } from '@binscope/core/node';
import { tempDir, describeWith } from '@binscope/testkit';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cellText, csvLine } from '../src/csv.js';
import type { ScbfType } from '../src/layout.js';
import { csvToScbf, openScbfFile, scbfToCsv, writeCsv, writeScbfFile } from '../src/node.js';
import { openScbf } from '../src/plugin.js';
import type { Utf8Column } from '../src/utf8.js';
import { validateScbf } from '../src/plugin.js';
import type { ColumnInput } from '../src/write.js';
import { tableArbitrary, VECTORS_NEEDED, vectorCases } from './helpers.js';

let tmp: { dir: string; remove: () => void };
beforeEach(() => {
  tmp = tempDir('scbf-csv-');
});
afterEach(() => tmp.remove());

const file = (name: string) => path.join(tmp.dir, name);

/** The S8 CSV of a table, written independently of the converter. */
function toCsv(columns: ColumnInput[]): string {
  let out = csvLine(columns.map((c) => c.name));
  const rows = columns[0]?.values.length ?? 0;
  for (let r = 0; r < rows; r++) out += csvLine(columns.map((c) => cellText(c.values[r], c.type!)));
  return out;
}

async function roundTrip(csv: string | Buffer, types?: readonly ScbfType[]) {
  fs.writeFileSync(file('in.csv'), csv);
  const result = await csvToScbf(file('in.csv'), file('out.scbf'), { types });
  await scbfToCsv(file('out.scbf'), file('back.csv'));
  return { result, back: fs.readFileSync(file('back.csv')) };
}

describeWith(VECTORS_NEEDED, 'vector CSVs', () => {
  for (const testCase of vectorCases()) {
    it(`${testCase.name}: CSV → SCBF → CSV is byte-identical and keeps the schema`, async () => {
      const types = testCase.expected.types_given_explicitly
        ? (testCase.expected.header as { schema: { columns: { type: ScbfType }[] } }).schema.columns.map(
            (c) => c.type,
          )
        : undefined;
      const { result, back } = await roundTrip(fs.readFileSync(testCase.csv), types);
      expect(back.equals(fs.readFileSync(testCase.csv))).toBe(true);
      const reader = await openScbfFile(file('out.scbf'));
      expect(reader.header.schemaJson).toBe(
        (testCase.expected.header as { schema_json: string }).schema_json,
      );
      expect(result.rows).toBe(reader.rowCount);
      await reader.close();
      expect((await validateScbf(NodeFileSource.open(file('out.scbf')))).valid).toBe(true);
    });

    it(`${testCase.name}: with pythonZlib, CSV → SCBF and the array writer give the upstream file byte for byte`, async () => {
      const types = (
        testCase.expected.header as { schema: { columns: { type: ScbfType }[] } }
      ).schema.columns.map((c) => c.type);
      const upstream = fs.readFileSync(testCase.scbf);
      await csvToScbf(testCase.csv, file('py.scbf'), { types, pythonZlib: true });
      expect(fs.readFileSync(file('py.scbf')).equals(upstream)).toBe(true);
      const reader = await openScbfFile(testCase.scbf);
      const values = await reader.readColumns();
      const columns = reader.columns.map((c, i) => ({
        name: c.name,
        type: types[i],
        values: (values[c.name] instanceof Int32Array || values[c.name] instanceof Float64Array
          ? values[c.name]
          : (values[c.name] as Utf8Column).toArray()) as ColumnInput['values'],
      }));
      await reader.close();
      await writeScbfFile(file('py2.scbf'), columns, { pythonZlib: true });
      expect(fs.readFileSync(file('py2.scbf')).equals(upstream)).toBe(true);
    });
  }
});

/** A CSV as a stream cut into pieces of `size` bytes, so records, quotes, CRLF and UTF-8 straddle pieces. */
async function* pieces(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let pos = 0; pos < bytes.byteLength; pos += size) yield bytes.subarray(pos, pos + size);
}

describe('CSV parsing (papaparse, fed in pieces)', () => {
  const cases: [string, string[][]][] = [
    ['a,b\n1,2\n', [['1', '2']]],
    ['a,b\n1,2', [['1', '2']]],
    ['a\n\n', [['']]],
    ['a\n""\n""\n', [[''], ['']]],
    ['a\r\n1\r\n"x\r\ny"\r\n', [['1'], ['x\r\ny']]],
    ['"h\nx"\r\nc\r\n', [['c']]],
    ['a\r1\r', [['1']]],
    ['a,b\n"x\ny",\n', [['x\ny', '']]],
    ['a,b\n"",""\n', [['', '']]],
    ['a\n"q""q"\n""""\n', [['q"q'], ['"']]],
    ['a\n" x"\n', [[' x']]],
    ['a\né,😀\n'.replace(',', ''), [['é😀']]],
    ['a\n\ufeffx\n', [['\ufeffx']]],
    ['x,y\n"a,b","c\nd"\n', [['a,b', 'c\nd']]],
  ];
  for (const size of [1, 2, 3, 1 << 20]) {
    it(`reads records split anywhere (pieces of ${size} bytes)`, async () => {
      for (const [csv, expected] of cases) {
        const result = await csvToScbf(pieces(csv, size), file('p.scbf'), { types: undefined });
        const reader = await openScbfFile(file('p.scbf'));
        const rows: string[][] = [];
        for await (const row of reader.rows()) rows.push(Object.values(row).map(String));
        await reader.close();
        expect(rows, JSON.stringify(csv)).toEqual(expected);
        expect(result.rows).toBe(expected.length);
      }
    });
  }

  it('keeps a BOM as part of the first header name, as the bytes say', async () => {
    const result = await csvToScbf(pieces('\ufeffa\n1\n', 1), file('bom.scbf'));
    expect(result.columns[0].name).toBe('\ufeffa');
  });

  it('rejects malformed quoting, as RFC 4180 does, wherever the pieces are cut', async () => {
    for (const size of [1, 3, 1 << 20]) {
      for (const csv of ['a,b\n1,a"b\n', 'a\nx"\n', 'a,b\n1,"a"b\n', 'a,b\n1,"a" ,c\n', 'a,b\n1,"2\n']) {
        const error = await csvToScbf(pieces(csv, size), file('q.scbf')).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isBinscopeError(error, 'FormatError'), `${JSON.stringify(csv)} in pieces of ${size}`).toBe(
          true,
        );
        expect(String((error as Error).message)).toMatch(/quote/i);
      }
    }
  });
});

describe('CSV → SCBF: an unterminated quote', () => {
  const unclosed = () => {
    const head = 'a,b\n1,2\n3,';
    // Many lines after the open quote: the old parser read them again for every chunk.
    const csv = `${head}"never closed\n${'x,y\n'.repeat(1 << 20)}`;
    return { csv, quoteAt: Buffer.byteLength(head) };
  };

  it('is reported at the byte where the quote opened, read in one pass', async () => {
    const { csv, quoteAt } = unclosed();
    fs.writeFileSync(file('open.csv'), csv);
    const error = await csvToScbf(file('open.csv'), file('open.scbf')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBinscopeError(error, 'FormatError'), String(error)).toBe(true);
    expect(error).toMatchObject({ code: 'InvalidValue', offset: quoteAt, file: 'open.csv' });
    expect(String((error as Error).message)).toMatch(
      new RegExp(`row 3: unterminated quote.*opened at byte ${quoteAt} `),
    );
    expect(fs.readdirSync(tmp.dir)).toEqual(['open.csv']);
  });

  it('stops once the open field passes maxRecordBytes, holding no more than that', async () => {
    const { csv, quoteAt } = unclosed();
    const error = await csvToScbf(pieces(csv, 4096), file('open.scbf'), { maxRecordBytes: 1 << 16 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'InvalidValue', offset: quoteAt });
    expect(String((error as Error).message)).toMatch(
      new RegExp(`opened at byte ${quoteAt} is still open after \\d+ bytes`),
    );
  });
});

describe('CSV → SCBF → CSV', () => {
  it('is byte-identical for property-generated tables (S7 inference)', async () => {
    await fc.assert(
      fc.asyncProperty(tableArbitrary({ maxRows: 30 }), async (columns) => {
        const csv = toCsv(columns);
        const { back } = await roundTrip(csv);
        expect(back.toString('utf8')).toBe(csv);
      }),
      { numRuns: 120, seed: 31 },
    );
  });

  it('is byte-identical with explicit types, and keeps them', async () => {
    await fc.assert(
      fc.asyncProperty(tableArbitrary({ maxRows: 30 }), async (columns) => {
        const csv = toCsv(columns);
        const types = columns.map((c) => c.type!);
        const { back, result } = await roundTrip(csv, types);
        expect(result.columns.map((c) => c.type)).toEqual(types);
        expect(back.toString('utf8')).toBe(csv);
      }),
      { numRuns: 80, seed: 32 },
    );
  });

  it('turns a numeric start into text when a later cell is not numeric (across chunks)', async () => {
    const rows = 200_000;
    let csv = 'i,f,late\n';
    for (let r = 0; r < rows; r++)
      csv += `${r - 5},${cellText(r / 7, 'float64')},${r === rows - 1 ? 'x' : r}\n`;
    csv += '7,1.5e+20,\n';
    const { back, result } = await roundTrip(csv);
    expect(result.columns.map((c) => c.type)).toEqual(['int32', 'float64', 'utf8']);
    expect(back.toString()).toBe(csv);
    const reader = await openScbfFile(file('out.scbf'));
    const late = (await reader.readColumn('late')) as Utf8Column;
    expect(late.get(0)).toBe('0');
    expect(late.get(rows - 1)).toBe('x');
    expect(late.get(rows)).toBe('');
    await reader.close();
  });

  it('does not mistake non-canonical numbers for numbers', async () => {
    for (const [csv, type] of [
      ['a\n1\n01\n', 'utf8'],
      ['a\n1.0\n1\n', 'utf8'],
      ['a\n1.50\n', 'utf8'],
      ['a\n-0\n', 'utf8'],
      ['a\n-0.0\n1e-05\n', 'float64'],
      ['a\n2147483648\n', 'utf8'],
      ['a\n-2147483648\n', 'int32'],
      ['a\nnan\n', 'utf8'],
      ['a\n""\n', 'utf8'],
    ] as const) {
      const { back, result } = await roundTrip(csv);
      expect(result.columns[0].type, csv).toBe(type);
      expect(back.toString(), csv).toBe(csv);
    }
  });

  it('writes zero-row CSVs as utf8 columns unless types are given', async () => {
    const { result, back } = await roundTrip('a,b\n');
    expect(result.columns).toEqual([
      { name: 'a', type: 'utf8' },
      { name: 'b', type: 'utf8' },
    ]);
    expect(back.toString()).toBe('a,b\n');
    const typed = await roundTrip('a,b\n', ['int32', 'float64']);
    expect(typed.result.columns.map((c) => c.type)).toEqual(['int32', 'float64']);
  });

  it('reads explicit types leniently, as Python int()/float() would', async () => {
    fs.writeFileSync(file('t.csv'), 'n,x\n007,1e3\n+5,inf\n');
    await csvToScbf(file('t.csv'), file('t.scbf'), { types: { n: 'int32', x: 'float64' } });
    const reader = await openScbfFile(file('t.scbf'));
    expect(Array.from((await reader.readColumn('n')) as Int32Array)).toEqual([7, 5]);
    expect(Array.from((await reader.readColumn('x')) as Float64Array)).toEqual([
      1000,
      Number.POSITIVE_INFINITY,
    ]);
    await reader.close();
  });

  it('takes a stream as input', async () => {
    async function* chunks() {
      yield 'a,b\n1,x\n';
      yield new TextEncoder().encode('2,"y,');
      yield 'z"\n';
    }
    await csvToScbf(chunks(), file('s.scbf'));
    const reader = await openScbfFile(file('s.scbf'));
    const rows = [];
    for await (const r of reader.rows()) rows.push(r);
    expect(rows).toEqual([
      { a: 1, b: 'x' },
      { a: 2, b: 'y,z' },
    ]);
    const out: string[] = [];
    const sink = {
      write: (c: string) => {
        out.push(c);
        return true;
      },
      once: () => {},
    };
    await writeCsv(reader, sink as unknown as NodeJS.WritableStream);
    expect(out.join('')).toBe('a,b\n1,x\n2,"y,z"\n');
    await reader.close();
  });
});

describe('bad CSV input and failed writes', () => {
  const expectFails = async (csv: string, pattern: RegExp, options = {}) => {
    fs.writeFileSync(file('bad.csv'), csv);
    fs.writeFileSync(file('bad.scbf'), 'previous');
    const error = await csvToScbf(file('bad.csv'), file('bad.scbf'), options).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBinscopeError(error, 'FormatError'), String(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(pattern);
    // The target is untouched and no temp file or spill folder is left.
    expect(fs.readFileSync(file('bad.scbf'), 'utf8')).toBe('previous');
    expect(fs.readdirSync(tmp.dir).sort()).toEqual(['bad.csv', 'bad.scbf']);
  };

  it('reports ragged rows, bad quoting, empty input, explicit-type mismatches', async () => {
    await expectFails('a,b\n1,2\n3\n', /fields|Invalid Record Length/i);
    await expectFails('a,b\n1,"2\n', /quote/i);
    await expectFails('', /no header row/);
    await expectFails('a\nx\n', /"x" is not an int32/, { types: { a: 'int32' } });
    await expectFails('a\n1\n', /does not have/, { types: { b: 'int32' } });
    await expectFails('a\n1\n', /2 types given for 1 columns/, { types: ['int32', 'utf8'] });
  });

  it('fails clearly where the output cannot be written, leaving nothing', async () => {
    const target = '/proc/self/scbf-cannot-write.scbf';
    fs.writeFileSync(file('ok.csv'), 'a\n1\n');
    const error = await csvToScbf(file('ok.csv'), target).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBinscopeError(error, 'SourceError'), String(error)).toBe(true);
    expect(String((error as Error).message)).toContain(target);
    const writeError = await writeScbfFile(path.join(tmp.dir, 'missing-dir', 'x.scbf'), [
      { name: 'a', values: [1] },
    ]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBinscopeError(writeError, 'SourceError')).toBe(true);
  });

  it('writes paths atomically and reads them back', async () => {
    await writeScbfFile(file('w.scbf'), [{ name: 'a', values: Int32Array.of(1, 2) }]);
    const reader = await openScbf(NodeFileSource.open(file('w.scbf')));
    expect(Array.from((await reader.readColumn('a')) as Int32Array)).toEqual([1, 2]);
    await reader.close();
    expect(fs.readdirSync(tmp.dir)).toEqual(['w.scbf']);
  });
});
