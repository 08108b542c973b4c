import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type ByteSource, type DataRecord, readExact, recordToJson, type Target } from '@binscope/core';
import { toHex } from '@binscope/core/binary';
import { openFile } from '@binscope/core/node';
import { expect } from 'vitest';
import { type ImageValue, type MldfReader, mldfPlugin, type NdArray, openMldf } from '@binscope/mldf';
import type { ValidCase } from '../vectors.js';
import type { FormatConformance } from './types.js';

type Json = Record<string, unknown>;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function targetPath(testCase: ValidCase): string {
  const file = fs.readdirSync(testCase.dir).find((n) => n.endsWith('.mldf'));
  if (!file) throw new Error(`no .mldf file in ${testCase.dir}`);
  return path.join(testCase.dir, file);
}

/** A5 numbers: shortest round-trip doubles, -0.0 kept, non-finite as strings, 64-bit as decimal strings. */
function expectNumber(actual: number | bigint, expected: unknown, what: string): void {
  if (typeof actual === 'bigint') {
    expect(actual.toString(), what).toBe(String(expected));
    return;
  }
  if (expected === 'NaN') expect(Number.isNaN(actual), what).toBe(true);
  else if (expected === 'Infinity' || expected === '-Infinity') expect(String(actual), what).toBe(expected);
  else expect(actual, what).toBe(expected as number);
}

async function raw(source: ByteSource, ptr: number, size: number): Promise<Uint8Array> {
  return size === 0 ? new Uint8Array(0) : readExact(source, ptr, size);
}

async function checkHeader(reader: MldfReader, source: ByteSource, expected: Json): Promise<void> {
  const h = reader.header;
  const e = expected.header as Json;
  expect(toHex(await readExact(source, 0, 9)), 'magic').toBe(e.magic_hex);
  const actual: Json = {
    version_major: h.versionMajor,
    version_minor: h.versionMinor,
    flags: h.flags,
    num_samples: h.numSamples,
    num_fields: h.numFields,
    _pad1: h.pad1,
    page_size: h.pageSize,
    field_desc_ptr: h.fieldDescPtr,
    metadata_ptr: h.metadataPtr,
    data_ptr: h.dataPtr,
    alloc_table_ptr: h.allocTablePtr,
    _reserved_hex: toHex(h.reserved),
  };
  for (const [key, value] of Object.entries(e)) {
    if (key === 'magic_hex') continue;
    expect(actual[key], `header.${key}`).toEqual(
      typeof value === 'string' && key !== '_reserved_hex' ? Number(value) : value,
    );
  }
}

async function checkFields(reader: MldfReader, source: ByteSource, expected: Json): Promise<void> {
  const fields = expected.fields as Json[];
  expect(reader.fields.length, 'field count').toBe(fields.length);
  for (const e of fields) {
    const f = reader.fields[e.index as number];
    const where = `field ${e.index}`;
    const descriptor = await readExact(source, f.descriptorOffset, 208);
    const view = new DataView(descriptor.buffer, descriptor.byteOffset, 208);
    const actual: Json = {
      index: f.index,
      name: f.name,
      type_id: f.typeId,
      type: f.type,
      flags: f.flags,
      metadata_size: f.metadataSize,
      metadata_offset: f.metadataOffset,
      arguments_hex: toHex(f.arguments),
      _pad: view.getUint32(72, true),
      tail_pad_hex: toHex(descriptor.subarray(204, 208)),
      ndarray: f.ndarray ? { dtype: f.ndarray.dtype, shape: [...f.ndarray.shape] } : undefined,
    };
    for (const [key, value] of Object.entries(e)) expect(actual[key], `${where}.${key}`).toEqual(value);
  }
  if (expected.metadata_row_size !== undefined)
    expect(reader.rowSize, 'metadata_row_size').toBe(expected.metadata_row_size);
}

