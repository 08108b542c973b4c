import { type ErrorCode, isBinscopeError, MemorySource } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { openScbf } from '../src/plugin.js';
import { Utf8Column } from '../src/utf8.js';
import { validateScbf } from '../src/plugin.js';
import { encodeScbf, encodeHead } from '../src/write.js';
import { deflateBlock } from '../src/zlib-node.js';
import { craft, fieldsOf, setU64, u32s } from './helpers.js';

const enc = new TextEncoder();

async function sample(): Promise<Uint8Array> {
  return encodeScbf([
    { name: 'id', values: Int32Array.of(1, 2, 3) },
    { name: 'name', values: ['a', 'bb', ''] },
    { name: 'score', values: Float64Array.of(0.5, 1.5, -2) },
  ]);
}

/** validate reports `code` first (at `offset` if given), and reading the whole file fails with it too. */
async function expectDefect(bytes: Uint8Array, code: ErrorCode, offset?: number): Promise<void> {
  const report = await validateScbf(new MemorySource(bytes, 'defect.scbf'));
  expect(report.valid).toBe(false);
  expect(report.errors[0]?.code, JSON.stringify(report.errors)).toBe(code);
  if (offset !== undefined) expect(report.errors[0].offset, JSON.stringify(report.errors[0])).toBe(offset);
  expect(report.errors[0].format).toBe('scbf');
  expect(report.errors[0].file).toBe('defect.scbf');
  const error = await readEverything(bytes).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isBinscopeError(error, 'FormatError'), String(error)).toBe(true);
  expect((error as { code: string }).code, String(error)).toBe(code);
}

async function readEverything(bytes: Uint8Array): Promise<void> {
  const reader = await openScbf(new MemorySource(bytes, 'defect.scbf'));
  for (const column of reader.columns) {
    const values = await reader.readColumn(column.index);
    if (values instanceof Utf8Column) values.toArray();
  }
  for await (const _ of reader.rows()) {
    // decode every row
  }
}

