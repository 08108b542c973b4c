import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { recordToJson, type Target } from '@binscope/core';
import { toHex } from '@binscope/core/binary';
import { openFile } from '@binscope/core/node';
import { openUdf, type TableInfo, type UdfDataset, type UdfReader, udfPlugin } from '@binscope/udf';
import { expect } from 'vitest';
import type { ValidCase } from '../vectors.js';
import type { FormatConformance } from './types.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A5: 64-bit integers as decimal strings, non-finite floats as strings, everything else as numbers. */
function elementJson(value: number | bigint): Json {
  if (typeof value === 'bigint') return value.toString();
  if (Number.isFinite(value)) return value;
  return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
}

async function tableJson(dataset: UdfDataset, info: TableInfo): Promise<Record<string, Json>> {
  const table = await dataset.read(info);
  const out: Record<string, Json> = {
    key_name: info.name,
    key_hash: info.keyHash,
    type_info: info.typeInfo,
    type_info_hex: `0x${info.typeInfo.toString(16).padStart(4, '0')}`,
    prim: info.prim,
    dims: info.dims,
    hint: info.hint,
    hint_value: info.hintValue,
    compress_info: info.compressInfo,
    mem_start: info.memStart,
    mem_end: info.memEnd,
    data_size: info.dataSize,
    data_shape_raw: info.dataShapeRaw,
    shape: info.shape,
    ghost_dims: info.ghostDims,
    element_count: info.elementCount,
    index_name: info.indexName,
    related_name: info.relatedName,
    type_name: info.typeName,
    checksum: info.checksum,
    reserved: info.reserved,
    data_file_offset: info.dataOffset,
    data_sha256: sha256(table.bytes),
  };
  if (table.values) out.values = Array.from(table.values as ArrayLike<number | bigint>, elementJson);
  if (table.text !== undefined) out.text = table.text;
  if (table.json !== undefined) out.json = table.json as Json;
  if (table.fileOffsets)
    out.file_offsets = table.fileOffsets.map((f) => ({ offset: f.offset, size: f.size }));
  return out;
}

async function datasetJson(d: UdfDataset): Promise<Record<string, Json>> {
  const h = d.header;
  const tables: Json[] = [];
  for (const info of d.tables) tables.push(await tableJson(d, info));
  return {
    file_offset: { offset: d.fileOffset.offset, size: d.fileOffset.size },
    check: h.check,
    checksum: h.checksum,
    id: h.id,
    id_hex: toHex(h.idBytes),
    header_size: h.headerSize,
    descs_len: h.descsLen,
    lookup_len: h.lookupLen,
    string_len: h.stringLen,
    reserved: h.reserved,
    names: d.names.map((n) => ({ hash: n.hash, offset: n.offset, len: n.len, string: n.string })),
    tables,
  };
}

/**
 * Compares every value `expected` gives: keys the reader does not produce fail as undefined.
 * Text lists may be nested per declared axis in expected.json; the API gives them row-major.
 */
