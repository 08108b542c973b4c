/**
 * `capabilities.columns` of the Arrow plugins: runs hold exactly the values records() gives
 * (plain numbers as the batch's own typed arrays, everything else value by value), for windows
 * across batches and column choices, in files and streams.
 */
import { type ColumnBatch, fileTarget, MemorySource, type RecordOptions, type Value } from '@binscope/core';
import {
  Bool,
  Dictionary,
  Field,
  Float16,
  Float32,
  Float64,
  Int8,
  Int32,
  Int64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableToIPC,
  Uint16,
  Uint32,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { ArrowReader } from '../src/read.js';
import { arrowPlugin, arrowsPlugin } from '../src/plugin.js';

const ROWS = 3_000;

const TYPES = {
  i8: new Int8(),
  u16: new Uint16(),
  i32: new Int32(),
  u32: new Uint32(),
  i64: new Int64(),
  f16: new Float16(),
  f32: new Float32(),
  f64: new Float64(),
  s: new Utf8(),
  d: new Dictionary(new Utf8(), new Int32()),
  ok: new Bool(),
};
const FIELDS = Object.entries(TYPES).map(([name, type]) => new Field(name, type, true));
const SCHEMA = new Schema(FIELDS);

/** Three batches of one schema: numbers of every width, with and without nulls, text, a dictionary. */
function table(): Table {
  const labels = vectorFromArray(
    Array.from({ length: 3 * ROWS }, (_, i) => ['a', 'b', 'c'][i % 3]),
    TYPES.d,
  );
  const batches = [0, 1, 2].map((b) => {
    const at = (i: number) => b * ROWS + i;
    const columns = {
      i8: vectorFromArray(
        Array.from({ length: ROWS }, (_, i) => (at(i) % 255) - 127),
        TYPES.i8,
      ),
      u16: vectorFromArray(
        Array.from({ length: ROWS }, (_, i) => at(i) % 65_536),
        TYPES.u16,
      ),
      i32: vectorFromArray(
        Array.from({ length: ROWS }, (_, i) => at(i) * -7),
        TYPES.i32,
      ),
      u32: vectorFromArray(
        Array.from({ length: ROWS }, (_, i) => 4_294_967_295 - at(i)),
        TYPES.u32,
      ),
      i64: vectorFromArray(
        Array.from({ length: ROWS }, (_, i) => BigInt(at(i)) * 2n ** 40n),
        TYPES.i64,
      ),
      f16: vectorFromArray(
        Array.from({ length: ROWS }, (_, i) => (i % 8) / 4),
        TYPES.f16,
      ),
      f32: vectorFromArray(
        Array.from({ length: ROWS }, (_, i) => at(i) / 3),
        TYPES.f32,
      ),
      f64: vectorFromArray(
        Array.from({ length: ROWS }, (_, i) => (i % 5 === 0 ? null : i % 7 === 0 ? -0 : at(i) / 9)),
        TYPES.f64,
      ),
      s: vectorFromArray(
        Array.from({ length: ROWS }, (_, i) => (i % 3 ? `v${i % 11}` : null)),
        TYPES.s,
      ),
      // One dictionary for every batch: a file cannot replace it.
      d: labels.slice(b * ROWS, (b + 1) * ROWS),
      ok: vectorFromArray(
        Array.from({ length: ROWS }, (_, i) => i % 2 === 0),
        TYPES.ok,
      ),
    };
    const data = makeData({
      type: new Struct(FIELDS),
      length: ROWS,
      nullCount: 0,
      children: Object.values(columns).map((v) => v.data[0]),
    });
    return new RecordBatch(SCHEMA, data);
  });
  return new Table(batches);
}

async function open(kind: 'file' | 'stream'): Promise<ArrowReader> {
  const bytes = tableToIPC(table(), kind);
  const plugin = kind === 'file' ? arrowPlugin : arrowsPlugin;
  return plugin.open(fileTarget(new MemorySource(bytes, `t.${kind === 'file' ? 'arrow' : 'arrows'}`)));
}

async function fromRecords(kind: 'file' | 'stream', reader: ArrowReader, options: RecordOptions) {
  const plugin = kind === 'file' ? arrowPlugin : arrowsPlugin;
  const rows: Array<Record<string, Value | undefined>> = [];
  for await (const r of plugin.records(reader, options)) rows.push({ index: r.index, ...r.values });
  return rows;
}

async function fromRuns(runs: AsyncIterable<ColumnBatch>) {
  const rows: Array<Record<string, Value | undefined>> = [];
  let typed = 0;
  for await (const run of runs) {
    for (const values of Object.values(run.columns)) {
      expect(values.length).toBe(run.rows);
      if (ArrayBuffer.isView(values)) typed++;
    }
    for (let k = 0; k < run.rows; k++) {
      const row: Record<string, Value | undefined> = { index: run.offset + k };
      for (const [name, values] of Object.entries(run.columns)) row[name] = values[k];
      rows.push(row);
    }
  }
  return { rows, typed };
}

describe.each(['file', 'stream'] as const)('arrow %s column runs', (kind) => {
  const plugin = kind === 'file' ? arrowPlugin : arrowsPlugin;

  it('hold the values records() gives, for windows across batches and column choices', async () => {
    const reader = await open(kind);
    for (const options of [
      {},
      { offset: 2_990, limit: 20 },
      { offset: 4_000 },
      { columns: ['s', 'i64', 'f32'] },
      { limit: 0 },
      { offset: 10_000 },
    ] as RecordOptions[]) {
      const runs = await plugin.capabilities!.columns!(reader, options);
      expect(runs).toBeDefined();
      const { rows } = await fromRuns(runs!);
      const records = await fromRecords(kind, reader, options);
      expect(rows.length, JSON.stringify(options)).toBe(records.length);
      // Object.is tells -0 from 0 and bigint from number; toEqual compares the structured values.
      const differing: string[] = [];
      for (let i = 0; i < rows.length && differing.length < 5; i++)
        for (const [name, value] of Object.entries(records[i])) {
          const got = rows[i][name];
          const same =
            typeof value !== 'object' || value === null
              ? Object.is(got, value)
              : JSON.stringify(got) === JSON.stringify(value);
          if (!same) differing.push(`row ${i} ${name}: ${String(got)} vs ${String(value)}`);
        }
      expect(differing, JSON.stringify(options)).toEqual([]);
    }
  });

  it('give plain number columns without nulls as typed arrays, the rest as values', async () => {
    const reader = await open(kind);
    const runs = (await plugin.capabilities!.columns!(reader, {}))!;
    const seen = new Map<string, boolean>();
    for await (const run of runs)
      for (const [name, values] of Object.entries(run.columns)) seen.set(name, ArrayBuffer.isView(values));
    expect(Object.fromEntries(seen)).toEqual({
      i8: true,
      u16: true,
      i32: true,
      u32: true,
      i64: true,
      f16: false,
      f32: true,
      f64: false,
      s: false,
      d: false,
      ok: false,
    });
  });
});
