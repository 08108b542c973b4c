/**
 * DuckDB reads what binscope writes: `SELECT count(*), min(col), max(col)` over each exported
 * SCBF vector equals the row count binscope's `info` gives and the minimum and maximum of the
 * values binscope itself reads.
 */
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describeWith, tempDir, VECTORS, validVectors, vectorsFolder } from '@binscope/testkit';
import { afterAll, expect, it } from 'vitest';
import { exportFile, openInput, pluginFor } from './exports.js';
import { fileTarget } from '@binscope/core';
import { NodeFileSource } from '@binscope/core/node';

const scratch = tempDir('binscope-parquet-duckdb-');
afterAll(() => scratch.remove());

const utf8 = new TextEncoder();

/** DuckDB orders text by its UTF-8 bytes (JavaScript's < by UTF-16 code units). */
function before(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string')
    return Buffer.compare(utf8.encode(a), utf8.encode(b)) < 0;
  return (a as number) < (b as number);
}

/** Minimum and maximum of each column over binscope's records, ignoring nulls. */
async function extremes(records: AsyncIterable<{ values: Record<string, unknown> }>, columns: string[]) {
  const out = new Map(columns.map((c) => [c, { min: undefined as unknown, max: undefined as unknown }]));
  for await (const r of records)
    for (const c of columns) {
      const v = r.values[c];
      if (v === null || v === undefined) continue;
      const m = out.get(c)!;
      if (m.min === undefined || before(v, m.min)) m.min = v;
      if (m.max === undefined || before(m.max, v)) m.max = v;
    }
  return out;
}

describeWith(vectorsFolder(VECTORS), 'DuckDB over exported SCBF vectors', () => {
  it.each(validVectors('scbf').map((v) => [v.name, v] as const))('%s', async (_, v) => {
    const out = path.join(scratch.dir, `${v.name}.parquet`);
    const { input, close } = await openInput('scbf', v.target);
    let expected: Map<string, { min: unknown; max: unknown }>;
    let rows: number;
    const columns = input.schema.fields.map((f) => f.name);
    try {
      await exportFile(input, out);
      rows = (await input.summary()).counts.rows;
      expected = await extremes(input.records(), columns);
    } finally {
      await close();
    }
    const db = await DuckDBInstance.create(':memory:');
    const connection = await db.connect();
    try {
      const select = columns.map((c, i) => `min("${c}") AS min${i}, max("${c}") AS max${i}`).join(', ');
      const result = await connection.runAndReadAll(
        `SELECT count(*) AS n, ${select} FROM read_parquet('${out.replaceAll("'", "''")}')`,
      );
      const [row] = result.getRowObjectsJS();
      expect(Number(row.n)).toBe(rows);
      for (const [i, c] of columns.entries())
        expect({ column: c, min: row[`min${i}`] ?? undefined, max: row[`max${i}`] ?? undefined }).toEqual({
          column: c,
          ...expected.get(c),
        });
    } finally {
      connection.closeSync();
      db.closeSync();
    }
  });

  it('--row-group-size splits the export; binscope reads the count back', async () => {
    const [v] = validVectors('scbf').filter((x) => x.name === 'large_100k');
    const out = path.join(scratch.dir, 'stats.parquet');
    const { input, close } = await openInput('scbf', v.target);
    try {
      await exportFile(input, out, { rowGroupSize: 30000 });
    } finally {
      await close();
    }
    // Row groups as asked, and binscope's own reader of the result agrees on the count.
    const plugin = await pluginFor('parquet');
    const source = NodeFileSource.open(out, 'stats.parquet');
    const reader = await plugin.open(fileTarget(source));
    expect((await plugin.info(reader)).counts).toMatchObject({ rows: 100000, rowGroups: 4 });
    await source.close();
  });
});
