import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cellText,
  type DataRecord,
  isBinscopeError,
  parseWhere,
  recordCells,
  recordToJson,
  type Schema,
} from '../src/index.js';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const int = (bits: 8 | 16 | 32 | 64, signed = true) => ({ kind: 'int', bits, signed }) as const;

const schema: Schema = {
  fields: [
    { name: 'id', type: int(32) },
    { name: 'big', type: int(64, false) },
    { name: 'score', type: { kind: 'float', bits: 64 }, nullable: true },
    { name: 'name', type: { kind: 'string' } },
    { name: 'ok', type: { kind: 'bool' } },
    { name: 'blob', type: { kind: 'bytes' } },
    { name: 'image', type: { kind: 'image' } },
    { name: 'embedding', type: { kind: 'ndarray', dtype: 'f32' } },
    { name: 'meta', type: { kind: 'json' } },
    { name: 'tags', type: { kind: 'list', items: { kind: 'string' } } },
    { name: 'pair', type: { kind: 'struct', fields: [{ name: 'b', type: { kind: 'bytes' } }] } },
  ],
};

describe('recordToJson: one rendering for every format, by the schema alone', () => {
  it('prints scalars as A5 says and keeps the record order of the fields', async () => {
    const record: DataRecord = {
      index: 0,
      values: { name: 'Alice', id: 1, score: 91.5, big: 2n ** 53n + 1n, ok: true },
    };
    const json = await recordToJson(schema, record);
    expect(JSON.stringify(json)).toBe(
      '{"name":"Alice","id":1,"score":91.5,"big":"9007199254740993","ok":true}',
    );
    const safe = await recordToJson(schema, { index: 1, values: { big: 42n } });
    expect(safe).toEqual({ big: 42 });
  });

  it('non-finite floats become strings, -0 stays -0, null is null and an absent field is left out', async () => {
    const json = await recordToJson(schema, { index: 0, values: { score: Number.NaN, id: undefined } });
    expect(json).toEqual({ score: 'NaN' });
    expect(await recordToJson(schema, { index: 0, values: { score: -Infinity } })).toEqual({
      score: '-Infinity',
    });
    expect(Object.is((await recordToJson(schema, { index: 0, values: { score: -0 } })).score, -0)).toBe(true);
    expect(await recordToJson(schema, { index: 0, values: { score: null } })).toEqual({ score: null });
  });

  it('bytes, images and large arrays as size and sha256; small arrays in full with the format dtype name', async () => {
    const blob = new TextEncoder().encode('abc');
    const pixels = new Uint8Array(2 * 3 * 3).fill(7);
    const large = new Float32Array(1025).fill(0.5);
    const json = await recordToJson(schema, {
      index: 0,
      values: {
        blob,
        image: { height: 2, width: 3, channels: 3, mode: 1, pixels },
        embedding: { dtype: 'f32', shape: [2], data: Float32Array.of(0.5, 1.5), dtypeName: '<f4' },
      },
    });
    expect(json).toEqual({
      blob: { size: 3, sha256: sha(blob) },
      image: { height: 2, width: 3, channels: 3, mode: 1, size: 18, sha256: sha(pixels) },
      embedding: { dtype: '<f4', shape: [2], values: [0.5, 1.5] },
    });
    const big = await recordToJson(schema, {
      index: 0,
      values: { embedding: { dtype: 'f32', shape: [1025], data: large } },
    });
    expect(big.embedding).toEqual({
      dtype: 'f32',
      shape: [1025],
      size: 4100,
      sha256: sha(new Uint8Array(large.buffer)),
    });
  });

  it('json as it is, lists and structs element by element, a stand-in record with its error', async () => {
    const json = await recordToJson(schema, {
      index: 3,
      values: {
        meta: { a: [1, 'x'] },
        tags: ['p', 'q'],
        pair: { b: new TextEncoder().encode('abc') },
      },
      problem: { code: 'InvalidValue', message: 'bad table', offset: 12 },
    });
    expect(json).toEqual({
      meta: { a: [1, 'x'] },
      tags: ['p', 'q'],
      pair: { b: { size: 3, sha256: sha(new TextEncoder().encode('abc')) } },
      error: { code: 'InvalidValue', message: 'bad table', offset: 12 },
    });
  });
});

