import * as fs from 'node:fs';
import * as path from 'node:path';
import { type JsonRecord, MemorySource, parseWhere, type RecordOptions, recordToJson } from '@binscope/core';
import { vectorsFolder } from '@binscope/testkit';
import fc from 'fast-check';
import type { ScbfType } from '../src/layout.js';
import { openScbf, scbfPlugin } from '../src/plugin.js';
import type { ScbfReader } from '../src/read.js';
import { deflateBlock } from '../src/zlib-node.js';
import { type ColumnInput, encodeHead } from '../src/write.js';

export const VECTORS = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '../../..',
  process.env.BINSCOPE_VECTORS ?? '../shared/vectors',
);
export const SCBF_VECTORS = path.join(VECTORS, 'scbf');
export const VECTORS_NEEDED = vectorsFolder(SCBF_VECTORS);
export const VECTORS_PRESENT = VECTORS_NEEDED.present;

export function vectorCases(): {
  name: string;
  scbf: string;
  csv: string;
  expected: Record<string, unknown>;
}[] {
  if (!VECTORS_PRESENT) return [];
  return fs
    .readdirSync(SCBF_VECTORS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(SCBF_VECTORS, d.name, 'expected.json')))
    .map((d) => {
      const dir = path.join(SCBF_VECTORS, d.name);
      const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8'));
      const scbf = fs.readdirSync(dir).find((f) => f.endsWith('.scbf'))!;
      return {
        name: d.name,
        scbf: path.join(dir, scbf),
        csv: path.join(dir, expected.source_csv ?? ''),
        expected,
      };
    });
}

/** A file from raw (uncompressed) blocks, for crafting defects the writer would never make. */
export function craft(
  columns: { name: string; type: ScbfType; raw: Uint8Array[]; compressed?: Uint8Array[] }[],
  rows: number,
): Uint8Array {
  const compressed = columns.map((c) => c.compressed ?? c.raw.map((r) => deflateBlock(r)));
  const { head } = encodeHead(
    columns.map((c, i) => ({
      name: c.name,
      type: c.type,
      blocks: c.raw.map((r, j) => ({
        uncompressedSize: r.byteLength,
        compressedSize: compressed[i][j].byteLength,
      })),
    })),
    rows,
  );
  const parts = [head, ...compressed.flat()];
  const out = new Uint8Array(parts.reduce((s, p) => s + p.byteLength, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.byteLength;
  }
  return out;
}

export function u32s(...values: number[]): Uint8Array {
  return new Uint8Array(Uint32Array.from(values).buffer);
}

/** Absolute offsets of a file's metadata fields, from the reader itself. */
export async function fieldsOf(bytes: Uint8Array) {
  const reader = await openScbf(new MemorySource(bytes, 'crafted.scbf'));
  return { header: reader.header, columns: reader.columns };
}

export function setU64(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  view.setUint32(at, value % 2 ** 32, true);
  view.setUint32(at + 4, Math.floor(value / 2 ** 32), true);
  return out;
}

/** Random tables: unicode, empty strings, int32 extremes, any finite double, zero rows. */
export function tableArbitrary(
  options: { maxRows?: number; maxColumns?: number } = {},
): fc.Arbitrary<ColumnInput[]> {
  const maxRows = options.maxRows ?? 40;
  const text = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    fc.constantFrom('', ',', '"', '\n', '\r\n', ' lead', 'a,b"c', '""', '1', '1.5', '-0.0', 'nan'),
  );
  const column = (rows: number) =>
    fc.oneof(
      fc.record({
        type: fc.constant<ScbfType>('int32'),
        values: fc.array(
          fc.oneof(
            fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
            fc.constantFrom(-(2 ** 31), 2 ** 31 - 1, 0),
          ),
          { minLength: rows, maxLength: rows },
        ),
      }),
      fc.record({
        type: fc.constant<ScbfType>('float64'),
        values: fc.array(
          fc.oneof(
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.constantFrom(-0, 0, 88, 1e-5, 1.5e20, 5e-324),
          ),
          { minLength: rows, maxLength: rows },
        ),
      }),
      fc.record({
        type: fc.constant<ScbfType>('utf8'),
        values: fc.array(text, { minLength: rows, maxLength: rows }),
      }),
    );
  return fc
    .record({
      rows: fc.oneof(fc.constant(0), fc.nat({ max: maxRows })),
      columns: fc.integer({ min: 1, max: options.maxColumns ?? 5 }),
    })
    .chain(({ rows, columns }) =>
      fc.array(
        fc.record({
          name: fc.oneof(
            fc.string({ unit: 'grapheme', maxLength: 8 }),
            fc.constantFrom('id', '名前', 'a,b', '"q"', ''),
          ),
          col: column(rows),
        }),
        { minLength: columns, maxLength: columns },
      ),
    )
    .map((cols) =>
      cols.map(({ name, col }) => ({ name, type: col.type, values: col.values }) as ColumnInput),
    );
}

/**
 * `cat --where` as apps run it: core's parseWhere against the reader's schema, pushed down to
 * the plugin (capabilities.filter), each record as the CLI prints it.
 */
export async function* whereRows(
  reader: ScbfReader,
  where: string,
  options: Omit<RecordOptions, 'where'> = {},
): AsyncGenerator<JsonRecord> {
  const filter = parseWhere(where, reader.schema);
  for await (const record of scbfPlugin.records(reader, { ...options, where: filter }))
    yield await recordToJson(reader.schema, record);
}

/** Records as the CLI prints them (recordToJson), for assertions on values. */
export async function jsonRows(reader: ScbfReader, options: RecordOptions = {}): Promise<JsonRecord[]> {
  const out: JsonRecord[] = [];
  for await (const record of scbfPlugin.records(reader, options))
    out.push(await recordToJson(reader.schema, record));
  return out;
}
