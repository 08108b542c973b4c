import * as fs from 'node:fs';
import { describeWith } from '@binscope/testkit';
import { CountingSource, MemorySource } from '@binscope/core';
import { NodeFileSource } from '@binscope/core/node';
import { describe, expect, it } from 'vitest';
import { openScbf } from '../src/plugin.js';
import { Utf8Column } from '../src/utf8.js';
import { encodeScbf } from '../src/write.js';
import { jsonRows, VECTORS_NEEDED, vectorCases } from './helpers.js';

function table(rows: number) {
  const id = Int32Array.from({ length: rows }, (_, i) => i * 7 - 1000);
  const score = Float64Array.from({ length: rows }, (_, i) => i / 3);
  const name = Array.from({ length: rows }, (_, i) => (i % 5 === 0 ? '' : `name-${i}-${'é'.repeat(i % 4)}`));
  const flag = Int32Array.from({ length: rows }, (_, i) => i % 2);
  return [
    { name: 'id', values: id },
    { name: 'name', values: name },
    { name: 'score', values: score },
    { name: 'flag', values: flag },
  ];
}

describe('lazy reading', () => {
  it('open reads only the header and the metadata table', async () => {
    const bytes = await encodeScbf(table(5000));
    const source = new CountingSource(new MemorySource(bytes));
    const reader = await openScbf(source);
    const firstBlock = Math.min(...reader.columns.flatMap((c) => c.blocks.map((b) => b.offset)));
    expect(source.bytesRead).toBeLessThanOrEqual(reader.header.metaTableEnd + 12);
    expect(firstBlock).toBe(reader.header.metaTableEnd);
    expect(reader.rowCount).toBe(5000);
    expect(reader.columnNames).toEqual(['id', 'name', 'score', 'flag']);
  });

  it('reading one column reads exactly that column’s blocks', async () => {
    const bytes = await encodeScbf(table(20000));
    const source = new CountingSource(new MemorySource(bytes));
    const reader = await openScbf(source);
    for (const name of ['score', 'name', 'flag']) {
      const before = source.bytesRead;
      await reader.readColumn(name);
      const column = reader.column(name);
      const blockBytes = column.blocks.reduce((s, b) => s + b.compressedSize, 0);
      expect(source.bytesRead - before, name).toBe(blockBytes);
      expect(blockBytes).toBeLessThan(bytes.byteLength / 2);
    }
  });

  it('a head of rows reads one chunk of a large block, not the block', async () => {
    // Strings block > 4 MiB: streamed in 1 MiB compressed reads instead of inflated whole.
    let seed = 1;
    const random = () => {
      // mulberry32: a small deterministic generator whose output does not compress.
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return (t ^ (t >>> 14)) >>> 0;
    };
    const rows = 100_000;
    const values = Array.from({ length: rows }, () =>
      Array.from({ length: 8 }, () => random().toString(36)).join(''),
    );
    const bytes = await encodeScbf([{ name: 's', values }]);
    const source = new CountingSource(new MemorySource(bytes));
    const reader = await openScbf(source);
    const [offsets, strings] = reader.column('s').blocks;
    expect(strings.uncompressedSize).toBeGreaterThan(4 << 20);
    expect(strings.compressedSize).toBeGreaterThan(2 << 20);
    const head = [];
    for await (const row of reader.rows({ limit: 3 })) head.push(row.s);
    expect(head).toEqual(values.slice(0, 3));
    expect(source.bytesRead).toBeLessThanOrEqual(
      reader.header.metaTableEnd + 12 + offsets.compressedSize + (1 << 20),
    );
  });

  it('typed arrays, lazy strings, row ranges, column subsets and single values agree', async () => {
    const input = table(3001);
    const reader = await openScbf(new MemorySource(await encodeScbf(input)));
    const id = await reader.readColumn('id');
    expect(id).toBeInstanceOf(Int32Array);
    expect(Array.from(id as Int32Array)).toEqual(Array.from(input[0].values as Int32Array));
    const score = await reader.readColumn(2);
    expect(score).toBeInstanceOf(Float64Array);
    const names = await reader.readColumn('name');
    expect(names).toBeInstanceOf(Utf8Column);
    const utf8 = names as Utf8Column;
    expect(utf8.length).toBe(3001);
    expect(utf8.get(7)).toBe(input[1].values[7]);
    expect(utf8.byteLength(7)).toBe(new TextEncoder().encode(input[1].values[7] as string).byteLength);
    expect(utf8.toArray()).toEqual(input[1].values);
    expect([...utf8.slice(10, 13)]).toEqual((input[1].values as string[]).slice(10, 13));

    const range = await reader.readColumn('id', { start: 100, end: 105 });
    expect(Array.from(range as Int32Array)).toEqual(
      Array.from((input[0].values as Int32Array).slice(100, 105)),
    );
    const strRange = (await reader.readColumn('name', { start: 2999, end: 5000 })) as Utf8Column;
    expect(strRange.toArray()).toEqual((input[1].values as string[]).slice(2999));

    const subset = await reader.readColumns(['flag', 'id'], { start: 1, end: 3 });
    expect(Object.keys(subset)).toEqual(['flag', 'id']);
    expect(Array.from(subset.flag as Int32Array)).toEqual([1, 0]);

    expect(await reader.value('name', 8)).toBe(input[1].values[8]);
    expect(await reader.value('score', 9)).toBe(3);
    await expect(reader.value('score', 3001)).rejects.toThrow(RangeError);
    expect(() => reader.column('nope')).toThrow(/no column "nope"/);
  });

  it('rows and batches stream the same values with offset, limit and columns', async () => {
    const input = table(20000);
    const reader = await openScbf(new MemorySource(await encodeScbf(input)));
    const got = [];
    for await (const row of reader.rows({
      offset: 12345,
      limit: 4,
      columns: ['score', 'name'],
      batchRows: 3,
    }))
      got.push(row);
    expect(got).toEqual(
      [12345, 12346, 12347, 12348].map((i) => ({ score: i / 3, name: input[1].values[i] })),
    );
    let total = 0;
    for await (const batch of reader.batches({ batchRows: 777 })) total += batch.length;
    expect(total).toBe(20000);
    const none = [];
    for await (const row of reader.rows({ offset: 20000 })) none.push(row);
    expect(none).toEqual([]);
  });

  it('records() print as JSON-able rows through recordToJson (non-finite floats as strings)', async () => {
    const reader = await openScbf(
      new MemorySource(
        await encodeScbf([
          { name: 'f', values: Float64Array.from([Number.NaN, Number.POSITIVE_INFINITY, -0, 1.5]) },
        ]),
      ),
    );
    const out = await jsonRows(reader);
    expect(out).toEqual([{ f: 'NaN' }, { f: 'Infinity' }, { f: -0 }, { f: 1.5 }]);
    expect(Object.is(out[2].f, -0)).toBe(true);
  });
});

describeWith(VECTORS_NEEDED, 'vectors through a Node file source', () => {
  for (const testCase of vectorCases()) {
    it(`${testCase.name}: streamed rows equal whole-column reads`, async () => {
      const reader = await openScbf(NodeFileSource.open(testCase.scbf));
      const columns = await reader.readColumns();
      let i = 0;
      for await (const row of reader.rows({ batchRows: 999 })) {
        for (const [name, values] of Object.entries(columns)) {
          const v = values instanceof Utf8Column ? values.get(i) : values[i];
          if (row[name] !== v) expect(row[name]).toBe(v);
        }
        i++;
      }
      expect(i).toBe(reader.rowCount);
      expect(fs.statSync(testCase.scbf).size).toBe(reader.source.size);
      await reader.close();
    });
  }
});