async function checkAllocTable(reader: MldfReader, source: ByteSource, expected: Json): Promise<void> {
  const e = expected.alloc_table as Json | undefined;
  if (!e) return;
  const entries: Array<{ ptr: number; size: number }> = [];
  for await (const chunk of reader.allocationEntries()) entries.push(...chunk);
  await reader.checkAllocations();
  expect(entries.length, 'alloc_table.count').toBe(e.count);
  const bytes = await raw(source, reader.header.allocTablePtr, entries.length * 16);
  expect(sha256(bytes), 'alloc_table.sha256').toBe(e.sha256);
  if (e.entries) {
    expect(entries, 'alloc_table.entries').toEqual(
      (e.entries as Json[]).map((x) => ({ ptr: Number(x.ptr), size: Number(x.size) })),
    );
  }
}

async function checkSamples(reader: MldfReader, source: ByteSource, expected: Json): Promise<void> {
  const samples = (expected.samples as Json[] | undefined) ?? [];
  expect(reader.numSamples, 'num_samples').toBe(samples.length);
  // Three read paths must agree: sequential, batched (shuffled) and one sample at a time.
  const sequential = [];
  for await (const s of reader.iterate()) sequential.push(s);
  const shuffled = samples.map((_, i) => (i * 7 + 3) % samples.length);
  const batched = await reader.samples(shuffled);
  for (let i = 0; i < samples.length; i++) {
    const single = await reader.sample(i);
    expect(sequential[i], `sample ${i} sequential vs random`).toEqual(single);
    expect(batched[shuffled.indexOf(i)], `sample ${i} batched vs random`).toEqual(single);
    for (const [name, e] of Object.entries(samples[i])) {
      const f = reader.getField(name);
      const where = `sample ${i} ${name}`;
      const value = single[name];
      expect(await reader.field(i, name), `${where} field()`).toEqual(value);
      if (f.type === 'INT' || f.type === 'FLOAT') {
        expectNumber(value as number | bigint, e, where);
        continue;
      }
      const ev = e as Json;
      const info = await reader.valueInfo(i, name);
      const bytes = await raw(source, info.ptr, info.size);
      const decodedBytes =
        value === undefined
          ? new Uint8Array(0)
          : f.type === 'BYTES'
            ? (value as Uint8Array)
            : f.type === 'IMAGE_RAW'
              ? (value as ImageValue).pixels
              : f.type === 'NDARRAY'
                ? new Uint8Array(
                    (value as NdArray).data.buffer,
                    (value as NdArray).data.byteOffset,
                    (value as NdArray).data.byteLength,
                  )
                : bytes;
      const actual: Json = {
        ptr: info.ptr,
        size: info.size,
        sha256: sha256(bytes),
        hex: toHex(decodedBytes),
        pixels_hex: toHex(decodedBytes),
        height: info.height,
        width: info.width,
        channels: info.channels,
        mode: info.mode,
        num_tokens: info.numTokens,
        encoding: info.encoding,
      };
      expect(sha256(decodedBytes), `${where} decoded bytes`).toBe(sha256(bytes));
      for (const [key, want] of Object.entries(ev)) {
        if (key === 'value') expect(value ?? null, `${where}.value`).toEqual(want);
        else if (key === 'text') expect(value ?? '', `${where}.text`).toBe(want);
        else if (key === 'values') {
          const data =
            value === undefined ? [] : Array.from((value as NdArray).data as ArrayLike<number | bigint>);
          expect(data.length, `${where}.values length`).toBe((want as unknown[]).length);
          for (let k = 0; k < data.length; k++)
            expectNumber(data[k], (want as unknown[])[k], `${where}.values[${k}]`);
        } else if (key === 'shape' || key === 'dtype') {
          expect((value as NdArray)[key], `${where}.${key}`).toEqual(want);
        } else if (key in actual) {
          expect(actual[key], `${where}.${key}`).toEqual(
            typeof want === 'string' && typeof actual[key] === 'number' ? Number(want) : want,
          );
        } else {
          throw new Error(
            `${where}: expected.json key '${key}' is not checked by the MLDF conformance module`,
          );
        }
      }
      if (f.type === 'IMAGE_RAW' && value !== undefined) {
        const image = value as ImageValue;
        expect([image.height, image.width, image.channels, image.mode], `${where} geometry`).toEqual([
          info.height,
          info.width,
          info.channels,
          info.mode,
        ]);
      }
    }
  }
}

