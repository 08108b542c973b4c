import { MemorySource } from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openScbf } from '../src/plugin.js';
import { Utf8Column } from '../src/utf8.js';
import { validateScbf } from '../src/plugin.js';
import { columnsFromRows, encodeScbf, inferValuesType, writeScbf } from '../src/write.js';
import { tableArbitrary } from './helpers.js';

const EMPTY_BLOCK = [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01];

describe('programmatic writer', () => {
  it('random tables round-trip write → read (unicode, empty strings, extremes, zero rows)', async () => {
    await fc.assert(
      fc.asyncProperty(tableArbitrary(), async (columns) => {
        const bytes = await encodeScbf(columns);
        const reader = await openScbf(new MemorySource(bytes));
        expect(reader.columns.map((c) => [c.name, c.type])).toEqual(columns.map((c) => [c.name, c.type]));
        for (const [i, column] of columns.entries()) {
          const values = await reader.readColumn(i);
          const got = values instanceof Utf8Column ? values.toArray() : Array.from(values);
          expect(got.length).toBe(column.values.length);
          for (const [j, v] of got.entries())
            expect(Object.is(v, column.values[j]), `${column.name}[${j}]`).toBe(true);
        }
        const report = await validateScbf(new MemorySource(bytes));
        expect(report.errors).toEqual([]);
        expect(report.warnings).toEqual([]);
      }),
      { numRuns: 150, seed: 21 },
    );
  });

  it('lays the file out as S1 says: metadata right after the header, blocks contiguous in column order', async () => {
    const bytes = await encodeScbf([
      { name: 'a', values: Int32Array.of(1, 2) },
      { name: 'b', values: ['x', 'yz'] },
      { name: 'c', values: Float64Array.of(0.5, -0) },
    ]);
    const reader = await openScbf(new MemorySource(bytes));
    expect(reader.header.metaTableOffset).toBe(reader.header.headerLength);
    let at = reader.header.metaTableEnd;
    for (const column of reader.columns) {
      for (const block of column.blocks) {
        expect(block.offset).toBe(at);
        at += block.compressedSize;
      }
    }
    expect(at).toBe(bytes.byteLength);
    expect(reader.header.schemaJson).toBe(
      '{"columns": [{"name": "a", "type": "int32"}, {"name": "b", "type": "utf8"}, {"name": "c", "type": "float64"}]}',
    );
  });

  it('writes empty blocks as the S3 bytes and zero-row columns as utf8 unless typed', async () => {
    const bytes = await encodeScbf([
      { name: 'e', values: [] },
      { name: 'n', type: 'int32', values: [] },
    ]);
    const reader = await openScbf(new MemorySource(bytes));
    expect(reader.columns.map((c) => c.type)).toEqual(['utf8', 'int32']);
    const strings = reader.column('e').blocks[1];
    expect(Array.from(bytes.subarray(strings.offset, strings.offset + strings.compressedSize))).toEqual(
      EMPTY_BLOCK,
    );
    expect(reader.column('e').blocks[0].uncompressedSize).toBe(4); // one offset: 0
  });

  it('infers types from JS values and takes explicit ones', () => {
    expect(inferValuesType([1, 2, -3])).toBe('int32');
    expect(inferValuesType([1, 2.5])).toBe('float64');
    expect(inferValuesType([2 ** 31])).toBe('float64');
    expect(inferValuesType([-0])).toBe('float64');
    expect(inferValuesType(['a'])).toBe('utf8');
    expect(inferValuesType(new Float64Array(1))).toBe('float64');
    expect(inferValuesType([])).toBe('utf8');
  });

  it('builds columns from row objects', async () => {
    const rows = [
      { id: 1, name: 'a', x: 0.5 },
      { id: 2, name: 'b', x: 2 },
    ];
    const columns = columnsFromRows(rows, { types: { x: 'float64' } });
    const reader = await openScbf(new MemorySource(await encodeScbf(columns)));
    expect(reader.columns.map((c) => c.type)).toEqual(['int32', 'utf8', 'float64']);
    const out = [];
    for await (const row of reader.rows()) out.push(row);
    expect(out).toEqual(rows);
    expect(() => columnsFromRows([{ a: 1 }, {} as { a: number }])).toThrow(
      /row 1 has no value for column "a"/,
    );
  });

  it('refuses what the file cannot hold exactly', async () => {
    await expect(
      encodeScbf([
        { name: 'a', values: [1] },
        { name: 'b', values: [1, 2] },
      ]),
    ).rejects.toMatchObject({ code: 'CountMismatch' });
    await expect(encodeScbf([{ name: 'a', type: 'int32', values: [1.5] }])).rejects.toThrow(/not an int32/);
    await expect(encodeScbf([{ name: 'a', type: 'int32', values: [2 ** 31] }])).rejects.toThrow(
      /not an int32/,
    );
    await expect(encodeScbf([{ name: 'a', values: ['\ud800'] }])).rejects.toThrow(/lone surrogate/);
    await expect(encodeScbf([{ name: '\udc00', values: ['x'] }])).rejects.toThrow(/lone surrogate/);
    await expect(encodeScbf([{ name: 'x'.repeat(70000), values: ['x'] }])).rejects.toThrow(/65535/);
    await expect(
      encodeScbf([{ name: 'a', type: 'utf8', values: [1] as unknown as string[] }]),
    ).rejects.toThrow(/not a string/);
  });

  it('writes into any ByteSink', async () => {
    const sink = new MemorySink();
    await writeScbf(sink, [{ name: 'a', values: Int32Array.of(7) }], { level: 9 });
    const reader = await openScbf(new MemorySource(sink.bytes()));
    expect(await reader.value('a', 0)).toBe(7);
  });
});
