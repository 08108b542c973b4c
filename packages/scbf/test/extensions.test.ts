import { MemorySource, parseWhere, type ReadRequest, type Schema } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import {
  encodeFooter,
  encodeScbf,
  extensionsOf,
  openScbf,
  scbfPlugin,
  type Utf8Column,
  validateScbf,
} from '../src/index.js';
import { whereRows } from './helpers.js';
import { blocksEnd, TRAILER_LENGTH } from '../src/extensions.js';

const ids = Array.from({ length: 500 }, (_, i) => i * 3 - 200);
const columns = [
  { name: 'id', type: 'int32' as const, values: ids },
  { name: 'score', type: 'float64' as const, values: ids.map((i) => i / 8) },
  {
    name: 'tag',
    type: 'utf8' as const,
    values: ids.map((i) => ['b', '\u{1F600}', '\uFFFF', 'a', 'café'][Math.abs(i) % 5]),
  },
];
const src = (bytes: Uint8Array) => new MemorySource(bytes, 't.scbf');

describe('SCBF extension footer', () => {
  it('without extensions the file is byte-identical; with them it is the same bytes plus a footer', async () => {
    const plain = await encodeScbf(columns);
    expect(await encodeScbf(columns, { extensions: false })).toEqual(plain);
    const extended = await encodeScbf(columns, { extensions: true });
    expect(extended.subarray(0, plain.length)).toEqual(plain);
    expect(new TextDecoder().decode(extended.subarray(-4))).toBe('SCBX');
    expect(await extensionsOf(await openScbf(src(plain)))).toBeUndefined();
  });

  it('the extension-unaware block reader reads a file with extensions exactly as without', async () => {
    const extended = await openScbf(src(await encodeScbf(columns, { extensions: true })));
    const plain = await openScbf(src(await encodeScbf(columns)));
    expect(extended.columns).toEqual(plain.columns.map((c) => ({ ...c })));
    for (const column of plain.columns) {
      for (let b = 0; b < column.blocks.length; b++) {
        const a = await plain.readBlock(column.blocks[b], column);
        const e = await extended.readBlock(extended.columns[column.index].blocks[b], column);
        expect(e).toEqual(a);
      }
    }
    const tags = (await extended.readColumn('tag')) as Utf8Column;
    expect(tags.toArray()).toEqual(columns[2].values);
    // The footer starts where the blocks end: what upstream treats as ignorable trailing bytes (S5).
    const footer = await extensionsOf(extended);
    expect(footer?.bodyOffset).toBe(blocksEnd(extended.columns, extended.header.metaTableEnd));
    const report = await validateScbf(extended.source);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('statistics: numeric min/max, utf8 by code point with lengths, distinct estimate', async () => {
    const reader = await openScbf(src(await encodeScbf(columns, { extensions: true })));
    const stats = (await extensionsOf(reader))!.statistics!;
    expect(stats[0]).toMatchObject({ type: 'int32', min: -200, max: 1297, nullCount: 0 });
    expect(stats[1]).toMatchObject({ type: 'float64', min: -25, max: 1297 / 8 });
    // U+1F600 sorts after U+FFFF by code point although its UTF-16 form sorts before it.
    expect(stats[2]).toMatchObject({ minText: 'a', maxText: '\u{1F600}', minLength: 1, maxLength: 5 });
    expect(stats[0].distinct).toBeGreaterThan(490);
    expect(stats[0].distinct).toBeLessThan(510);
    expect(stats[2].distinct).toBe(5);
    const info = await scbfPlugin.info(reader);
    const props = Object.fromEntries(info.properties);
    expect(props.extensions).toMatch(/block checksums \(CRC32, 4 blocks/);
    expect(props['stats tag']).toContain('min "a"');
  });

  it('a corrupted block is named by validate through its checksum', async () => {
    const bytes = await encodeScbf(columns, { extensions: true });
    const reader = await openScbf(src(bytes));
    const strings = reader.columns[2].blocks[1];
    const bad = bytes.slice();
    bad[strings.offset + Math.floor(strings.compressedSize / 2)] ^= 0x10;
    const report = await validateScbf(src(bad));
    expect(report.valid).toBe(false);
    const named = report.errors.filter((e) => /is corrupted: CRC32/.test(e.message));
    expect(named).toHaveLength(1);
    expect(named[0].message).toMatch(/^column "tag" strings block \(block 3\)/);
    expect(named[0].offset).toBe(strings.offset);
  });

  it('an unknown extension record is skipped with a warning; the file stays valid', async () => {
    const plain = await encodeScbf(columns);
    // A footer with one record of kind 99 followed by the usual checksum record.
    const known = encodeFooter({ checksums: [] });
    const body = new Uint8Array([99, 0, 1, 0, 3, 0, 0, 0, 7, 7, 7]);
    const trailer = new Uint8Array(TRAILER_LENGTH);
    const view = new DataView(trailer.buffer);
    view.setBigUint64(0, BigInt(body.length), true);
    view.setUint16(8, 1, true);
    view.setUint16(10, 1, true);
    trailer.set(new TextEncoder().encode('SCBX'), 12);
    expect(known.length).toBeGreaterThan(0);
    const file = new Uint8Array([...plain, ...body, ...trailer]);
    const report = await validateScbf(src(file));
    expect(report.errors).toEqual([]);
    expect(report.warnings.map((w) => w.code)).toEqual(['UnknownExtension']);
    const footer = await extensionsOf(await openScbf(src(file)));
    expect(footer?.skipped).toEqual([{ kind: 99, version: 1, offset: plain.length, length: 3 }]);
  });

  it('statistics that do not match the data are an error (they would make --where skip matches)', async () => {
    const bytes = await encodeScbf(columns, { extensions: true });
    const reader = await openScbf(src(bytes));
    const stats = (await extensionsOf(reader))!.statistics!;
    const lying = encodeFooter({ statistics: stats.map((s, i) => (i === 0 ? { ...s, max: 1000 } : s)) });
    const plainLength = (await extensionsOf(reader))!.bodyOffset;
    const file = new Uint8Array([...bytes.subarray(0, plainLength), ...lying]);
    const report = await validateScbf(src(file));
    expect(report.errors.map((e) => e.message)).toEqual([
      'statistics of column "id" do not match its data: max is 1000 in the footer, 1297 in the column',
    ]);
  });

  it('a footer whose body would reach into the blocks is OutOfBounds', async () => {
    const bytes = await encodeScbf(columns, { extensions: true });
    const bad = bytes.slice();
    new DataView(bad.buffer).setBigUint64(bad.length - TRAILER_LENGTH, BigInt(bad.length), true);
    const report = await validateScbf(src(bad));
    expect(report.errors[0].code).toBe('OutOfBounds');
  });
});

describe('cat --where', () => {
  it('parses a small grammar and rejects what it cannot read', () => {
    const schema: Schema = {
      fields: [
        { name: 'id', type: { kind: 'int', bits: 32, signed: true } },
        { name: 'tag', type: { kind: 'string' } },
        { name: 'my col', type: { kind: 'float', bits: 64 } },
      ],
    };
    const parse = (text: string) => parseWhere(text, schema).conditions;
    expect(parse(`id >= 10 and tag = 'a' and "my col" != -1.5e3`)).toEqual([
      { column: 'id', op: '>=', value: 10 },
      { column: 'tag', op: '=', value: 'a' },
      { column: 'my col', op: '!=', value: -1500 },
    ]);
    expect(() => parse('id >')).toThrow(/expected a number/);
    expect(() => parse('id > 3 or id < 1')).toThrow(/expected "and"/);
    expect(() => parse('id ~ 3')).toThrow(/cannot read/);
  });

  it('returns exactly the matching rows, with and without statistics', async () => {
    for (const extensions of [false, true]) {
      const reader = await openScbf(src(await encodeScbf(columns, { extensions })));
      for (const where of ['id >= 1000', "tag > 'b'", 'score < 0 and id != -197', "tag = 'café'"]) {
        const got = [];
        for await (const r of whereRows(reader, where)) got.push(r);
        const rows = ids.map((id, i) => ({ id, score: columns[1].values[i], tag: columns[2].values[i] }));
        const expected = rows.filter((r) => parseWhere(where, reader.schema).matchesValues(r));
        expect(got).toEqual(expected);
        expect(got.length).toBeGreaterThan(0);
      }
    }
  });

  it('skips every block when the statistics exclude the predicate', async () => {
    const bytes = await encodeScbf(columns, { extensions: true });
    const reads: number[] = [];
    const source = src(bytes);
    const read = source.read.bind(source);
    source.read = (offset: number, length: number, request?: ReadRequest) => {
      reads.push(offset);
      return read(offset, length, request);
    };
    const reader = await openScbf(source);
    // Opening reads the header, the metadata table and the footer (the schema needs it).
    const footerAt = blocksEnd(reader.columns, reader.header.metaTableEnd);
    expect(reads.some((offset) => offset >= footerAt)).toBe(true);
    reads.length = 0;
    const skipped: string[] = [];
    const got = [];
    for await (const r of whereRows(reader, 'id > 5000', { onSkip: (s) => skipped.push(s.reason) }))
      got.push(r);
    expect(got).toEqual([]);
    expect(skipped).toEqual(['statistics of "id" exclude id > 5000']);
    expect(reads).toEqual([]); // not a single column block
  });

  it('compares a column with a literal of its kind only', async () => {
    const reader = await openScbf(src(await encodeScbf(columns)));
    await expect(whereRows(reader, "id = 'x'").next()).rejects.toThrow(/int32; compare it with a number/);
  });
});

describe('extendScbfFile (Node)', () => {
  it('adds a footer to an existing file in place, keeping every block byte', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { extendScbfFile } = await import('../src/node.js');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scbf-ext-'));
    try {
      const file = path.join(dir, 't.scbf');
      const plain = await encodeScbf(columns);
      fs.writeFileSync(file, plain);
      await extendScbfFile(file, file);
      const extended = new Uint8Array(fs.readFileSync(file));
      expect(extended.subarray(0, plain.length)).toEqual(plain);
      expect(extended).toEqual(await encodeScbf(columns, { extensions: true }));
      // Running it again replaces the footer rather than stacking a second one.
      await extendScbfFile(file, file);
      expect(new Uint8Array(fs.readFileSync(file))).toEqual(extended);
      expect(fs.readdirSync(dir)).toEqual(['t.scbf']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('property: a mutated footer never escapes the error taxonomy', () => {
  it('validate, info and records either work or fail with a FormatError', async () => {
    const fc = (await import('fast-check')).default;
    const { ERROR_CODES, isBinscopeError } = await import('@binscope/core');
    const { splitNulls } = await import('../src/index.js');
    const split = splitNulls([
      { name: 'n', type: 'int32', values: [1, null, 3, null, 5, 6, 7, 8, 9] },
      { name: 's', type: 'utf8', values: ['a', 'bb', '', 'd', 'e', 'f', 'g', 'h', 'i'] },
      { name: 'k', type: 'int32', values: [0, 1, 0, 1, 0, 1, 0, 1, 0] },
    ]);
    // Column k is dictionary-coded, so every footer kind is in the mutated bytes.
    const dictionaries = new Map([[2, ['yes', 'no']]]);
    const bytes = await encodeScbf(split.columns, { extensions: { nulls: split.nulls, dictionaries } });
    const footerAt = (await extensionsOf(await openScbf(src(bytes))))!.bodyOffset;
    const span = bytes.length - footerAt;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(span - 1), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 6,
        }),
        async (edits) => {
          const copy = bytes.slice();
          for (const [at, value] of edits) copy[footerAt + at] = value;
          const report = await validateScbf(src(copy));
          for (const e of report.errors) expect(ERROR_CODES).toContain(e.code);
          try {
            const reader = await openScbf(src(copy));
            await scbfPlugin.info(reader);
            for await (const _ of scbfPlugin.records(reader)) void _;
          } catch (error) {
            if (!isBinscopeError(error, 'FormatError')) throw error;
          }
        },
      ),
      { numRuns: 300, seed: 25 },
    );
  });
});
