import { MemorySource } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { scbfToCsvChunks } from '../src/csv.js';
import { openScbf } from '../src/plugin.js';
import { validateScbf } from '../src/plugin.js';
import { encodeScbf } from '../src/write.js';
import { craft, fieldsOf, setU64, u32s } from './helpers.js';

/**
 * The upstream writer's S4 quirk, reproduced on our own files by a byte patch: every utf8
 * column's str_uncomp_size gets the offsets block's offset, as upstream's writer stores it.
 */
async function withUpstreamStrUncomp(bytes: Uint8Array): Promise<Uint8Array> {
  let out = bytes;
  for (const column of (await fieldsOf(bytes)).columns) {
    if (column.type !== 'utf8') continue;
    out = setU64(out, column.blocks[1].fieldOffset, column.blocks[0].offset);
  }
  return out;
}

async function csvOf(bytes: Uint8Array): Promise<string> {
  const reader = await openScbf(new MemorySource(bytes, 'upstream.scbf'));
  let text = '';
  for await (const chunk of scbfToCsvChunks(reader)) text += chunk;
  return text;
}

const enc = new TextEncoder();

describe('S4: files with the upstream writer bug in str_uncomp_size', () => {
  const columns = [
    { name: 'id', values: Int32Array.of(1, 2, 3, 4) },
    { name: 'name', values: ['Alice', 'Bob', '', 'Zoë "z"'] },
    { name: 'score', values: Float64Array.of(91.5, 88, -0, 1.5e20) },
    { name: 'city', values: ['Oslo', 'Sao, Paulo', 'Zürich', ''] },
  ];

  it('open, read, stream and convert like the same file with the right sizes', async () => {
    const good = await encodeScbf(columns, { pythonZlib: true });
    const upstream = await withUpstreamStrUncomp(good);
    expect(upstream).not.toEqual(good);
    const reader = await openScbf(new MemorySource(upstream, 'upstream.scbf'));
    expect([...((await reader.readColumn('name')) as Iterable<string>)]).toEqual(columns[1].values);
    expect([...((await reader.readColumn('city', { start: 1, end: 3 })) as Iterable<string>)]).toEqual([
      'Sao, Paulo',
      'Zürich',
    ]);
    expect(await reader.value('name', 3)).toBe('Zoë "z"');
    const rows = [];
    for await (const row of reader.rows()) rows.push(row);
    expect(rows[3]).toEqual({ id: 4, name: 'Zoë "z"', score: 1.5e20, city: '' });
    expect(await csvOf(upstream)).toBe(await csvOf(good));
    // Once read, the reader says what it read past: one S4 warning for the file.
    expect(reader.warnings.map((w) => w.code)).toEqual(['S4']);
    expect(reader.warnings[0].message).toContain('str_uncomp_size');
  });

  it('validate: valid, with exactly one S4 warning naming each column and both sizes', async () => {
    const upstream = await withUpstreamStrUncomp(await encodeScbf(columns, { pythonZlib: true }));
    const { columns: meta } = await fieldsOf(upstream);
    const report = await validateScbf(new MemorySource(upstream, 'upstream.scbf'));
    expect(report.valid, JSON.stringify(report.errors)).toBe(true);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toHaveLength(1);
    const [warning] = report.warnings;
    expect(warning.code).toBe('S4');
    expect(warning.offset).toBe(meta[1].blocks[1].fieldOffset);
    expect(warning.message).toContain(`"name" stores ${meta[1].blocks[0].offset}`);
    const nameBytes = enc.encode((columns[1].values as string[]).join('')).byteLength;
    expect(warning.message).toContain(`inflate to ${nameBytes} bytes`);
    expect(warning.message).toContain(`"city" stores ${meta[3].blocks[0].offset}`);
  });

  it('a stored size larger or smaller than the strings, and strings too long to inflate whole', async () => {
    const long = Array.from(
      { length: 3000 },
      (_, i) => `${i.toString(36)}-${'x'.repeat(i % 7)}-${(i * 7919) % 10007}`,
    );
    const big = Array.from({ length: 2 }, (_, i) => `${i}`.repeat(3_000_000));
    for (const values of [['a', 'bc'], long, big]) {
      const good = await encodeScbf([{ name: 's', values }]);
      const { columns: meta } = await fieldsOf(good);
      const real = meta[0].blocks[1].uncompressedSize;
      for (const stored of [0, 1, real - 1, real + 1, real * 3 + 5]) {
        const bytes = setU64(good, meta[0].blocks[1].fieldOffset, stored);
        const report = await validateScbf(new MemorySource(bytes));
        expect(report.valid, `${stored}: ${JSON.stringify(report.errors)}`).toBe(true);
        expect(report.warnings.map((w) => w.code)).toEqual(['S4']);
        const reader = await openScbf(new MemorySource(bytes));
        const column = await reader.readColumn('s');
        expect(column.length).toBe(values.length);
        expect((column as unknown as { get(i: number): string }).get(values.length - 1)).toBe(values.at(-1));
        let n = 0;
        for await (const batch of reader.batches({ batchRows: 1000 })) n += batch.length;
        expect(n).toBe(values.length);
      }
    }
  });

  it('offsets that disagree with the inflated strings stay errors (CountMismatch)', async () => {
    const strings = enc.encode('abcdef');
    // Offsets end short of the strings, whatever str_uncomp_size says.
    const short = craft([{ name: 's', type: 'utf8', raw: [u32s(0, 2, 5), strings] }], 2);
    const { columns: meta } = await fieldsOf(short);
    for (const stored of [6, 5, meta[0].blocks[0].offset]) {
      const bytes = setU64(short, meta[0].blocks[1].fieldOffset, stored);
      const report = await validateScbf(new MemorySource(bytes));
      expect(report.errors.map((e) => e.code)).toEqual(['CountMismatch']);
      await expect(openScbf(new MemorySource(bytes)).then((r) => r.readColumn('s'))).rejects.toMatchObject({
        code: 'CountMismatch',
      });
    }
    // Offsets run past the strings.
    const past = craft([{ name: 's', type: 'utf8', raw: [u32s(0, 2, 9), strings] }], 2);
    const bytes = setU64(past, (await fieldsOf(past)).columns[0].blocks[1].fieldOffset, 9);
    expect((await validateScbf(new MemorySource(bytes))).errors.map((e) => e.code)).toEqual([
      'CountMismatch',
    ]);
    await expect(openScbf(new MemorySource(bytes)).then((r) => r.readColumn('s'))).rejects.toMatchObject({
      code: 'CountMismatch',
    });
  });
});
