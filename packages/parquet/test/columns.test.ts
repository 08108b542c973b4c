/**
 * The column writer (fast-column.ts, column-chunk.ts) against its readers: a table of every
 * type it writes (ints of each width and sign at their extremes, floats with NaN and -0,
 * bools, strings, bytes, JSON, lists with null and empty lists and null items, fixed-shape
 * ndarrays) with columns hyparquet-writer writes between them (a struct, a list of lists,
 * float16), in several row groups and pages, reads back the same through binscope and
 * pyarrow, with the statistics pyarrow reads equal to the values' own; and values a column
 * cannot hold are refused with the record and field.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type DataRecord,
  fileTarget,
  MemorySource,
  type RecordsInput,
  type Schema,
  tabularField,
} from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { describeWith, pythonModules, runPython, tempDir } from '@binscope/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parquetExport } from '../src/export.js';
import { parquetPlugin } from '../src/plugin.js';
import { arrowTypeName, canonValue, digestRecords, readWithPyarrow } from './canon.js';
import { options } from './exports.js';

const scratch = tempDir('binscope-parquet-columns-');
afterAll(() => scratch.remove());

function input(schema: Schema, rows: readonly DataRecord[]): RecordsInput {
  return {
    kind: 'records',
    name: 'generated',
    format: 'test',
    schema,
    tables: async function* () {},
    records: async function* () {
      yield* rows;
    },
    summary: async () => ({ format: 'test', title: 'test', counts: {}, properties: [] }),
  };
}

async function exported(source: RecordsInput, values: Record<string, string | number> = {}) {
  const sink = new MemorySink();
  await parquetExport.convertRecords!(source, { kind: 'file', sink }, options(values));
  return sink.bytes();
}

const SCHEMA: Schema = {
  fields: [
    { name: 'i8', type: { kind: 'int', bits: 8, signed: true }, nullable: true },
    { name: 'u16', type: { kind: 'int', bits: 16, signed: false } },
    { name: 'i32', type: { kind: 'int', bits: 32, signed: true } },
    { name: 'seq', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
    { name: 'u32', type: { kind: 'int', bits: 32, signed: false }, nullable: true },
    { name: 'i64', type: { kind: 'int', bits: 64, signed: true } },
    { name: 'u64', type: { kind: 'int', bits: 64, signed: false }, nullable: true },
    {
      name: 'point',
      type: { kind: 'struct', fields: [{ name: 'x', type: { kind: 'float', bits: 64 }, nullable: true }] },
    },
    { name: 'f32', type: { kind: 'float', bits: 32 }, nullable: true },
    { name: 'f64', type: { kind: 'float', bits: 64 } },
    { name: 'flag', type: { kind: 'bool' }, nullable: true },
    { name: 'label', type: { kind: 'string' }, nullable: true },
    { name: 'text', type: { kind: 'string' } },
    { name: 'blob', type: { kind: 'bytes' }, nullable: true },
    { name: 'big', type: { kind: 'bytes' } },
    { name: 'meta', type: { kind: 'json' }, nullable: true },
    { name: 'half', type: { kind: 'float', bits: 16 } },
    { name: 'tags', type: { kind: 'list', items: { kind: 'string' } }, nullable: true },
    { name: 'nums', type: { kind: 'list', items: { kind: 'float', bits: 32 } } },
    {
      name: 'grid',
      type: { kind: 'list', items: { kind: 'list', items: { kind: 'int', bits: 32, signed: true } } },
    },
    { name: 'nd', type: { kind: 'ndarray', dtype: 'f32', shape: [2, 3] } },
    { name: 'ndi', type: { kind: 'ndarray', dtype: 'i64', shape: [2] } },
  ],
};

const LABELS = ['alpha', 'beta', 'γάμμα', 'emoji 🎉', ''];

/** Row `i` of the table: every column's edge values early on, then a spread of ordinary ones. */
function row(i: number): Record<string, unknown> {
  const wave = Math.sin(i) * 1000;
  const u64s = [0n, 2n ** 64n - 1n, 2n ** 63n, 12345];
  return {
    i8: i % 7 === 0 ? null : (i % 256) - 128,
    u16: (i * 37) % 65536,
    i32: [-(2 ** 31), 2 ** 31 - 1][i] ?? Math.round(wave * 1000),
    // Row numbers (DELTA_BINARY_PACKED) with jumps from one end of the range to the other.
    seq: i % 250 === 7 ? null : i % 1000 === 500 ? -(2 ** 31) : i % 1000 === 501 ? 2 ** 31 - 1 : i,
    u32: i % 11 === 5 ? null : ([0, 4294967295, 2 ** 31][i] ?? (i * 2654435761) % 4294967296),
    i64: [-(2n ** 63n), 2n ** 63n - 1n][i] ?? (i % 2 ? BigInt(i) * 3_000_000_007n : -i),
    u64: i % 13 === 6 ? null : (u64s[i] ?? BigInt(i) * 1_000_000_000_007n),
    point: i % 17 === 3 ? { x: null } : { x: i / 7 },
    f32: i % 9 === 4 ? null : ([Number.NaN, -0, Number.POSITIVE_INFINITY][i] ?? Math.fround(wave / 3)),
    f64: [-0, 0, Number.NaN, Number.NEGATIVE_INFINITY, 2 ** 60][i] ?? wave * 1e6,
    flag: i % 5 === 2 ? null : i % 3 === 0,
    label: i % 10 === 9 ? null : LABELS[i % LABELS.length],
    text: `t${i}-${(i * 7919).toString(36)}`,
    blob: i % 8 === 1 ? null : Uint8Array.from({ length: i % 17 }, (_, k) => (k * i) & 0xff),
    big: Uint8Array.from({ length: 700 }, (_, k) => (k + i) & 0xff),
    meta: i % 6 === 0 ? null : { i, tag: LABELS[i % 3], list: [i, -0.5] },
    half: (i % 64) / 4,
    tags:
      i % 12 === 0 ? null : i % 12 === 1 ? [] : [LABELS[i % 4], null, `tag ${i % 50}`].slice(0, 1 + (i % 3)),
    nums: Array.from({ length: 300 }, (_, k) => (k % 97 === 0 ? null : (k * i) % 1000) as number | null),
    grid: i % 4 === 0 ? [] : [[i], [], [i, -i]],
    nd: { shape: [2, 3], data: Float32Array.from({ length: 6 }, (_, k) => k * i - 0.25) },
    ndi: { shape: [2], data: BigInt64Array.from([BigInt(-i), 2n ** 62n + BigInt(i)]) },
  };
}

