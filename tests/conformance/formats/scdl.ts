import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { type JsonValue, readExact, recordToJson, type Target, toJsonValue } from '@binscope/core';
import { toHex } from '@binscope/core/binary';
import { openDirectory } from '@binscope/core/node';
import { type FeatureIndex, openScdl, type ScdlReader, scdlPlugin, serializeHeader } from '@binscope/scdl';
import { expect } from 'vitest';
import type { ValidCase } from '../vectors.js';
import { trackKeys } from './keys.js';
import type { FormatConformance } from './types.js';

const UPSTREAM_DTYPE: Record<string, string> = {
  uint8: 'UINT8_ARRAY',
  uint16: 'UINT16_ARRAY',
  uint32: 'UINT32_ARRAY',
  uint64: 'UINT64_ARRAY',
  float16: 'FLOAT16_ARRAY',
  float32: 'FLOAT32_ARRAY',
  float64: 'FLOAT64_ARRAY',
  string: 'STRING_ARRAY',
  fixed_string: 'FIXED_STRING_ARRAY',
};
const ARRAY_FILE: Record<string, string> = { DATA: 'data.npy', ROWPTR: 'row_ptr.npy', COLPTR: 'col_ptr.npy' };
/** Keys that describe the case rather than the archive. */
const INFO_KEYS = ['case', 'produced_by', 'notes'];

// biome-ignore lint/suspicious/noExplicitAny: expected.json is free-form; each field is checked where it is used.
type Json = Record<string, any>;

function archiveDir(testCase: ValidCase): string {
  return path.join(testCase.dir, String(testCase.expected.archive_dir ?? 'archive'));
}

/** A5 values as JSON (bigints above 2^53 become strings, non-finite floats strings). */
function json(value: unknown): JsonValue {
  return toJsonValue(value);
}

/** Expected numbers compare as numbers; "NaN"/"Infinity" strings as themselves. */
function expectValues(actual: unknown, expected: unknown, what: string): void {
  expect(json(actual), what).toEqual(expected);
}

async function fileBytes(reader: ScdlReader, file: string): Promise<Uint8Array> {
  const source = await reader.directory.open(file);
  return readExact(source, 0, source.size);
}

async function checkFiles(reader: ScdlReader, expected: Json[]): Promise<void> {
  for (const entry of expected) {
    expect(reader.files, `file list has ${entry.path}`).toContain(entry.path);
    const source = await reader.directory.open(entry.path);
    expect(source.size, `${entry.path} size`).toBe(entry.size_bytes);
    if (entry.sha256) {
      const hash = createHash('sha256')
        .update(await fileBytes(reader, entry.path))
        .digest('hex');
      expect(hash, `${entry.path} sha256`).toBe(entry.sha256);
    }
  }
}

/** The reader's view of a header array: DATA, ROWPTR or COLPTR. */
function readerArray(reader: ScdlReader, name: string): { itemSize: number } {
  const array = ({ DATA: reader.data, ROWPTR: reader.rowPtr, COLPTR: reader.colPtr } as const)[name];
  if (!array) throw new Error(`header array ${name} has no reader counterpart`);
  return array;
}

/** `descr` and `shape` from a .npy header dict, read from the bytes, not through the reader. */
async function npyHeader(reader: ScdlReader, file: string): Promise<{ descr: string; shape: number[] }> {
  const head = new TextDecoder('latin1').decode((await fileBytes(reader, file)).subarray(0, 256));
  const descr = /'descr':\s*'([^']*)'/.exec(head)?.[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(head)?.[1];
  if (descr === undefined || shape === undefined) throw new Error(`${file}: no npy header dict`);
  return { descr, shape: shape.split(',').flatMap((d) => (d.trim() ? [Number(d)] : [])) };
}