describe('validate: header (S1, S2)', () => {
  it('accepts a sound file with no warnings', async () => {
    const report = await validateScbf(new MemorySource(await sample()));
    expect(report).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('BadMagic, UnsupportedVersion, Truncated magic', async () => {
    const bytes = await sample();
    const bad = bytes.slice();
    bad[4] = 'V'.charCodeAt(0);
    await expectDefect(bad, 'BadMagic', 0);
    const v2 = bytes.slice();
    v2[5] = '2'.charCodeAt(0);
    await expectDefect(v2, 'UnsupportedVersion');
    await expectDefect(bytes.slice(0, 5), 'Truncated');
    await expectDefect(new Uint8Array(0), 'Truncated');
    await expectDefect(enc.encode('PK\x03\x04 not scbf at all'), 'BadMagic');
  });

  it('Truncated header when schema_len runs past the end (no allocation from it)', async () => {
    const bytes = await sample();
    const huge = bytes.slice();
    new DataView(huge.buffer).setUint32(8, 0xffffffff, true);
    await expectDefect(huge, 'Truncated');
    await expectDefect(bytes.slice(0, 40), 'Truncated');
  });

  it('InvalidValue for schema_json that is not JSON or not a schema', async () => {
    const bytes = await sample();
    const broken = bytes.slice();
    broken[12] = '['.charCodeAt(0);
    await expectDefect(broken, 'InvalidValue', 12);
    const text = '{"rows": []}';
    const { head } = encodeHead(
      [{ name: 'a', type: 'int32', blocks: [{ uncompressedSize: 0, compressedSize: 8 }] }],
      0,
    );
    const reschema = rewriteSchema(new Uint8Array([...head, ...deflateBlock(new Uint8Array(0))]), text);
    await expectDefect(reschema, 'InvalidValue', 12);
  });

  it('SchemaMismatch when schema_json and the metadata table disagree (names, types, count)', async () => {
    const bytes = await sample();
    const base =
      '{"columns": [{"name": "id", "type": "int32"}, {"name": "name", "type": "utf8"}, {"name": "score", "type": "float64"}]}';
    await expectDefect(rewriteSchema(bytes, base.replace('"score"', '"scorf"')), 'SchemaMismatch');
    await expectDefect(rewriteSchema(bytes, base.replace('"float64"', '"int32"')), 'SchemaMismatch');
    await expectDefect(
      rewriteSchema(
        bytes,
        '{"columns": [{"name": "id", "type": "int32"}, {"name": "name", "type": "utf8"}]}',
      ),
      'SchemaMismatch',
    );
    // Same content, another spelling: valid, with a warning (S2 is a writer rule).
    const compact = rewriteSchema(bytes, base.replace(/": /g, '":').replace(/, /g, ','));
    const report = await validateScbf(new MemorySource(compact));
    expect(report.valid).toBe(true);
    expect(report.warnings.map((w) => w.code)).toEqual(['NonCanonicalSchema']);
  });
});

describe('validate: metadata table and bounds (S1, A3, A4)', () => {
  it('OutOfBounds for meta_table_offset inside the header or past the end', async () => {
    const bytes = await sample();
    const { header } = await fieldsOf(bytes);
    const at = header.headerLength - 8;
    await expectDefect(setU64(bytes, at, 3), 'OutOfBounds', at);
    await expectDefect(setU64(bytes, at, bytes.byteLength + 10), 'OutOfBounds', at);
    await expectDefect(setU64(bytes, at, 2 ** 60), 'OutOfBounds', at);
  });

  it('Truncated for a huge num_columns, before anything is sized by it', async () => {
    const bytes = await sample();
    const { header } = await fieldsOf(bytes);
    const huge = bytes.slice();
    new DataView(huge.buffer).setUint32(header.headerLength - 20, 0xffffffff, true);
    await expectDefect(huge, 'Truncated');
  });

  it('Truncated when the file ends inside the metadata table', async () => {
    const bytes = await sample();
    const { header } = await fieldsOf(bytes);
    await expectDefect(bytes.slice(0, header.metaTableEnd - 5), 'Truncated');
  });

  it('InvalidValue for an unknown type_code or a column name that is not UTF-8', async () => {
    const bytes = await sample();
    const { columns } = await fieldsOf(bytes);
    const badType = bytes.slice();
    const typeAt = columns[2].entryOffset + 2 + columns[2].nameLength;
    badType[typeAt] = 9;
    await expectDefect(badType, 'InvalidValue', typeAt);
    const badName = bytes.slice();
    badName[columns[0].entryOffset + 2] = 0xff;
    await expectDefect(badName, 'InvalidValue', columns[0].entryOffset + 2);
  });

  it('OutOfBounds / Truncated for blocks outside the file, OutOfBounds for blocks over the header', async () => {
    const bytes = await sample();
    const { columns } = await fieldsOf(bytes);
    const score = columns[2].blocks[0];
    await expectDefect(
      setU64(bytes, score.fieldOffset + 16, bytes.byteLength + 1),
      'OutOfBounds',
      score.fieldOffset + 16,
    );
    await expectDefect(
      setU64(bytes, score.fieldOffset + 8, score.compressedSize + 100),
      'Truncated',
      score.offset,
    );
    await expectDefect(bytes.slice(0, bytes.byteLength - 3), 'Truncated', score.offset);
    await expectDefect(setU64(bytes, score.fieldOffset + 16, 4), 'OutOfBounds', score.fieldOffset + 16);
  });

  it('OutOfBounds for a block that starts inside the column metadata table (past the header)', async () => {
    const bytes = await sample();
    const { header, columns } = await fieldsOf(bytes);
    const score = columns[2].blocks[0];
    // Inside the table and clear of the header, so only the table half of the check sees it.
    const inside = header.metaTableOffset + 8;
    expect(inside).toBeGreaterThanOrEqual(header.headerLength);
    expect(inside).toBeLessThan(header.metaTableEnd);
    await expectDefect(setU64(bytes, score.fieldOffset + 16, inside), 'OutOfBounds', score.fieldOffset + 16);
  });
});

describe('validate: counts and sizes (S5)', () => {
  it('CountMismatch when a count differs from total_rows, or a declared size from the count', async () => {
    const bytes = await sample();
    const { columns, header } = await fieldsOf(bytes);
    const countAt = columns[1].entryOffset + 3 + columns[1].nameLength;
    await expectDefect(setU64(bytes, countAt, 4), 'CountMismatch', countAt);
    await expectDefect(setU64(bytes, header.headerLength - 16, 4), 'CountMismatch');
    await expectDefect(
      setU64(bytes, columns[0].blocks[0].fieldOffset, 16),
      'CountMismatch',
      columns[0].blocks[0].fieldOffset,
    );
    await expectDefect(
      setU64(bytes, columns[1].blocks[0].fieldOffset, 12),
      'CountMismatch',
      columns[1].blocks[0].fieldOffset,
    );
  });

  it('CountMismatch without allocating for a declared size zlib cannot produce', async () => {
    const rows = 2 ** 40;
    const { head } = encodeHead(
      [{ name: 'a', type: 'int32', blocks: [{ uncompressedSize: rows * 4, compressedSize: 8 }] }],
      rows,
    );
    await expectDefect(new Uint8Array([...head, ...deflateBlock(new Uint8Array(0))]), 'CountMismatch');
  });

  it('CountMismatch when a block inflates to more or fewer bytes than declared', async () => {
    const longer = craft(
      [{ name: 'a', type: 'int32', raw: [u32s(1)], compressed: [deflateBlock(u32s(1, 2))] }],
      1,
    );
    await expectDefect(longer, 'CountMismatch');
    const shorter = craft(
      [{ name: 'a', type: 'int32', raw: [u32s(1, 2)], compressed: [deflateBlock(u32s(1))] }],
      2,
    );
    await expectDefect(shorter, 'CountMismatch');
  });
});

describe('validate: payload (S3, S4)', () => {
  it('DecompressError for a corrupt or cut zlib stream', async () => {
    const bytes = await sample();
    const { columns } = await fieldsOf(bytes);
    const block = columns[2].blocks[0];
    const corrupt = bytes.slice();
    corrupt[block.offset + block.compressedSize - 1] ^= 0xff;
    await expectDefect(corrupt, 'DecompressError', block.offset);
    await expectDefect(
      setU64(bytes, block.fieldOffset + 8, block.compressedSize - 4),
      'DecompressError',
      block.offset,
    );
    const notZlib = craft(
      [{ name: 'a', type: 'int32', raw: [u32s(1)], compressed: [enc.encode('hello')] }],
      1,
    );
    await expectDefect(notZlib, 'DecompressError');
  });

  it('utf8 offsets: InvalidValue when not starting at 0 or decreasing, OutOfBounds past the strings', async () => {
    const strings = enc.encode('abcd');
    await expectDefect(
      craft([{ name: 's', type: 'utf8', raw: [u32s(1, 2, 4), strings] }], 2),
      'InvalidValue',
    );
    await expectDefect(
      craft([{ name: 's', type: 'utf8', raw: [u32s(0, 3, 2, 4), strings] }], 3),
      'InvalidValue',
    );
    await expectDefect(craft([{ name: 's', type: 'utf8', raw: [u32s(0, 9, 4), strings] }], 2), 'OutOfBounds');
  });

  it('CountMismatch when the offsets do not end where the strings block does (S4)', async () => {
    const strings = enc.encode('abcdef');
    const good = craft([{ name: 's', type: 'utf8', raw: [u32s(0, 2, 6), strings] }], 2);
    const { columns } = await fieldsOf(good);
    const [offsets, stringsBlock] = columns[0].blocks;
    // Upstream stores the offsets block's offset in str_uncomp_size: a warning, not an error (s4.test.ts).
    const upstream = await validateScbf(
      new MemorySource(setU64(good, stringsBlock.fieldOffset, offsets.offset)),
    );
    expect(upstream.valid).toBe(true);
    expect(upstream.warnings.map((w) => w.code)).toEqual(['S4']);
    await expectDefect(
      craft([{ name: 's', type: 'utf8', raw: [u32s(0, 2, 5), strings] }], 2),
      'CountMismatch',
    );
  });

  it('InvalidValue for a string that is not UTF-8', async () => {
    const strings = new Uint8Array([0x61, 0xc3, 0x28, 0x62]);
    await expectDefect(
      craft([{ name: 's', type: 'utf8', raw: [u32s(0, 1, 4), strings] }], 2),
      'InvalidValue',
    );
    // A boundary through a multi-byte character makes both values invalid.
    const split = enc.encode('é');
    await expectDefect(craft([{ name: 's', type: 'utf8', raw: [u32s(0, 1, 2), split] }], 2), 'InvalidValue');
  });
});

describe('validate: order and layout', () => {
  it('reports every defect, the first in A2 order first', async () => {
    const bytes = await sample();
    const { columns } = await fieldsOf(bytes);
    // A payload defect in column 0 and a count defect in column 2.
    const corrupt = bytes.slice();
    const b0 = columns[0].blocks[0];
    corrupt[b0.offset + b0.compressedSize - 1] ^= 0xff;
    const both = setU64(corrupt, columns[2].blocks[0].fieldOffset, 99);
    const report = await validateScbf(new MemorySource(both));
    expect(report.errors.map((e) => e.code)).toEqual(['CountMismatch', 'DecompressError']);
  });

  it('reads a file whose metadata table and blocks are not where writers put them (readers seek)', async () => {
    // Blocks in reverse order right after the header, the metadata table at the end.
    const a = u32s(5, 6);
    const sRaw = [u32s(0, 1, 3), enc.encode('xyz')];
    const blocks = [deflateBlock(a), ...sRaw.map((r) => deflateBlock(r))];
    const plan = [
      {
        name: 'a',
        type: 'int32' as const,
        blocks: [{ uncompressedSize: 8, compressedSize: blocks[0].byteLength }],
      },
      {
        name: 's',
        type: 'utf8' as const,
        blocks: sRaw.map((r, i) => ({
          uncompressedSize: r.byteLength,
          compressedSize: blocks[i + 1].byteLength,
        })),
      },
    ];
    const { head } = encodeHead(plan, 2);
    const { header, columns } = await fieldsOf(
      new Uint8Array([...head, ...blocks.flat().flatMap((b) => [...b])]),
    );
    const headerBytes = head.subarray(0, header.headerLength);
    const table = head.slice(header.headerLength);
    const dataStart = header.headerLength;
    const order = [2, 1, 0];
    const placed: number[] = [];
    let at = dataStart;
    for (const i of order) {
      placed[i] = at;
      at += blocks[i].byteLength;
    }
    const file = new Uint8Array(at + table.byteLength);
    file.set(headerBytes, 0);
    for (const i of order) file.set(blocks[i], placed[i]);
    file.set(table, at);
    const view = new DataView(file.buffer);
    view.setUint32(header.headerLength - 8, at, true);
    const fields = [columns[0].blocks[0], ...columns[1].blocks].map(
      (b) => b.fieldOffset - header.headerLength + at,
    );
    for (const [i, f] of fields.entries()) view.setUint32(f + 16, placed[i], true);
    const report = await validateScbf(new MemorySource(file));
    expect(report.errors).toEqual([]);
    const reader = await openScbf(new MemorySource(file));
    expect(Array.from((await reader.readColumn('a')) as Int32Array)).toEqual([5, 6]);
    expect(((await reader.readColumn('s')) as Utf8Column).toArray()).toEqual(['x', 'yz']);
  });

  it('warns about bytes after the last block (ignored, S5)', async () => {
    const bytes = new Uint8Array([...(await sample()), 1, 2, 3]);
    const report = await validateScbf(new MemorySource(bytes));
    expect(report.valid).toBe(true);
    expect(report.warnings.map((w) => w.code)).toEqual(['TrailingBytes']);
  });
});

/** Replaces schema_json (and schema_len), shifting every absolute offset after it. */
function rewriteSchema(bytes: Uint8Array, schema: string): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const oldLength = view.getUint32(8, true);
  const text = enc.encode(schema);
  const shift = text.byteLength - oldLength;
  const out = new Uint8Array(bytes.byteLength + shift);
  out.set(bytes.subarray(0, 8));
  const o = new DataView(out.buffer);
  o.setUint32(8, text.byteLength, true);
  out.set(text, 12);
  out.set(bytes.subarray(12 + oldLength), 12 + text.byteLength);
  const suffix = 12 + text.byteLength;
  const metaAt = suffix + 12;
  const meta = o.getUint32(metaAt, true) + shift;
  o.setUint32(metaAt, meta, true);
  // Shift every block offset in the table.
  const n = o.getUint32(suffix, true);
  let p = meta;
  for (let i = 0; i < n; i++) {
    const nameLength = o.getUint16(p, true);
    const type = out[p + 2 + nameLength];
    p += 2 + nameLength + 1 + 8;
    for (let b = 0; b < (type === 3 ? 2 : 1); b++) {
      o.setUint32(p + 16, o.getUint32(p + 16, true) + shift, true);
      p += 24;
    }
  }
  return out;
}