/**
 * The records as the apps print them (core's recordToJson over the reader's schema) agree with
 * expected.json, and each value's location is its bytes then its metadata cell.
 */
async function checkRecords(reader: MldfReader, expected: Json): Promise<void> {
  const samples = (expected.samples as Json[] | undefined) ?? [];
  const records: DataRecord[] = [];
  for await (const record of mldfPlugin.records(reader, { locations: true })) records.push(record);
  expect(
    records.map((r) => r.index),
    'record indices',
  ).toEqual(samples.map((_, i) => i));
  for (const record of records) {
    const i = record.index;
    const json = await recordToJson(reader.schema, record);
    expect(json.sample, `record ${i} sample`).toBe(i);
    for (const [name, e] of Object.entries(samples[i])) {
      const f = reader.getField(name);
      const where = `record ${i} ${name}`;
      const value = json[name] as Json | null;
      const [first, ...rest] = record.locations![name];
      const cell = rest.at(-1) ?? first;
      expect(cell.offset, `${where} cell`).toBe(
        reader.header.metadataPtr + i * reader.rowSize + f.metadataOffset,
      );
      if (f.type === 'INT' || f.type === 'FLOAT') {
        expectNumber(record.values[name] as number | bigint, e, where);
        if (f.type === 'INT') expect(String(value), `${where} JSON`).toBe(String(e));
        continue;
      }
      const ev = e as Json;
      if ((ev.size as number) > 0)
        expect([first.offset, first.length], `${where} location`).toEqual([Number(ev.ptr), Number(ev.size)]);
      if (f.type === 'BYTES' || f.type === 'IMAGE_RAW') {
        if (value === null) expect(ev.size, `${where} size`).toBe(0);
        else expect([value.size, value.sha256], `${where} size, sha256`).toEqual([ev.size, ev.sha256]);
      }
      if ('value' in ev) expect(value, `${where}.value`).toEqual(ev.value);
      if ('text' in ev) expect(value, `${where}.text`).toBe(ev.text);
      if ('values' in ev) {
        const got = (value?.values as unknown[] | undefined) ?? [];
        expect(got.length, `${where}.values length`).toBe((ev.values as unknown[]).length);
        // JSON output: 64-bit elements beyond 2^53 are decimal strings (A5), as expected.json writes them.
        for (let k = 0; k < got.length; k++)
          expectNumber(
            typeof got[k] === 'string' ? BigInt(got[k] as string) : (got[k] as number),
            (ev.values as unknown[])[k],
            `${where}.values[${k}]`,
          );
        expect(value?.dtype, `${where}.dtype`).toBe(f.ndarray?.dtype);
      }
    }
  }
}

const conformance: FormatConformance = {
  plugin: mldfPlugin,
  targetPath,
  async checkValid(testCase) {
    const file = targetPath(testCase);
    const expected = testCase.expected;
    const source = openFile(file);
    const reader = await openMldf(source);
    try {
      if (expected.file_size !== undefined) expect(source.size, 'file_size').toBe(expected.file_size);
      if (expected.file_sha256)
        expect(sha256(fs.readFileSync(file)), 'file_sha256').toBe(expected.file_sha256);
      await checkHeader(reader, source, expected);
      await checkFields(reader, source, expected);
      await checkAllocTable(reader, source, expected);
      await checkSamples(reader, source, expected);
      await checkRecords(reader, expected);
      if (Array.isArray(expected.warnings))
        expect(
          reader.warnings.map((w) => w.code),
          'warnings',
        ).toEqual(
          expected.warnings.map((w: string | { code: string }) => (typeof w === 'string' ? w : w.code)),
        );
    } finally {
      await reader.close();
      // Whoever opens a source closes it: the reader leaves it open.
      await source.close();
    }
  },
  async readAll(target: Target) {
    const reader = await mldfPlugin.open(target);
    try {
      for await (const _batch of reader.batches()) {
        // decoding every value is the check
      }
      for await (const _record of mldfPlugin.records(reader)) {
        // and every record as the apps read them
      }
      for await (const _chunk of reader.allocationEntries()) {
        // entries are checked as they stream
      }
      await reader.checkAllocations();
    } finally {
      await reader.close();
    }
  },
};

export default conformance;
