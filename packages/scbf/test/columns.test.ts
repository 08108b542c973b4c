/**
 * `capabilities.columns`: the rows as runs of decoded columns, holding exactly what records()
 * gives for every window and column choice; no columns where a footer changes cells (nulls,
 * dictionaries) or a filter is asked for.
 */
import * as fs from 'node:fs';
import {
  type ColumnBatch,
  fileTarget,
  MemorySource,
  parseWhere,
  type RecordOptions,
  type Value,
} from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { encodeScbf, type ScbfReader, scbfPlugin, splitNulls } from '../src/index.js';
import { vectorCases } from './helpers.js';

const columns = scbfPlugin.capabilities!.columns!;

async function open(bytes: Uint8Array): Promise<ScbfReader> {
  return (await scbfPlugin.open(fileTarget(new MemorySource(bytes, 'cols.scbf')))) as ScbfReader;
}

async function fromRecords(reader: ScbfReader, options: RecordOptions) {
  const out: Array<Record<string, Value | undefined>> = [];
  for await (const r of scbfPlugin.records(reader, options)) out.push({ index: r.index, ...r.values });
  return out;
}

async function fromColumns(runs: AsyncIterable<ColumnBatch>) {
  const out: Array<Record<string, Value | undefined>> = [];
  for await (const batch of runs) {
    for (const values of Object.values(batch.columns)) expect(values.length).toBe(batch.rows);
    for (let k = 0; k < batch.rows; k++) {
      const row: Record<string, Value | undefined> = { index: batch.offset + k };
      for (const [name, values] of Object.entries(batch.columns)) row[name] = values[k];
      out.push(row);
    }
  }
  return out;
}

const ROWS = 20_000;
const table = [
  { name: 'n', type: 'int32' as const, values: Array.from({ length: ROWS }, (_, i) => (i % 3 ? i : -i)) },
  {
    name: 'x',
    type: 'float64' as const,
    values: Array.from({ length: ROWS }, (_, i) => (i % 101 === 0 ? Number.NaN : i % 13 === 0 ? -0 : i / 7)),
  },
  {
    name: 's',
    type: 'utf8' as const,
    values: Array.from({ length: ROWS }, (_, i) => (i % 9 ? `r${i % 50}` : 'é✓')),
  },
];

describe('scbf columns', () => {
  it('hold the values records() gives, for windows and column choices', async () => {
    const reader = await open(await encodeScbf(table));
    for (const options of [
      {},
      { offset: 7 },
      { offset: 8_190, limit: 5 },
      { columns: ['s', 'n'] },
      { limit: 0 },
      { offset: ROWS + 5 },
    ] as RecordOptions[]) {
      const runs = await columns(reader, options);
      expect(runs, JSON.stringify(options)).toBeDefined();
      const a = await fromColumns(runs!);
      const b = await fromRecords(reader, options);
      expect(a.length).toBe(b.length);
      const differing = a.findIndex(
        (row, i) =>
          Object.keys(b[i]).some((k) => !Object.is(row[k], b[i][k])) ||
          Object.keys(row).length !== Object.keys(b[i]).length,
      );
      expect(differing, `${JSON.stringify(options)}: first differing row`).toBe(-1);
    }
  });

  it('give numbers as the typed arrays the blocks decode to', async () => {
    const reader = await open(await encodeScbf(table));
    for await (const batch of (await columns(reader, {}))!) {
      expect(batch.columns.n).toBeInstanceOf(Int32Array);
      expect(batch.columns.x).toBeInstanceOf(Float64Array);
      expect(Array.isArray(batch.columns.s)).toBe(true);
    }
  });

  it('are undefined with nulls in the footer, or with a filter', async () => {
    const { columns: withNulls, nulls } = splitNulls([{ name: 'n', type: 'int32', values: [1, null, 3] }]);
    const nullable = await open(await encodeScbf(withNulls, { extensions: { nulls } }));
    expect(await columns(nullable, {})).toBeUndefined();
    const plain = await open(await encodeScbf(table));
    expect(await columns(plain, { where: parseWhere('n > 3', plain.schema) })).toBeUndefined();
  });

  it('match the records of every vector that has them', async () => {
    const vectors = vectorCases();
    let compared = 0;
    for (const v of vectors) {
      const reader = await open(new Uint8Array(fs.readFileSync(v.scbf)));
      const runs = await columns(reader, {}).catch((e: Error) => e);
      if (runs === undefined) continue;
      compared++;
      const records = await fromRecords(reader, {}).catch((e: Error) => e);
      const values = runs instanceof Error ? runs : await fromColumns(runs).catch((e: Error) => e);
      if (records instanceof Error) expect((values as Error).message, v.name).toBe(records.message);
      else expect(values, v.name).toEqual(records);
    }
    if (vectors.length > 0) expect(compared).toBeGreaterThan(0);
  });
});