async function checkHeader(reader: ScdlReader, h: Json): Promise<void> {
  const headerFile = h.file ?? 'header.sch';
  expect(reader.files).toContain(headerFile);
  const raw = await fileBytes(reader, headerFile);
  if (h.size_bytes !== undefined) expect(raw.byteLength).toBe(h.size_bytes);
  if (h.hex !== undefined) {
    expect(toHex(raw)).toBe(h.hex);
    // What our writer serialises from the parsed header is upstream's bytes.
    expect(
      toHex(serializeHeader({ arrays: reader.header.arrays, featureIndices: reader.header.featureIndices })),
    ).toBe(h.hex);
  }
  const v = reader.header.version;
  if (h.magic !== undefined) expect(new TextDecoder().decode(raw.subarray(0, 4))).toBe(h.magic);
  if (h.version) expect({ major: v.major, minor: v.minor, point: v.point }).toEqual(h.version);
  if (h.version_string !== undefined) expect(reader.version).toBe(h.version_string);
  if (h.endianness_byte !== undefined) expect(reader.header.endianness).toBe(h.endianness_byte);
  if (h.endianness !== undefined)
    expect(reader.header.endianness === 1 ? 'NETWORK' : 'other').toBe(h.endianness);
  if (h.backend)
    expect({
      name: reader.header.backend === 1 ? 'MEMMAP_V0' : 'unknown',
      value: reader.header.backend,
    }).toEqual(h.backend);
  if (h.array_count !== undefined) expect(reader.header.arrays.length).toBe(h.array_count);
  for (const [k, ea] of (h.arrays ?? []).entries()) {
    const a = reader.header.arrays[k];
    expect(a.name).toBe(ea.name);
    if (ea.file !== undefined) expect(ARRAY_FILE[a.name] ?? a.name).toBe(ea.file);
    expect(a.length).toBe(Number(ea.length));
    if (ea.dtype) expect({ name: UPSTREAM_DTYPE[a.dtype], value: a.dtypeCode }).toEqual(ea.dtype);
    if (ea.numpy_dtype !== undefined) expect(a.dtype).toBe(ea.numpy_dtype);
    if (ea.itemsize !== undefined) expect(readerArray(reader, a.name).itemSize).toBe(ea.itemsize);
    if ('shape' in ea) expect(a.shape).toEqual(ea.shape);
    const file = ARRAY_FILE[a.name] ?? a.name;
    const size = (await reader.directory.open(file)).size;
    if (ea.file_size_bytes !== undefined) expect(size).toBe(ea.file_size_bytes);
    if (ea.file_size_matches_length !== undefined)
      expect(size === a.length * readerArray(reader, a.name).itemSize).toBe(ea.file_size_matches_length);
  }
  if (h.feature_index_count !== undefined)
    expect(reader.header.featureIndices.length).toBe(h.feature_index_count);
  for (const [k, ef] of (h.feature_indices ?? []).entries()) {
    const f = reader.header.featureIndices[k];
    expect(f.name).toBe(ef.name);
    expect(f.length).toBe(Number(ef.length));
    if (ef.dtype) expect({ name: UPSTREAM_DTYPE[f.dtype], value: f.dtypeCode }).toEqual(ef.dtype);
    if (ef.index_files) expect(f.files).toEqual(ef.index_files);
    if ('shape' in ef) expect(f.shape).toEqual(ef.shape);
  }
}

/**
 * The obs columns a record of `row` carries, from expected.json's obs_features: every column
 * any block names (null by default), then the values of the block covering the row.
 */
function obsColumns(obs: Json | undefined, row: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!obs) return out;
  const starts: number[] = obs.cumulative_sum_index.values.map((v: number) => Math.max(0, v));
  for (const block of obs.blocks) for (const c of block.columns) out[c.name] = null;
  const b = starts.findIndex((start, k) => k + 1 < starts.length && start <= row && row < starts[k + 1]);
  if (b >= 0) for (const c of obs.blocks[b].columns) out[c.name] = c.values[row - starts[b]];
  return out;
}

