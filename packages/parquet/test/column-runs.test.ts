/**
 * An input that offers its records as column runs (`RecordsInput.columns`) is exported from
 * them, and the file is byte for byte the one its records make: same row groups, pages,
 * statistics, whatever the runs' lengths against the row groups'.
 */
import { isBinscopeError, type RecordsInput, type Schema, type Value } from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { columnarRecords } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { parquetExport } from '../src/export.js';
import { options } from './exports.js';

const SCHEMA: Schema = {
  fields: [
    { name: 'f32', type: { kind: 'float', bits: 32 } },
    { name: 'f64', type: { kind: 'float', bits: 64 }, nullable: true },
    { name: 'i32', type: { kind: 'int', bits: 32, signed: true } },
    { name: 'u32', type: { kind: 'int', bits: 32, signed: false } },
    { name: 'i64', type: { kind: 'int', bits: 64, signed: true } },
    { name: 'half', type: { kind: 'float', bits: 16 } },
    { name: 's', type: { kind: 'string' }, nullable: true },
  ],
};

const ROWS = 5_000;

function columnsOf(rows: number): Record<string, ArrayLike<Value | undefined>> {
  return {
    f32: Float32Array.from({ length: rows }, (_, i) => i * 0.5 - 100),
    f64: Array.from({ length: rows }, (_, i) => (i % 7 === 0 ? null : i % 11 === 0 ? -0 : i / 3)),
    i32: Int32Array.from({ length: rows }, (_, i) => (i % 2 ? -i : i * 1000)),
    u32: Uint32Array.from({ length: rows }, (_, i) => 4_294_967_295 - i),
    i64: BigInt64Array.from({ length: rows }, (_, i) => BigInt(i) * 2n ** 40n - 2n ** 62n),
    half: Float32Array.from({ length: rows }, (_, i) => (i % 64) / 4),
    s: Array.from({ length: rows }, (_, i) => (i % 5 === 0 ? null : `v${i % 97}`)),
  };
}

function input(data: Record<string, ArrayLike<Value | undefined>>, rows: number, run?: number): RecordsInput {
  return columnarRecords(
    SCHEMA.fields.filter((f) => f.name in data),
    data,
    rows,
    run,
  );
}

async function exported(source: RecordsInput, values: Record<string, string | number> = {}) {
  const sink = new MemorySink();
  const report = await parquetExport.convertRecords!(source, { kind: 'file', sink }, options(values));
  return { bytes: sink.bytes(), report };
}

describe('column runs', () => {
  it.each([
    [1, {}],
    [777, {}],
    [100_000, {}],
    [777, { rowGroupSize: 1000 }],
    [3, { rowGroupSize: 10 }],
    [2_048, { compression: 'none' }],
  ] as const)('runs of %i rows, options %j: the same file as the records make', async (run, values) => {
    const data = columnsOf(ROWS);
    const fromRecords = await exported(input(data, ROWS), values);
    const fromRuns = await exported(input(data, ROWS, run), values);
    expect(fromRuns.report.details).toEqual(fromRecords.report.details);
    expect(fromRuns.bytes.byteLength).toBe(fromRecords.bytes.byteLength);
    expect(Buffer.compare(fromRuns.bytes, fromRecords.bytes)).toBe(0);
  });

  it('takes a long typed column in row groups of the byte budget', async () => {
    const rows = 600_000;
    const data = { f32: Float32Array.from({ length: rows }, (_, i) => i) };
    const fromRecords = await exported(input(data, rows));
    const fromRuns = await exported(input(data, rows, 65_536));
    expect(fromRuns.report.details?.rowGroups).toBeGreaterThan(1);
    expect(Buffer.compare(fromRuns.bytes, fromRecords.bytes)).toBe(0);
  });

  it('refuses a value the column cannot hold with a typed error naming the rows and field', async () => {
    const data = { i32: Uint32Array.of(1, 2, 2 ** 31) };
    const error = await exported(input(data, 3, 3)).catch((e: unknown) => e);
    expect(isBinscopeError(error, 'InvalidValue')).toBe(true);
    expect((error as Error).message).toMatch(/records? [0-9–]*2: i32: expected an int32, got 2147483648/);
  });

  it('refuses a null in a column that is never null, naming the record', async () => {
    const data = { f32: [1, null, 3] as Array<number | null> };
    const error = await exported(input(data, 3, 3)).catch((e: unknown) => e);
    expect(isBinscopeError(error, 'InvalidValue')).toBe(true);
    expect((error as Error).message).toMatch(/record 1: f32 is null/);
  });
});
