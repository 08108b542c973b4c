import {
  type Field,
  FormatError,
  fileTarget,
  MemorySource,
  type OptionValues,
  type RecordsInput,
  recordsInput,
  type Value,
} from '@binscope/core';
import { mldfPlugin } from '@binscope/mldf';
import { jpegBytes, convertRecordsInMemory, syntheticRecords } from '@binscope/testkit';
import { encode as encodePng } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { recordsToMldfConverter, taridxMldfConverters } from '../src/magic.js';

const synthetic = syntheticRecords;
const convert = (input: RecordsInput, values: OptionValues = {}) =>
  convertRecordsInMemory(recordsToMldfConverter, input, values);

const field = (name: string, type: Field['type']): Field => ({ name, type });

async function readBack(bytes: Uint8Array) {
  const reader = await mldfPlugin.open(fileTarget(new MemorySource(bytes, 'out.mldf')));
  const rows: Record<string, Value | undefined>[] = [];
  for await (const record of mldfPlugin.records(reader)) rows.push({ ...record.values });
  const types = Object.fromEntries(reader.schema.fields.map((f) => [f.name, f.metadata?.type]));
  return { reader, rows, types };
}

async function failure(input: RecordsInput, values: OptionValues = {}): Promise<FormatError> {
  const error = await convert(input, values).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FormatError);
  return error as FormatError;
}

const png = encodePng({ width: 2, height: 1, data: Uint8Array.of(1, 2, 3, 4, 5, 6), channels: 3 });

