/**
 * An input that offers its records as column runs (`RecordsInput.columns`) is exported from
 * them, into the same record batches and the same bytes as its records make.
 */
import type { ColumnBatch, RecordsInput, Schema, Value } from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { columnarRecords, columnRuns } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { BatchBuilder } from '../src/batches.js';
import { arrowFileConverter, arrowStreamConverter } from '../src/export.js';
import { exportSchema } from '../src/schema-out.js';
import { convertOptions } from './helpers.js';

type Columns = Record<string, ArrayLike<Value | undefined>>;

const FIELDS: Schema['fields'] = [
  { name: 'f32', type: { kind: 'float', bits: 32 } },
  { name: 'i64', type: { kind: 'int', bits: 64, signed: true } },
  { name: 'u32', type: { kind: 'int', bits: 32, signed: false } },
  { name: 'x', type: { kind: 'float', bits: 64 }, nullable: true },
  { name: 's', type: { kind: 'string' }, nullable: true },
];

function data(rows: number, names: readonly string[]): Columns {
  const all: Columns = {
    f32: Float32Array.from({ length: rows }, (_, i) => i / 8 - 3),
    i64: BigInt64Array.from({ length: rows }, (_, i) => BigInt(i) * 2n ** 40n - 2n ** 62n),
    u32: Uint32Array.from({ length: rows }, (_, i) => 4_294_967_295 - i),
    x: Float64Array.from({ length: rows }, (_, i) => (i % 13 === 0 ? -0 : i * 1.5)),
    s: Array.from({ length: rows }, (_, i) => (i % 4 === 0 ? null : `s${i % 37}`)),
  };
  return Object.fromEntries(names.map((n) => [n, all[n]]));
}

function input(columns: Columns, rows: number, run?: number): RecordsInput {
  return columnarRecords(
    FIELDS.filter((f) => f.name in columns),
    columns,
    rows,
    run,
  );
}

async function exported(kind: 'file' | 'stream', source: RecordsInput, values = {}) {
  const sink = new MemorySink();
  const converter = kind === 'file' ? arrowFileConverter : arrowStreamConverter;
  const report = await converter.convertRecords!(source, { kind: 'file', sink }, convertOptions(values));
  return { bytes: sink.bytes(), report };
}

describe('column runs', () => {
  it.each([
    ['numbers only', ['f32', 'i64', 'u32', 'x'], 1_000, {}],
    ['numbers only, small batches', ['f32', 'i64', 'u32', 'x'], 333, { batchRows: 1000 }],
    ['numbers and strings', ['f32', 's', 'x'], 777, { batchRows: 500 }],
    ['one row at a time', ['u32', 's'], 1, { batchRows: 64 }],
  ] as const)('%s: the same file and stream as the records make', async (_what, names, run, values) => {
    const rows = 5_000;
    const columns = data(rows, names);
    for (const kind of ['file', 'stream'] as const) {
      const fromRecords = await exported(kind, input(columns, rows), values);
      const fromRuns = await exported(kind, input(columns, rows, run), values);
      expect(fromRuns.report.details).toEqual(fromRecords.report.details);
      expect(Buffer.compare(fromRuns.bytes, fromRecords.bytes), kind).toBe(0);
    }
  });

  it('ends a batch at the row its byte bound falls on, as the records do', async () => {
    const columns = data(10_000, ['f32', 'x']);
    const runs: ColumnBatch[] = [];
    for await (const run of columnRuns(columns, 10_000, 4_096)) runs.push(run);
    const schema: Schema = { fields: FIELDS.filter((f) => f.name in columns) };
    const limits = { rows: 4_000, bytes: 1_000 };
    const sizes = (fill: (b: BatchBuilder, emit: () => void) => void) => {
      const batch = new BatchBuilder(schema.fields, exportSchema(schema, {}), {}, limits);
      const out: number[] = [];
      fill(batch, () => out.push(batch.flush().numRows));
      if (batch.rows > 0) out.push(batch.flush().numRows);
      return out;
    };
    const byRecord = sizes((b, emit) => {
      for (let i = 0; i < 10_000; i++) {
        b.append({ f32: columns.f32[i], x: columns.x[i] }, i);
        if (b.full) emit();
      }
    });
    const byRun = sizes((b, emit) => {
      for (const run of runs)
        for (let at = 0; at < run.rows; ) {
          at += b.appendRun(run, at);
          if (b.full) emit();
        }
    });
    expect(byRecord[0]).toBe(84); // 1,000 bytes of 12-byte rows: full at the 84th
    expect(byRun).toEqual(byRecord);
  });
});