const ROWS = 5000;
const GROUP = 2000;
const records: DataRecord[] = Array.from({ length: ROWS }, (_, i) => ({ index: i, values: row(i) as never }));

describe('the column writer', () => {
  it('reads back through binscope: the same values, in row groups of the size asked', async () => {
    const bytes = await exported(input(SCHEMA, records), { rowGroupSize: GROUP });
    const reader = await parquetPlugin.open(fileTarget(new MemorySource(bytes)));
    expect(reader.metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([2000, 2000, 1000]);
    // `big` (700 bytes a row) and `nums` (1200 bytes a row) fill more than one 1 MiB page a group.
    const chunk = reader.metadata.row_groups[0].columns.find(
      (c) => c.meta_data?.path_in_schema[0] === 'nums',
    );
    expect(chunk?.offset_index_length).toBeGreaterThan(0);
    const back = await digestRecords(reader.schema, parquetPlugin.records(reader));
    const source = await digestRecords(SCHEMA, input(SCHEMA, records).records());
    expect({ rows: back.rows, first: back.first }).toEqual({ rows: source.rows, first: source.first });
    expect(back.digest).toBe(source.digest);
  });

  it('snappy, gzip and no compression hold the same values', async () => {
    const some = records.slice(0, 600);
    const digests = new Set<string>();
    for (const compression of ['snappy', 'gzip', 'none']) {
      const bytes = await exported(input(SCHEMA, some), { compression, rowGroupSize: 250 });
      const reader = await parquetPlugin.open(fileTarget(new MemorySource(bytes)));
      expect(reader.metadata.row_groups[0].columns[0].meta_data?.codec).toBe(
        { snappy: 'SNAPPY', gzip: 'GZIP', none: 'UNCOMPRESSED' }[compression],
      );
      digests.add((await digestRecords(reader.schema, parquetPlugin.records(reader))).digest);
    }
    expect(digests.size).toBe(1);
  });

  it('-0 and 0 stay two values in a dictionary-encoded float column', async () => {
    const schema: Schema = { fields: [{ name: 'x', type: { kind: 'float', bits: 64 } }] };
    const rows = Array.from({ length: 1000 }, (_, i) => ({ index: i, values: { x: i % 2 ? -0 : 0 } }));
    const bytes = await exported(input(schema, rows));
    const reader = await parquetPlugin.open(fileTarget(new MemorySource(bytes)));
    expect(reader.metadata.row_groups[0].columns[0].meta_data?.encodings).toContain('RLE_DICTIONARY');
    const seen: number[] = [];
    for await (const r of parquetPlugin.records(reader)) seen.push(r.values.x as number);
    expect(seen.every((x, i) => Object.is(x, i % 2 ? -0 : 0))).toBe(true);
  });

  it.each([
    [{ kind: 'int', bits: 32, signed: true }, 2 ** 31, /record 3: v: expected an int32, got 2147483648/],
    [{ kind: 'int', bits: 32, signed: false }, -1, /expected a uint32, got -1/],
    [{ kind: 'int', bits: 16, signed: true }, 1.5, /expected an int32, got 1.5/],
    [{ kind: 'int', bits: 64, signed: false }, -1n, /expected a uint64, got -1n/],
    [{ kind: 'int', bits: 64, signed: true }, 2n ** 63n, /expected an int64/],
    [{ kind: 'float', bits: 64 }, 'x', /expected a number, got "x"/],
    [{ kind: 'bool' }, 1, /expected a boolean, got 1/],
    [{ kind: 'string' }, 7, /expected a string or bytes, got 7/],
    [{ kind: 'list', items: { kind: 'int', bits: 8, signed: true } }, 3, /expected a list/],
  ] as const)('refuses what a %o column cannot hold', async (type, bad, message) => {
    const schema: Schema = { fields: [{ name: 'v', type }] };
    const good = type.kind === 'list' ? [1] : type.kind === 'bool' ? true : type.kind === 'string' ? 's' : 1;
    const rows = [0, 1, 2, 3].map((i) => ({ index: i, values: { v: i === 3 ? bad : good } as never }));
    await expect(exported(input(schema, rows))).rejects.toMatchObject({ code: 'InvalidValue', message });
  });

  it('refuses a null item of a list whose items are never null', async () => {
    const schema: Schema = { fields: [{ name: 'nd', type: { kind: 'ndarray', dtype: 'i32', shape: [2] } }] };
    const rows = [{ index: 0, values: { nd: { shape: [2], data: [1, null] } as never } }];
    await expect(exported(input(schema, rows))).rejects.toMatchObject({
      code: 'InvalidValue',
      message: /record 0: nd: a list item is null/,
    });
  });
});

interface ChunkView {
  path: string;
  encodings: string[];
  values: number;
  nulls: number;
  min?: unknown;
  max?: unknown;
}

/** Canonical minimum and maximum of non-null values (NaN skipped), in the order Parquet gives the type. */
function extremes(values: unknown[], type: Schema['fields'][number]['type']) {
  const present = values.filter((v) => v !== null && !Number.isNaN(v));
  if (present.length === 0) return {};
  // Parquet's order: numbers as numbers, strings and bytes by their (UTF-8) bytes.
  const key = (v: unknown): number | bigint | string =>
    typeof v === 'string' || v instanceof Uint8Array
      ? Buffer.from(v as string).toString('latin1')
      : typeof v === 'boolean'
        ? Number(v)
        : (v as number | bigint);
  let min = present[0];
  let max = present[0];
  for (const v of present) {
    if (key(v) < key(min)) min = v;
    if (key(v) > key(max)) max = v;
  }
  // Parquet's bounds of a zero: -0 as the minimum, +0 as the maximum.
  return { min: canonValue(min === 0 ? -0 : min, type), max: canonValue(max === 0 ? 0 : max, type) };
}

describeWith(pythonModules(['pyarrow', 'numpy']), 'pyarrow reads the column writer', () => {
  const file = path.join(scratch.dir, 'columns.parquet');
  beforeAll(async () => {
    fs.writeFileSync(file, await exported(input(SCHEMA, records), { rowGroupSize: GROUP }));
  });

  it('the same schema and values', async () => {
    const seen = readWithPyarrow(file);
    expect(seen.schema).toEqual(
      SCHEMA.fields.map((f) => {
        const t = tabularField(f);
        return { name: f.name, type: arrowTypeName(t.type), nullable: t.nullable };
      }),
    );
    const ours = await digestRecords(SCHEMA, input(SCHEMA, records).records());
    expect({ rows: seen.rows, first: seen.first }).toEqual({ rows: ours.rows, first: ours.first });
    expect(seen.digest).toBe(ours.digest);
  });

  it('statistics of each row group: null counts, minimum and maximum', () => {
    const groups = JSON.parse(
      runPython(path.join(import.meta.dirname, 'python', 'stats_parquet.py'), [file]),
    ) as { rows: number; columns: ChunkView[] }[];
    const flat = SCHEMA.fields.filter(
      (f) => !['point', 'half', 'grid', 'nd', 'ndi', 'meta'].includes(f.name),
    );
    groups.forEach((group, g) => {
      const rows = records.slice(g * GROUP, (g + 1) * GROUP);
      for (const field of flat) {
        const chunk = group.columns.find((c) => c.path.split('.')[0] === field.name)!;
        const list = field.type.kind === 'list';
        const itemType = field.type.kind === 'list' ? field.type.items : field.type;
        const cells = rows.map((r) => (r.values as Record<string, unknown>)[field.name]);
        const values = list
          ? cells.flatMap((c) => (c === null || (c as unknown[]).length === 0 ? [null] : (c as unknown[])))
          : cells;
        const text = field.name === 'text' || field.name === 'big';
        expect({ column: field.name, group: g, nulls: chunk.nulls, values: chunk.values }).toEqual({
          column: field.name,
          group: g,
          nulls: values.filter((v) => v === null).length,
          values: values.length,
        });
        // Long byte arrays' bounds are truncated to 16 bytes (checked only where they are short).
        if (!text || field.name === 'text')
          expect({ column: field.name, group: g, min: chunk.min, max: chunk.max }).toEqual({
            column: field.name,
            group: g,
            ...extremes(values, itemType),
          });
      }
      expect(group.columns.find((c) => c.path === 'label')?.encodings).toContain('RLE_DICTIONARY');
      expect(group.columns.find((c) => c.path === 'seq')?.encodings).toEqual(['DELTA_BINARY_PACKED']);
    });
  });
});