async function checkMatrix(reader: ScdlReader, m: Json, obs?: Json): Promise<void> {
  if (m.num_rows !== undefined) expect(reader.numRows).toBe(m.num_rows);
  if (m.num_rows_from_row_ptr !== undefined) expect(reader.rowPtr.length - 1).toBe(m.num_rows_from_row_ptr);
  if (m.nnz !== undefined) expect(reader.nnz).toBe(m.nnz);
  if (m.data_numpy_dtype !== undefined) expect(reader.data.dtype).toBe(m.data_numpy_dtype);
  if (m.row_ptr_numpy_dtype !== undefined) expect(reader.rowPtr.dtype).toBe(m.row_ptr_numpy_dtype);
  if (m.col_ptr_numpy_dtype !== undefined) expect(reader.colPtr.dtype).toBe(m.col_ptr_numpy_dtype);
  const blockCols: number[] = [];
  if (reader.varIndex)
    for (let b = 0; b < reader.varIndex.blockCount; b++) blockCols.push(await reader.varIndex.tableRows(b));
  if (m.num_cols_per_block !== undefined) expect(blockCols).toEqual(m.num_cols_per_block);
  if (m.shape_reported_by_python !== undefined)
    expect([reader.numRows, blockCols]).toEqual(m.shape_reported_by_python);

  // Whole-matrix facts through the batched sequential reader.
  const rowPtr: number[] = [0];
  const rowNnz: number[] = [];
  let sum = 0;
  let colMax = -1;
  for await (const batch of reader.batches({ batchBytes: 4096 })) {
    for (let k = 0; k + 1 < batch.indptr.length; k++) {
      rowNnz.push(batch.indptr[k + 1] - batch.indptr[k]);
      rowPtr.push(rowPtr[rowPtr.length - 1] + rowNnz[rowNnz.length - 1]);
    }
    for (let k = 0; k < batch.values.length; k++) sum += Number(batch.values[k]);
    for (let k = 0; k < batch.indices.length; k++) colMax = Math.max(colMax, batch.indices[k]);
  }
  if (m.row_ptr !== undefined) expect(rowPtr).toEqual(m.row_ptr.map(Number));
  if (m.row_nnz !== undefined) expect(rowNnz).toEqual(m.row_nnz);
  if (m.empty_rows !== undefined)
    expect(rowNnz.flatMap((n, i) => (n === 0 ? [i] : []))).toEqual(m.empty_rows);
  if (typeof m.data_sum === 'number')
    expect(sum).toBeCloseTo(m.data_sum, Math.max(0, 5 - Math.ceil(Math.log10(Math.abs(m.data_sum) + 1))));
  if (m.col_ptr_max !== undefined) expect(colMax).toBe(m.col_ptr_max);

  for (const er of m.rows ?? []) {
    const row = await reader.row(er.row);
    if (er.nnz !== undefined) expect(row.values.length, `row ${er.row} nnz`).toBe(er.nnz);
    expectValues(row.indices, er.col_indices, `row ${er.row} indices`);
    expectValues(row.values, er.values, `row ${er.row} values`);
    // The batched reader agrees with the single-row one.
    const batch = await reader.rows(er.row, er.row + 1);
    expectValues(batch.row(0).values, er.values, `rows(${er.row}) values`);
    // And the record, as every app prints it: the matrix fields, then the row's obs columns.
    for await (const record of scdlPlugin.records(reader, { offset: er.row, limit: 1 }))
      expect(await recordToJson(reader.schema, record), `record ${er.row}`).toEqual({
        row: er.row,
        indices: json(er.col_indices),
        values: json(er.values),
        ...obsColumns(obs, er.row),
      });
  }
  for (const ep of m.padded_rows ?? [])
    expectValues(await reader.rowPadded(ep.row), ep.values, `padded row ${ep.row}`);
  for (const s of m.get_row_column_samples ?? []) {
    expect(Number(await reader.value(s.row, s.col)), `value(${s.row}, ${s.col})`).toBe(Number(s.value));
  }
}

async function checkFeatureIndex(
  reader: ScdlReader,
  index: FeatureIndex | undefined,
  e: Json,
  isVar: boolean,
): Promise<void> {
  expect(index, `${e.dir} is read`).toBeDefined();
  if (!index) return;
  if (e.dir !== undefined) expect(index.name).toBe(e.dir);
  const cumulative = e.cumulative_sum_index;
  if (cumulative?.values) expect(index.cumulativeSumIndex).toEqual(cumulative.values.map(Number));
  if (cumulative?.npy_dtype !== undefined)
    expect((await npyHeader(reader, `${index.name}/cumulative_sum_index.npy`)).descr).toBe(
      cumulative.npy_dtype,
    );
  const version = e.version_npy;
  if (version?.value !== undefined) expect(index.version).toBe(version.value);
  if (version?.npy_dtype !== undefined || version?.shape !== undefined) {
    const npy = await npyHeader(reader, `${index.name}/version.npy`);
    if (version.npy_dtype !== undefined) expect(npy.descr).toBe(version.npy_dtype);
    if (version.shape !== undefined) expect(npy.shape).toEqual(version.shape);
  }
  if (e.labels_json !== undefined) expect(index.labels).toEqual(e.labels_json);
  if (e.number_of_rows !== undefined) expect(index.rows).toBe(e.number_of_rows);
  if (e.num_blocks !== undefined) expect(index.blockCount).toBe(e.num_blocks);
  if (e.column_dims !== undefined) {
    const dims: number[] = [];
    for (let b = 0; b < index.blockCount; b++)
      dims.push(isVar ? await index.tableRows(b) : (await index.columns(b)).length);
    expect(dims).toEqual(e.column_dims);
  }
  for (const [b, eb] of (e.blocks ?? []).entries()) {
    const info = await index.parquetInfo(b);
    if (eb.file !== undefined) expect(info.file).toBe(`${index.name}/${eb.file}`);
    if (eb.parquet_num_rows !== undefined) expect(info.numRows).toBe(eb.parquet_num_rows);
    if (eb.parquet_created_by !== undefined) expect(info.createdBy).toBe(eb.parquet_created_by);
    if (eb.label !== undefined) expect(index.block(b).label).toBe(eb.label);
    const table = await index.table(b);
    expect(table.columns).toEqual((eb.columns ?? []).map((c: Json) => c.name));
    for (const [k, ec] of (eb.columns ?? []).entries()) {
      if (ec.arrow_type !== undefined) expect(info.columns[k].type, `${ec.name} type`).toBe(ec.arrow_type);
      if (ec.count !== undefined) expect(table.values[k].length).toBe(ec.count);
      if (ec.values !== undefined)
        expectValues(table.values[k], ec.values, `${index.name} block ${b} column ${ec.name}`);
    }
  }
}

