import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { recordToJson, type Target, toJsonValue } from '@binscope/core';
import { maxOf, minOf } from '@binscope/core/binary';
import { NodeFileSource } from '@binscope/core/node';
import { openScbf, type ScbfReader, type ScbfType, scbfPlugin, Utf8Column } from '@binscope/scbf';
import { csvToScbf, scbfToCsv } from '@binscope/scbf/node';
import { expect } from 'vitest';
import type { ValidCase } from '../vectors.js';
import type { FormatConformance } from './types.js';

type Json = Record<string, unknown>;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function caseFile(testCase: ValidCase, ext: string): string {
  const named = path.join(testCase.dir, `${testCase.name}.${ext}`);
  if (fs.existsSync(named)) return named;
  const found = fs.readdirSync(testCase.dir).filter((f) => f.endsWith(`.${ext}`));
  if (found.length !== 1)
    throw new Error(`${testCase.dir}: expected one .${ext} file, found ${found.length}`);
  return path.join(testCase.dir, found[0]);
}

/** A5: floats compare by value incl. the sign of zero; non-finite as strings. */
function expectValuesEqual(
  actual: readonly (number | string)[],
  expected: readonly unknown[],
  what: string,
): void {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    if (typeof a === 'number') {
      const json = toJsonValue(a);
      if (typeof json === 'string' || typeof e === 'string') expect(json, `${what}[${i}]`).toBe(e);
      else expect(Object.is(a, e) || (a === e && a !== 0), `${what}[${i}]: ${a} vs ${e}`).toBe(true);
    } else {
      expect(a, `${what}[${i}]`).toBe(e);
    }
  }
}

function asArray(values: Int32Array | Float64Array | Utf8Column): (number | string)[] {
  return values instanceof Utf8Column ? values.toArray() : Array.from(values);
}

async function checkColumns(reader: ScbfReader, expected: Json[], what: string): Promise<void> {
  expect(reader.columns.length, `${what}: columns`).toBe(expected.length);
  for (const e of expected) {
    const column = reader.columns[e.index as number];
    const label = `${what} column ${e.index}`;
    expect(column.name, label).toBe(e.name);
    expect(column.type, label).toBe(e.type);
    expect(column.typeCode, label).toBe(e.type_code);
    expect(column.count, label).toBe(e.count);
    const blockFields =
      column.type === 'utf8'
        ? [
            ['off_uncomp_size', 'off_comp_size', 'off_offset', 'offsets_sha256'],
            ['str_uncomp_size', 'str_comp_size', 'str_offset', 'strings_sha256'],
          ]
        : [['uncomp_size', 'comp_size', 'block_offset', 'uncomp_sha256']];
    for (const [i, [uncomp, comp, offset, hash]] of blockFields.entries()) {
      const block = column.blocks[i];
      if (uncomp in e) expect(block.uncompressedSize, `${label} ${uncomp}`).toBe(e[uncomp]);
      if (comp in e && what === 'vector') expect(block.compressedSize, `${label} ${comp}`).toBe(e[comp]);
      if (offset in e && what === 'vector') expect(block.offset, `${label} ${offset}`).toBe(e[offset]);
      // Compressed bytes differ between zlib builds (S3): compare the inflated content.
      if (hash in e) expect(sha256(await reader.readBlock(block, column)), `${label} ${hash}`).toBe(e[hash]);
    }
    if (what === 'vector' && 'meta_entry_offset' in e)
      expect(column.entryOffset, `${label} meta_entry_offset`).toBe(e.meta_entry_offset);

    const values = asArray(await reader.readColumn(column.index));
    if (Array.isArray(e.values)) expectValuesEqual(values, e.values, `${label} values`);
    const sample = e.values_sample as { first?: unknown[]; last?: unknown[] } | undefined;
    if (sample?.first)
      expectValuesEqual(values.slice(0, sample.first.length), sample.first, `${label} first`);
    if (sample?.last)
      expectValuesEqual(values.slice(values.length - sample.last.length), sample.last, `${label} last`);
    if (typeof e.distinct_count === 'number')
      expect(new Set(values).size, `${label} distinct_count`).toBe(e.distinct_count);
    if (typeof e.utf8_bytes_total === 'number')
      expect(column.blocks[1].uncompressedSize, `${label} utf8_bytes_total`).toBe(e.utf8_bytes_total);
    if (column.type !== 'utf8' && values.length) {
      const numbers = values as number[];
      if (typeof e.min === 'number')
        expect(
          minOf(numbers, (v) => v),
          `${label} min`,
        ).toBe(e.min);
      if (typeof e.max === 'number')
        expect(
          maxOf(numbers, (v) => v),
          `${label} max`,
        ).toBe(e.max);
      if (typeof e.sum === 'number')
        expect(
          numbers.reduce((s, v) => s + v, 0),
          `${label} sum`,
        ).toBe(e.sum);
    }

    // The single-value accessor and a row range agree with the whole column.
    if (values.length) {
      const mid = values.length >> 1;
      expect(await reader.value(column.index, mid), `${label} value(${mid})`).toEqual(values[mid]);
      expectValuesEqual(
        asArray(await reader.readColumn(column.index, { start: mid, end: mid + 3 })),
        values.slice(mid, mid + 3),
        `${label} range`,
      );
    }
  }
  // Streamed rows (records) agree with the columns.
  const limit = Math.min(reader.rowCount, 50);
  const rows: Record<string, unknown>[] = [];
  for await (const record of scbfPlugin.records(reader, { limit }))
    rows.push(await recordToJson(reader.schema, record));
  expect(rows.length).toBe(limit);
  for (const e of expected) {
    const name = e.name as string;
    const values = asArray(await reader.readColumn(name, { end: limit })).map((v) => toJsonValue(v));
    if (reader.columns.filter((c) => c.name === name).length === 1)
      expect(rows.map((r) => r[name])).toEqual(values);
  }
}

