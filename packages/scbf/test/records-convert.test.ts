import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import {
  type Field,
  FormatError,
  fileTarget,
  MemorySource,
  type OptionValues,
  type RecordsInput,
  recordsInput,
  recordToJson,
  type Value,
} from '@binscope/core';
import { convertRecordsInMemory, syntheticRecords } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { recordsToScbfConverter, scbfConverters } from '../src/magic.js';
import { nullBitmaps } from '../src/nulls.js';
import { openScbf, scbfPlugin } from '../src/plugin.js';
import { vectorCases } from './helpers.js';

const synthetic = syntheticRecords;
const convert = (input: RecordsInput, values: OptionValues = {}) =>
  convertRecordsInMemory(recordsToScbfConverter, input, values);

const field = (name: string, type: Field['type'], nullable?: boolean): Field => ({
  name,
  type,
  ...(nullable ? { nullable } : {}),
});

async function readBack(bytes: Uint8Array) {
  const reader = await openScbf(new MemorySource(bytes, 'out.scbf'));
  const rows: Record<string, Value | undefined>[] = [];
  for await (const record of scbfPlugin.records(reader)) rows.push({ ...record.values });
  return { reader, rows, types: reader.columns.map((c) => c.type) };
}

/** The error a conversion fails with (it must fail). */
async function failure(input: RecordsInput, values: OptionValues = {}): Promise<FormatError> {
  const error = await convert(input, values).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FormatError);
  return error as FormatError;
}

describe('records → SCBF: declared', () => {
  it('takes any format and writes .scbf, listed in the package converters', () => {
    expect(recordsToScbfConverter).toMatchObject({
      from: '*',
      to: 'scbf',
      output: 'file',
      extensions: ['scbf'],
    });
    expect(scbfConverters).toContain(recordsToScbfConverter);
  });
});

describe('records → SCBF: every SCBF vector round-trips', () => {
  const hash = async (bytes: Uint8Array) => {
    const reader = await scbfPlugin.open(fileTarget(new MemorySource(bytes, 'x.scbf')));
    const h = createHash('sha256');
    let n = 0;
    for await (const record of scbfPlugin.records(reader)) {
      h.update(`${JSON.stringify(await recordToJson(reader.schema, record))}\n`);
      n++;
    }
    return { rows: n, digest: h.digest('hex'), schema: reader.schema.fields.map((f) => [f.name, f.type]) };
  };
  for (const vector of vectorCases()) {
    it(vector.name, async () => {
      const original = new Uint8Array(fs.readFileSync(vector.scbf));
      const reader = await scbfPlugin.open(fileTarget(new MemorySource(original, vector.scbf)));
      const { bytes, report } = await convert(recordsInput(scbfPlugin, reader, vector.scbf));
      const [before, after] = [await hash(original), await hash(bytes)];
      expect(after).toEqual(before);
      expect(before.rows).toBeGreaterThan(0);
      expect(report.details.rows).toBe(before.rows);
    });
  }
});

const every: Field[] = [
  field('i8', { kind: 'int', bits: 8, signed: true }),
  field('i16', { kind: 'int', bits: 16, signed: true }),
  field('i32', { kind: 'int', bits: 32, signed: true }),
  field('u8', { kind: 'int', bits: 8, signed: false }),
  field('u16', { kind: 'int', bits: 16, signed: false }),
  field('f16', { kind: 'float', bits: 16 }),
  field('f32', { kind: 'float', bits: 32 }),
  field('f64', { kind: 'float', bits: 64 }),
  field('s', { kind: 'string' }),
];
const everyRow = (i: number): Record<string, Value> => ({
  i8: -128 + i,
  i16: 32767 - i,
  i32: i === 0 ? -2147483648 : 2147483647,
  u8: 255 - i,
  u16: 65535 - i,
  f16: 0.5 + i,
  f32: Math.fround(0.1) * (i + 1),
  f64: i === 0 ? -0 : Number.NaN,
  s: i === 0 ? 'héllo, "wörld"' : '',
});