async function checkLookups(reader: ScdlReader, lookups: Json): Promise<void> {
  for (const [key, e] of Object.entries(lookups)) {
    const numbered = /row(\d+)/.exec(key);
    const row: number =
      e.row ?? (numbered ? Number(numbered[1]) : key.includes('last') ? reader.numRows - 1 : 0);
    if (key.startsWith('var') || e.features !== undefined) {
      const f = await reader.features(row);
      expect(f, `${key}`).toBeDefined();
      if (e.label !== undefined) expect(f!.label).toBe(e.label);
      for (const [k, ef] of (e.features ?? []).entries()) {
        if (ef.count !== undefined) expect(f!.values[k].length).toBe(ef.count);
        if (ef.values !== undefined) expectValues(f!.values[k], ef.values, `${key} feature column ${k}`);
      }
    } else {
      const o = await reader.obs(row);
      expect(o, `${key}`).toBeDefined();
      if (e.label !== undefined) expect(o!.label).toBe(e.label);
      if (e.values !== undefined) expectValues(o!.values, e.values, `${key} values`);
    }
  }
}

const conformance: FormatConformance = {
  plugin: scdlPlugin,
  targetPath: archiveDir,
  async checkValid(testCase) {
    const tracked = trackKeys(testCase.expected as Json, INFO_KEYS);
    const e = tracked.value;
    const directory = openDirectory(path.join(testCase.dir, String(e.archive_dir ?? 'archive')));
    const reader = await openScdl(directory);
    try {
      if (e.files) await checkFiles(reader, e.files);
      if (e.header) await checkHeader(reader, e.header);
      if (e.version_json !== undefined) expect(await reader.versionJson()).toEqual(e.version_json);
      if (e.metadata_json !== undefined) expect(await reader.metadataJson()).toEqual(e.metadata_json);
      if (e.matrix) await checkMatrix(reader, e.matrix, e.obs_features);
      if (e.var_features) await checkFeatureIndex(reader, reader.varIndex, e.var_features, true);
      if (e.obs_features) await checkFeatureIndex(reader, reader.obsIndex, e.obs_features, false);
      if (e.lookups) await checkLookups(reader, e.lookups);
      expect(tracked.unread(), 'expected.json keys the SCDL module does not check').toEqual([]);
    } finally {
      await directory.close();
    }
  },
  /** C7: a stale metadata.json row count is a warning, not an error. */
  expectedWarnings(testCase) {
    const e = testCase.expected as Json;
    const stated = e.metadata_json?.num_rows;
    return stated !== undefined && e.matrix?.num_rows !== undefined && stated !== e.matrix.num_rows
      ? ['Metadata']
      : [];
  },
  async readAll(target: Target) {
    const reader = await scdlPlugin.open(target);
    const scdl = reader;
    for await (const record of scdlPlugin.records(reader)) await recordToJson(reader.schema, record);
    for (let i = 0; i < scdl.numRows; i++) await scdl.rowPadded(i);
    for (const index of [scdl.varIndex, scdl.obsIndex]) {
      if (!index) continue;
      for (let b = 0; b < index.blockCount; b++) {
        await index.table(b);
        const info = index.block(b);
        if (info.end > info.start) {
          await scdl.features(info.start);
          await scdl.obs(info.start);
        }
      }
    }
    const graph = await scdl.neighbors();
    if (graph) for (let i = 0; i < graph.rows; i++) await graph.row(i);
    await scdlPlugin.info(reader);
    await scdlPlugin.inspect(reader);
    await reader.close?.();
  },
};

export default conformance;