const conformance: FormatConformance = {
  plugin: scbfPlugin,

  targetPath: (testCase) => caseFile(testCase, 'scbf'),

  async checkValid(testCase) {
    const expected = testCase.expected as Json;
    const file = caseFile(testCase, 'scbf');
    const bytes = fs.readFileSync(file);
    expect(bytes.byteLength).toBe(expected.file_size);
    expect(sha256(bytes)).toBe(expected.file_sha256);

    const source = NodeFileSource.open(file, path.basename(file));
    const reader = await openScbf(source);
    try {
      const h = expected.header as Json;
      const { header } = reader;
      expect(Buffer.from(header.magic, 'latin1').toString('hex')).toBe(h.magic_hex);
      expect(header.schemaLength).toBe(h.schema_len);
      expect(header.schemaJson).toBe(h.schema_json);
      expect(header.schema).toEqual(h.schema);
      expect(header.numColumns).toBe(h.num_columns);
      expect(header.totalRows).toBe(h.total_rows);
      expect(header.metaTableOffset).toBe(h.meta_table_offset);
      expect(header.metaTableEnd).toBe(h.meta_table_end);
      await checkColumns(reader, expected.columns as Json[], 'vector');

      const info = await scbfPlugin.info(reader);
      expect(info.counts).toEqual({ rows: h.total_rows, columns: h.num_columns });
    } finally {
      await reader.close();
    }

    // CSV → SCBF (our writer, S7 inference unless the case gave types) → same content; SCBF → CSV (S8) identical.
    if (typeof expected.source_csv !== 'string') return;
    const csvPath = path.join(testCase.dir, expected.source_csv);
    const csv = fs.readFileSync(csvPath);
    expect(sha256(csv)).toBe(expected.source_csv_sha256);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'scbf-conformance-'));
    try {
      const schema = ((expected.header as Json).schema as { columns: { name: string; type: ScbfType }[] })
        .columns;
      const types = expected.types_given_explicitly ? schema.map((c) => c.type) : undefined;
      const written = path.join(work, 'written.scbf');
      await csvToScbf(csvPath, written, { types });
      const ours = await openScbf(NodeFileSource.open(written, 'written.scbf'));
      try {
        expect(ours.header.schemaJson, 'schema_json written from the CSV').toBe(
          (expected.header as Json).schema_json,
        );
        await checkColumns(ours, expected.columns as Json[], 'written');
      } finally {
        await ours.close();
      }
      if (expected.csv_roundtrip_identical) {
        await scbfToCsv(written, path.join(work, 'ours.csv'));
        expect(sha256(fs.readFileSync(path.join(work, 'ours.csv'))), 'CSV → SCBF → CSV').toBe(
          expected.source_csv_sha256,
        );
        await scbfToCsv(file, path.join(work, 'vector.csv'));
        expect(sha256(fs.readFileSync(path.join(work, 'vector.csv'))), 'vector → CSV').toBe(
          expected.source_csv_sha256,
        );
      }
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  },

  async readAll(target: Target) {
    const reader = await scbfPlugin.open(target);
    for (const column of reader.columns) {
      const values = await reader.readColumn(column.index);
      if (values instanceof Utf8Column) values.toArray();
    }
    for await (const _ of scbfPlugin.records(reader)) {
      // every row decoded
    }
  },
};

export default conformance;