describe('records → SCBF: the type mapping', () => {
  it('small ints → int32, floats → float64 (exact widening), strings → utf8', async () => {
    const { bytes, report } = await convert(synthetic(every, everyRow, 2));
    const { rows, types } = await readBack(bytes);
    expect(types).toEqual([
      'int32',
      'int32',
      'int32',
      'int32',
      'int32',
      'float64',
      'float64',
      'float64',
      'utf8',
    ]);
    expect(rows).toEqual([everyRow(0), everyRow(1)]);
    expect(Object.is(rows[0].f64, -0)).toBe(true);
    expect(report.details).toMatchObject({ conversion: 'records→scbf', rows: 2 });
  });

  const refusedWithoutCast: [Field['type'], string][] = [
    [{ kind: 'int', bits: 64, signed: true }, 'int64'],
    [{ kind: 'int', bits: 32, signed: false }, 'uint32'],
    [{ kind: 'int', bits: 64, signed: false }, 'uint64'],
    [{ kind: 'bool' }, 'bool'],
    [{ kind: 'json' }, 'json'],
  ];
  for (const [type, name] of refusedWithoutCast)
    it(`${name} is refused without --cast, naming the column and its type`, async () => {
      const error = await failure(
        synthetic([field('ok', { kind: 'string' }), field('col', type)], () => ({}), 0),
      );
      expect(error.code).toBe('UnsupportedFeature');
      expect(error.message).toContain(`column "col" (${name})`);
      expect(error.message).toContain('--cast');
    });

  const neverStored: [Field['type'], string][] = [
    [{ kind: 'bytes', mediaType: 'image/png' }, 'bytes (image/png)'],
    [{ kind: 'image' }, 'image'],
    [{ kind: 'ndarray', dtype: 'f32', shape: [3] }, 'ndarray<f32>[3]'],
    [{ kind: 'list', items: { kind: 'int', bits: 32, signed: true } }, 'list<int32>'],
    [{ kind: 'struct', fields: [] }, 'struct'],
  ];
  for (const [type, name] of neverStored)
    it(`${name} is refused even with --cast`, async () => {
      const error = await failure(
        synthetic([field('col', type)], () => ({}), 0),
        { cast: true },
      );
      expect(error.code).toBe('UnsupportedFeature');
      expect(error.message).toContain(`column "col" (${name})`);
      expect(error.message).toContain('even with --cast');
    });

  it('a value that breaks its field type is an InvalidValue naming column and row', async () => {
    const input = synthetic(
      [field('n', { kind: 'int', bits: 16, signed: true })],
      (i) => ({ n: i ? 70000 : 1 }),
      2,
    );
    const error = await failure(input);
    expect(error.code).toBe('InvalidValue');
    expect(error.message).toContain('column "n" (int16) row 1: 70000 is not an int16');
  });
});

describe('records → SCBF: --cast', () => {
  const wide = (type: Field['type'], values: (number | bigint)[]) =>
    synthetic([field('w', type)], (i) => ({ w: values[i] }), values.length);
  const int64: Field['type'] = { kind: 'int', bits: 64, signed: true };
  const uint64: Field['type'] = { kind: 'int', bits: 64, signed: false };

  it('int64 values that all fit stay int32 (both ends of int32)', async () => {
    const { bytes } = await convert(wide(int64, [-2147483648n, 2147483647n, 0]), { cast: true });
    const { rows, types } = await readBack(bytes);
    expect(types).toEqual(['int32']);
    expect(rows.map((r) => r.w)).toEqual([-2147483648, 2147483647, 0]);
  });

  it('2^31 and -2^31-1 make the column float64, values exact', async () => {
    for (const edge of [2n ** 31n, -(2n ** 31n) - 1n]) {
      const { bytes } = await convert(wide(int64, [1n, edge]), { cast: true });
      const { rows, types } = await readBack(bytes);
      expect(types).toEqual(['float64']);
      expect(rows.map((r) => r.w)).toEqual([1, Number(edge)]);
    }
  });

  it('2^53 is exact as a double, 2^53+1 (a bigint) is refused naming column, row and value', async () => {
    const ok = await convert(wide(uint64, [2n ** 53n]), { cast: true });
    expect((await readBack(ok.bytes)).rows[0].w).toBe(2 ** 53);
    const error = await failure(wide(uint64, [5n, 2n ** 53n + 1n]), { cast: true });
    expect(error.code).toBe('InvalidValue');
    expect(error.message).toContain(
      'column "w" (uint64) row 1: 9007199254740993 is neither an int32 nor exactly a float64',
    );
  });

  it('uint32 above int32 becomes float64; bool → 0/1; json → its JSON text', async () => {
    const fields = [
      field('u', { kind: 'int', bits: 32, signed: false }),
      field('b', { kind: 'bool' }),
      field('j', { kind: 'json' }),
    ];
    const rowsIn = [
      { u: 4294967295, b: true, j: { a: [1, -0, 'x'] } },
      { u: 0, b: false, j: null },
    ];
    const { bytes } = await convert(
      synthetic(fields, (i) => rowsIn[i], 2),
      { cast: true },
    );
    const { rows, types } = await readBack(bytes);
    expect(types).toEqual(['float64', 'int32', 'utf8']);
    expect(rows).toEqual([
      { u: 4294967295, b: 1, j: '{"a":[1,-0.0,"x"]}' },
      { u: 0, b: 0, j: 'null' },
    ]);
  });
});

