/**
 * `capabilities.columns`: a numeric table stored plainly comes as runs of its typed values, and
 * those runs hold exactly what `records()` gives, for every window; every other table and the
 * catalogue have no columns (the caller reads records).
 */
import * as fs from 'node:fs';
import { type ColumnBatch, fileTarget, MemorySource, type RecordOptions, type Value } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { UdfBuilder, type UdfReader, udfPlugin } from '../src/index.js';
import { validVectors } from './helpers.js';

const columns = udfPlugin.capabilities!.columns!;

function sample(): Uint8Array {
  const file = new UdfBuilder({ id: 'COLS' });
  const root = file.dataset({ id: 'ROOT' });
  root
    .table('f32', { prim: 'f32', data: Float32Array.from({ length: 150_000 }, (_, i) => i * 0.25 - 7) })
    .table('f64', { prim: 'f64', data: [Number.NaN, -0, Number.NEGATIVE_INFINITY, 1e300] })
    .table('i64', { prim: 'i64', data: [-(2n ** 63n), 0n, 2n ** 62n] })
    .table('u16', { prim: 'u16', data: new Uint16Array(70_000).map((_, i) => i) })
    .table('grid', { prim: 'i32', data: new Int32Array(12), shape: [4, 3] })
    .text('title', 'not numeric')
    .json('meta', { n: 1 });
  file.setRoot(root);
  return file.toBytes();
}

async function open(bytes: Uint8Array): Promise<UdfReader> {
  return (await udfPlugin.open(fileTarget(new MemorySource(bytes, 'cols.udf')))) as UdfReader;
}

/** The values of `table`'s field, record by record, as records() gives them. */
async function recordValues(
  reader: UdfReader,
  options: RecordOptions & { table: string },
  field = options.table,
) {
  const out: Array<Value | undefined> = [];
  for await (const r of udfPlugin.records(reader, options)) out.push(r.values[field]);
  return out;
}

/** The same values from the column runs, checking that runs follow each other. */
async function columnValues(runs: AsyncIterable<ColumnBatch>, field: string, first: number) {
  const out: Array<Value | undefined> = [];
  let next = first;
  for await (const batch of runs) {
    expect(batch.offset).toBe(next);
    const values = batch.columns[field];
    expect(values.length).toBe(batch.rows);
    for (let k = 0; k < batch.rows; k++) out.push(values[k]);
    next += batch.rows;
  }
  return out;
}

function expectSame(a: readonly unknown[], b: readonly unknown[]) {
  expect(a.length).toBe(b.length);
  const differing = a.findIndex((v, i) => !Object.is(v, b[i]));
  expect(differing, `first differing row ${differing}`).toBe(-1);
}

describe('udf columns', () => {
  it('give a numeric table the values records() gives, for whole tables and windows', async () => {
    const reader = await open(sample());
    for (const table of ['f32', 'f64', 'i64', 'u16']) {
      for (const window of [{}, { offset: 3 }, { offset: 65_530, limit: 20 }, { limit: 0 }]) {
        const options = { table, ...window };
        const runs = await columns(reader, options);
        expect(runs, table).toBeDefined();
        expectSame(await columnValues(runs!, table, window.offset ?? 0), await recordValues(reader, options));
      }
    }
  });

  it('come as typed arrays, several runs for a long table', async () => {
    const reader = await open(sample());
    const batches: ColumnBatch[] = [];
    for await (const b of (await columns(reader, { table: 'f32' }))!) batches.push(b);
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.every((b) => b.columns.f32 instanceof Float32Array)).toBe(true);
    expect(batches.reduce((n, b) => n + b.rows, 0)).toBe(150_000);
  });

  it('leave out a field not asked for, as records() does', async () => {
    const reader = await open(sample());
    for await (const b of (await columns(reader, { table: 'u16', columns: [] }))!)
      expect(b.columns).toEqual({});
  });

  it('are undefined for the catalogue, text, JSON and rows of several numbers', async () => {
    const reader = await open(sample());
    expect(await columns(reader, {})).toBeUndefined();
    for (const table of ['title', 'meta', 'grid'])
      expect(await columns(reader, { table }), table).toBeUndefined();
  });

  it('match the records of every vector table that has them', async () => {
    const vectors = validVectors();
    let tables = 0;
    for (const v of vectors) {
      const reader = await open(new Uint8Array(fs.readFileSync(v.file)));
      for await (const t of udfPlugin.capabilities!.tables!(reader)) {
        const runs = await columns(reader, { table: t.name });
        if (!runs) continue;
        tables++;
        // A table that breaks a rule raises the same error both ways.
        const field = t.schema.fields[0].name;
        const records = await recordValues(reader, { table: t.name }, field).catch((e: Error) => e);
        const values = await columnValues(runs, field, 0).catch((e: Error) => e);
        if (records instanceof Error)
          expect((values as Error).message, `${v.name} ${t.name}`).toBe(records.message);
        else {
          if (values instanceof Error) throw new Error(`${v.name} ${t.name}: ${values.message}`);
          expectSame(values, records);
        }
      }
    }
    if (vectors.length > 0) expect(tables).toBeGreaterThan(0);
  });
});