describe('cellText and recordCells: a value as one line, by its logical type', () => {
  it('shows each kind briefly and never hashes', () => {
    const fields = new Map(schema.fields.map((f) => [f.name, f.type]));
    expect(cellText(fields.get('score'), -0)).toBe('-0');
    expect(cellText(fields.get('score'), null)).toBe('');
    expect(cellText(fields.get('blob'), new Uint8Array(5))).toBe('5 bytes');
    expect(
      cellText(fields.get('image'), { height: 8, width: 4, channels: 3, pixels: new Uint8Array(96) }),
    ).toBe('4×8×3 image');
    expect(cellText(fields.get('embedding'), { dtype: 'f32', shape: [8], data: new Float32Array(8) })).toBe(
      'f32[8] 0, 0, 0, 0, 0, 0, …',
    );
    expect(cellText(fields.get('name'), 'a\nb')).toBe('a\\nb');
    expect(cellText(fields.get('name'), 'x'.repeat(300))).toHaveLength(200);
    expect(recordCells(schema, { index: 0, values: { id: 5, name: 'n' } }, ['name', 'id', 'ok'])).toEqual([
      'n',
      '5',
      '',
    ]);
  });
});

describe('parseWhere: the --where language over any schema', () => {
  const rows: DataRecord[] = [
    { index: 0, values: { id: 1, name: 'b', score: 2.5, big: 10n } },
    { index: 1, values: { id: 2, name: 'a', score: null, big: 2n ** 60n } },
    { index: 2, values: { id: 3, name: '\u{1f600}', score: Number.NaN } },
    { index: 3, values: { id: 4, name: '\uffff', score: -1 } },
  ];
  const ids = (text: string) =>
    rows.filter((r) => parseWhere(text, schema).matches(r)).map((r) => r.values.id);

  it('reads the SCBF syntax: and-ed comparisons, quoted names and strings, == for =', () => {
    const filter = parseWhere(`id >= 10 and name = 'a' and "score" != -1.5e3`, schema);
    expect(filter.conditions).toEqual([
      { column: 'id', op: '>=', value: 10 },
      { column: 'name', op: '=', value: 'a' },
      { column: 'score', op: '!=', value: -1500 },
    ]);
    expect(filter.fields).toEqual(['id', 'name', 'score']);
    expect(ids('id == 2')).toEqual([2]);
  });

  it('compares numbers numerically (bigints too), strings by code point; null, absent and NaN match nothing ordered', () => {
    expect(ids('score > 0')).toEqual([1]);
    expect(ids('score != 2.5')).toEqual([3, 4]);
    expect(ids('big > 1000000000000000000')).toEqual([2]);
    expect(ids('big < 10.5 and big > 9.5')).toEqual([1]);
    // U+FFFF sorts below an astral code point, as in UTF-8 (not in UTF-16 code units).
    expect(ids("name > '\uffff'")).toEqual([3]);
    expect(ids("name < 'b'")).toEqual([2]);
  });

  it('refuses bad syntax, unknown fields and literals of the wrong kind with a WhereSyntaxError', () => {
    const error = (text: string) => {
      try {
        parseWhere(text, schema);
      } catch (e) {
        expect(isBinscopeError(e, 'WhereSyntaxError')).toBe(true);
        return (e as Error).message;
      }
      throw new Error(`no error for ${text}`);
    };
    expect(error('id >')).toMatch(/expected a number or a quoted string after id >/);
    expect(error('id > 3 or id < 1')).toMatch(/expected "and"/);
    expect(error('id ~ 3')).toMatch(/cannot read/);
    expect(error("id = 'x'")).toBe('--where: column "id" is int32; compare it with a number');
    expect(error('name = 3')).toBe('--where: column "name" is string; compare it with a quoted string');
    expect(error("blob = 'x'")).toBe('--where: column "blob" is bytes, which cannot be compared');
    expect(error('nope = 1')).toMatch(/^--where: no column "nope"; columns: "id", "big"/);
  });
});