function expectMatches(actual: unknown, expected: unknown, where: string): void {
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual), `${where} is an array`).toBe(true);
    const got = actual as unknown[];
    expect(got.length, `${where}.length`).toBe(expected.length);
    expected.forEach((e, i) => {
      expectMatches(got[i], e, `${where}[${i}]`);
    });
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    expect(actual !== null && typeof actual === 'object', `${where} is an object`).toBe(true);
    for (const [key, value] of Object.entries(expected)) {
      expectMatches((actual as Record<string, unknown>)[key], value, `${where}.${key}`);
    }
    return;
  }
  expect(
    Object.is(actual, expected),
    `${where}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
  ).toBe(true);
}

function flattenText(value: Json): Json {
  return Array.isArray(value) ? (value as Json[]).flat(Number.POSITIVE_INFINITY as 1) : value;
}

const INFO_KEYS = new Set(['format', 'valid', 'case', 'note']);

/**
 * The records the apps print (the catalogue, through recordToJson): one per table in walk
 * order, each with the content the reader API decodes, in A5 form (64-bit integers compared
 * as decimal text, as expected.json writes them).
 */
async function expectCatalogue(reader: UdfReader, datasets: UdfDataset[]): Promise<void> {
  const tables = datasets.flatMap((d) => d.tables.map((info) => ({ d, info })));
  let i = 0;
  for await (const record of udfPlugin.records(reader)) {
    const json = await recordToJson(reader.schema, record);
    const { d, info } = tables[i++];
    expect([json.dataset_id, json.table, json.shape]).toEqual([d.id, info.name, info.shape]);
    const table = await d.read(info);
    const wide = info.prim === 'u64' || info.prim === 'i64';
    if (table.text !== undefined) expect(json.text).toEqual(table.text);
    else if (table.json !== undefined) expect(json.json).toEqual(table.json);
    else if (table.fileOffsets) expect(json.file_offsets).toEqual(table.fileOffsets);
    else if (table.values && info.elementCount <= 65_536)
      expect((json.values as Json[]).map((v) => (wide ? String(v) : v))).toEqual(
        Array.from(table.values as ArrayLike<number | bigint>, (v) => (wide ? String(v) : elementJson(v))),
      );
  }
  expect(i).toBe(tables.length);
}

const conformance: FormatConformance = {
  plugin: udfPlugin,

  targetPath(testCase: ValidCase): string {
    const file = fs.readdirSync(testCase.dir).find((f) => f.endsWith('.udf'));
    if (!file) throw new Error(`no .udf file in ${testCase.dir}`);
    return path.join(testCase.dir, file);
  },

  async checkValid(testCase: ValidCase): Promise<void> {
    const file = this.targetPath(testCase);
    const bytes = fs.readFileSync(file);
    const source = openFile(file);
    try {
      const reader = await openUdf(source);
      const h = reader.header;
      const datasets = await reader.allDatasets();
      const actual: Record<string, unknown> = {
        file_size: bytes.byteLength,
        file_sha256: sha256(bytes),
        header: {
          magic: h.magic,
          id: h.id,
          id_hex: toHex(h.idBytes),
          next: Number(h.next) <= Number.MAX_SAFE_INTEGER ? Number(h.next) : h.next.toString(),
          root: h.root ? { offset: h.root.offset, size: h.root.size } : null,
          reserved: h.reserved.map((r) => (r <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(r) : r.toString())),
        },
        dataset_count: datasets.length,
        datasets: await Promise.all(datasets.map(datasetJson)),
      };
      const expected = testCase.expected as Record<string, Json>;
      for (const [key, value] of Object.entries(expected)) {
        if (INFO_KEYS.has(key)) continue;
        let want: Json = value;
        if (key === 'datasets') {
          want = (value as Record<string, Json>[]).map((d) => ({
            ...d,
            tables: (d.tables as Record<string, Json>[]).map((t) =>
              'text' in t ? { ...t, text: flattenText(t.text) } : t,
            ),
          }));
        }
        expectMatches(actual[key], want, key);
      }
      // The plugin's own summary agrees with the walk.
      const summary = await udfPlugin.info(reader);
      expect(summary.counts.datasets).toBe(expected.dataset_count);
      await expectCatalogue(reader, datasets);
    } finally {
      await source.close();
    }
  },

  /** Opens the file, walks every dataset and decodes every table, as a user reading it all would. */
  async readAll(target: Target): Promise<void> {
    try {
      const reader = (await udfPlugin.open(target)) as UdfReader;
      for await (const dataset of reader.walk()) {
        for (const info of dataset.tables) await dataset.read(info);
      }
    } finally {
      // A reader never closes the target it was handed: whoever opened it does.
      if (target.kind === 'file') await target.source.close?.();
    }
  },
};

export default conformance;