describe('records → SCBF: nulls', () => {
  const fields = [
    field('n', { kind: 'int', bits: 32, signed: true }, true),
    field('x', { kind: 'float', bits: 64 }, true),
  ];
  const rowsIn = [
    { n: 1, x: null },
    { n: null, x: 2.5 },
    { n: 3, x: 3.5 },
  ];
  const input = () => synthetic(fields, (i) => rowsIn[i], 3);

  it('are refused without --nulls, naming column and row and the flag', async () => {
    const error = await failure(input());
    expect(error.code).toBe('InvalidValue');
    expect(error.message).toContain('column "x" (float64) row 0 is null');
    expect(error.message).toContain('pass --nulls');
  });

  it('with --nulls become null bitmaps and read back as null', async () => {
    const { bytes, report } = await convert(input(), { nulls: true });
    const { reader, rows } = await readBack(bytes);
    expect(rows).toEqual(rowsIn);
    expect([...(await nullBitmaps(reader)).keys()].sort()).toEqual([0, 1]);
    expect(report.details.nullColumns).toEqual(['x', 'n']);
  });

  it('in a utf8 column are refused even with --nulls', async () => {
    const s = synthetic([field('s', { kind: 'string' }, true)], (i) => ({ s: i ? null : 'a' }), 2);
    const error = await failure(s, { nulls: true });
    expect(error.message).toContain('column "s" (string) row 1 is null');
    expect(error.message).toContain('null bitmaps are for int32/float64');
  });
});

describe('records → SCBF: tables and problems', () => {
  const main = [field('m', { kind: 'string' })];
  const t = (name: string, primary?: boolean) => ({
    info: {
      name,
      schema: { fields: [field(name, { kind: 'int', bits: 8, signed: true })] },
      ...(primary ? { primary } : {}),
    },
    rows: [{ [name]: 7 }],
  });

  it('--table picks a table; without it the primary table, else the records', async () => {
    const picked = await convert(
      synthetic(main, () => ({ m: 'main' }), 1, [t('a'), t('b')]),
      { table: 'b' },
    );
    expect((await readBack(picked.bytes)).rows).toEqual([{ b: 7 }]);
    const primary = await convert(synthetic(main, () => ({ m: 'main' }), 1, [t('a'), t('b', true)]));
    expect((await readBack(primary.bytes)).rows).toEqual([{ b: 7 }]);
    const plain = await convert(synthetic(main, () => ({ m: 'main' }), 1, [t('a')]));
    expect((await readBack(plain.bytes)).rows).toEqual([{ m: 'main' }]);
    await expect(
      convert(
        synthetic(main, () => ({}), 0, [t('a')]),
        { table: 'zz' },
      ),
    ).rejects.toThrow('--table "zz": no such table in synthetic; its tables: "a"');
  });

  it('column names SCBF cannot hold, or repeated, are refused before any record is read', async () => {
    for (const fields of [
      [field('bad\ud800', { kind: 'string' })],
      [field('twice', { kind: 'string' }), field('twice', { kind: 'float', bits: 64 })],
    ]) {
      const input = synthetic(fields, () => ({}), 1);
      input.records = () => {
        throw new Error('records were read');
      };
      const error = await failure(input);
      expect(error.message).toMatch(/lone surrogate|two fields are named "twice"/);
    }
  });

  it("a record standing for a broken one fails with that record's typed error", async () => {
    const input = synthetic(main, () => ({ m: 'x' }), 1);
    input.records = async function* () {
      yield {
        index: 0,
        values: {},
        problem: { code: 'CountMismatch', message: 'table t has 3 rows, says 4', offset: 40 },
      };
    };
    const error = await failure(input);
    expect(error.code).toBe('CountMismatch');
    expect(error.offset).toBe(40);
  });
});