describe('records → MLDF', () => {
  it('is declared from any format to .mldf, among the package converters', () => {
    expect(recordsToMldfConverter).toMatchObject({
      from: '*',
      to: 'mldf',
      output: 'file',
      extensions: ['mldf'],
    });
    expect(taridxMldfConverters).toContain(recordsToMldfConverter);
  });

  it('maps every logical type MLDF holds', async () => {
    const jpeg = await jpegBytes({ width: 8, height: 8, rgba: new Uint8Array(8 * 8 * 4).fill(200) });
    const fields = [
      field('label', { kind: 'int', bits: 64, signed: true }),
      field('small', { kind: 'int', bits: 8, signed: false }),
      field('flag', { kind: 'bool' }),
      field('score', { kind: 'float', bits: 32 }),
      field('text', { kind: 'string' }),
      field('meta', { kind: 'json' }),
      field('png', { kind: 'bytes' }),
      field('jpg', { kind: 'bytes', mediaType: 'image/jpeg' }),
      field('hf', {
        kind: 'struct',
        fields: [field('bytes', { kind: 'bytes' }), field('path', { kind: 'string' })],
      }),
      field('blob', { kind: 'bytes' }),
      field('emb', { kind: 'list', items: { kind: 'float', bits: 32 } }),
      field('ids', { kind: 'list', items: { kind: 'int', bits: 64, signed: true } }),
      field('arr', { kind: 'ndarray', dtype: 'i16' }),
      field('img', { kind: 'image' }),
    ];
    const row = (i: number): Record<string, Value> => ({
      label: i === 0 ? 2n ** 62n : -3,
      small: 255,
      flag: i === 0,
      score: 0.5,
      text: `t${i}`,
      meta: i === 0 ? { a: 1 } : null,
      png,
      jpg: jpeg,
      hf: { bytes: png, path: 'x.png' },
      blob: Uint8Array.of(9, i),
      emb: [1.5, i],
      ids: [2n ** 60n, BigInt(i)],
      arr: { dtype: 'i16', shape: [2], data: Int16Array.of(-1, i) },
      img: { height: 1, width: 1, channels: 1, pixels: Uint8Array.of(i) },
    });
    const { bytes, report } = await convert(synthetic(fields, row, 2));
    const { rows, types } = await readBack(bytes);
    expect(types).toEqual({
      sample: undefined,
      label: 'INT',
      small: 'INT',
      flag: 'INT',
      score: 'FLOAT',
      text: 'TEXT_RAW',
      meta: 'JSON',
      png: 'IMAGE_RAW',
      jpg: 'IMAGE_RAW',
      hf: 'IMAGE_RAW',
      blob: 'BYTES',
      emb: 'NDARRAY',
      ids: 'NDARRAY',
      arr: 'NDARRAY',
      img: 'IMAGE_RAW',
    });
    expect(report.details).toMatchObject({ conversion: 'records→mldf', samples: 2 });
    const [r0, r1] = rows;
    expect(r0.label).toBe(2n ** 62n);
    expect(r1).toMatchObject({ label: -3n, small: 255n, flag: 0n, score: 0.5, text: 't1', meta: null });
    expect(r0.flag).toBe(1n);
    expect(r0.meta).toEqual({ a: 1 });
    expect(r0.png).toMatchObject({
      height: 1,
      width: 2,
      channels: 3,
      pixels: Uint8Array.of(1, 2, 3, 4, 5, 6),
    });
    expect(r0.hf).toMatchObject({ height: 1, width: 2, channels: 3 });
    expect(r0.jpg).toMatchObject({ height: 8, width: 8, channels: 3 });
    expect(r1.blob).toEqual(Uint8Array.of(9, 1));
    expect(r1.emb).toMatchObject({ shape: [2], data: Float32Array.of(1.5, 1) });
    expect(r0.ids).toMatchObject({ shape: [2], data: BigInt64Array.of(2n ** 60n, 0n) });
    expect(r1.arr).toMatchObject({ shape: [2], data: Int16Array.of(-1, 1) });
    expect(r1.img).toMatchObject({ height: 1, width: 1, channels: 1, pixels: Uint8Array.of(1) });
  });

  it('--images bytes keeps image bytes as BYTES', async () => {
    const input = synthetic([field('png', { kind: 'bytes', mediaType: 'image/png' })], () => ({ png }), 1);
    const { bytes } = await convert(input, { images: 'bytes' });
    const { rows, types } = await readBack(bytes);
    expect(types.png).toBe('BYTES');
    expect(rows[0].png).toEqual(png);
  });

  it('an image column value that is no PNG/JPEG names column, row and the flag', async () => {
    const input = synthetic(
      [field('img', { kind: 'bytes', mediaType: 'image/png' })],
      (i) => ({ img: i ? Uint8Array.of(1) : png }),
      2,
    );
    const error = await failure(input);
    expect(error.code).toBe('InvalidValue');
    expect(error.message).toContain(
      'column "img" (bytes (image/png)) row 1: is neither a PNG nor a JPEG; pass --images bytes',
    );
  });

  it('lists of differing lengths are refused naming the column and row', async () => {
    const input = synthetic(
      [field('v', { kind: 'list', items: { kind: 'float', bits: 64 } })],
      (i) => ({ v: i ? [1, 2, 3] : [1, 2] }),
      2,
    );
    const error = await failure(input);
    expect(error.code).toBe('InvalidValue');
    expect(error.message).toContain(
      'column "v" (list<float64>) row 1: shape [3] differs from the first value\'s [2]',
    );
  });

  it('structs and lists of non-numbers are refused naming the column', async () => {
    for (const type of [
      { kind: 'struct', fields: [field('a', { kind: 'int', bits: 8, signed: true })] },
      { kind: 'list', items: { kind: 'string' } },
    ] as Field['type'][]) {
      const error = await failure(synthetic([field('c', type)], () => ({}), 0));
      expect(error.code).toBe('UnsupportedFeature');
      expect(error.message).toContain('column "c" (');
    }
  });

  it('nulls are refused naming column and row; uint64 beyond int64 too', async () => {
    const nulls = await failure(
      synthetic([field('t', { kind: 'string' })], (i) => ({ t: i ? null : 'a' }), 2),
    );
    expect(nulls.code).toBe('InvalidValue');
    expect(nulls.message).toContain('column "t" (string) row 1 is null');
    const big = await failure(
      synthetic([field('u', { kind: 'int', bits: 64, signed: false })], () => ({ u: 2n ** 63n }), 1),
    );
    expect(big.message).toContain('column "u" (uint64) row 0: 9223372036854775808 does not fit');
  });

  it('MLDF → records → MLDF keeps the samples (the sample position becomes an INT field)', async () => {
    const { bytes: first } = await convert(
      synthetic(
        [field('t', { kind: 'string' }), field('x', { kind: 'float', bits: 64 })],
        (i) => ({ t: `s${i}`, x: i / 4 }),
        5,
      ),
    );
    const reader = await mldfPlugin.open(fileTarget(new MemorySource(first, 'a.mldf')));
    const { bytes: second } = await convert(recordsInput(mldfPlugin, reader, 'a.mldf'));
    const back = await readBack(second);
    expect(back.types).toMatchObject({ t: 'TEXT_RAW', x: 'FLOAT' });
    expect(back.rows.map((r) => [r.t, r.x])).toEqual([0, 1, 2, 3, 4].map((i) => [`s${i}`, i / 4]));
  });
});
