import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type ByteSource,
  type DataRecord,
  directoryTarget,
  fileTarget,
  isBinscopeError,
  jsonLine,
  MemoryDirectory,
  MemorySource,
  type RecordOptions,
  readExact,
  recordToJson,
} from '@binscope/core';
import { describeWith } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import {
  type FieldSpec,
  type MldfReader,
  MldfLazyText,
  mldfPlugin,
  openMldf,
  validateMldf,
  writeMldf,
} from '../src/index.js';
import { MLDF_VECTORS, readBytes, VECTORS_NEEDED } from './helpers.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * `binscope cat --format jsonl` of each vector as the CLI printed it before contract v2 (main at
 * b661e6b, MLDF's own rendering): `fixtures/<case>.jsonl`.
 */
const FIXTURES = path.join(import.meta.dirname, 'fixtures');

async function records(reader: MldfReader, options: RecordOptions = {}): Promise<DataRecord[]> {
  const out: DataRecord[] = [];
  for await (const record of mldfPlugin.records(reader, options)) out.push(record);
  return out;
}

/** The lines the CLI prints: core's one rendering, then core's one JSON printer. */
async function lines(reader: MldfReader, options: RecordOptions = {}): Promise<string[]> {
  const out: string[] = [];
  for (const record of await records(reader, options))
    out.push(jsonLine(await recordToJson(reader.schema, record)));
  return out;
}

function vector(name: string): MemorySource {
  return new MemorySource(readBytes(path.join(MLDF_VECTORS, name, `${name}.mldf`)), `${name}.mldf`);
}

describeWith(VECTORS_NEEDED, 'records as the apps print them', () => {
  for (const fixture of fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl'))) {
    const name = fixture.replace(/\.jsonl$/, '');
    it(`${name}: recordToJson gives the lines the CLI printed before, field for field`, async () => {
      const before = fs.readFileSync(path.join(FIXTURES, fixture), 'utf8').split('\n').filter(Boolean);
      const reader = await openMldf(vector(name));
      expect(await lines(reader)).toEqual(before);
      // A window of them, as --offset/-n ask.
      expect(await lines(reader, { offset: 1, limit: 2 })).toEqual(before.slice(1, 3));
    });
  }

  it('--columns: sample first, then the fields asked in file order; unknown names are ignored', async () => {
    const reader = await openMldf(vector('basic_mixed'));
    expect(await lines(reader, { columns: ['caption', 'label'], limit: 2 })).toEqual([
      '{"sample":0,"label":0,"caption":"hello"}',
      '{"sample":1,"label":1,"caption":""}',
    ]);
    expect(await lines(reader, { columns: ['nope'], limit: 1 })).toEqual(['{"sample":0}']);
  });

  it('the schema: sample, then each field with its logical type (INT i64, FLOAT f64, NDARRAY dtype and shape)', async () => {
    const basic = await openMldf(vector('basic_mixed'));
    expect(basic.schema.fields).toEqual([
      {
        name: 'sample',
        type: { kind: 'int', bits: 64, signed: false },
        description: 'position of the sample in the file (its metadata row)',
      },
      { name: 'label', type: { kind: 'int', bits: 64, signed: true }, metadata: { type: 'INT' } },
      { name: 'score', type: { kind: 'float', bits: 64 }, metadata: { type: 'FLOAT' } },
      { name: 'payload', type: { kind: 'bytes' }, metadata: { type: 'BYTES' } },
      { name: 'meta', type: { kind: 'json' }, nullable: true, metadata: { type: 'JSON' } },
      { name: 'caption', type: { kind: 'string' }, metadata: { type: 'TEXT_RAW' } },
    ]);
    const nd = await openMldf(vector('ndarray_image'));
    expect(nd.schema.fields.slice(1)).toEqual([
      {
        name: 'features',
        type: { kind: 'ndarray', dtype: 'f32', shape: [3, 4] },
        nullable: true,
        metadata: { type: 'NDARRAY', dtype: '<f4' },
      },
      {
        name: 'cube',
        type: { kind: 'ndarray', dtype: 'i16', shape: [2, 2, 2] },
        nullable: true,
        metadata: { type: 'NDARRAY', dtype: '<i2' },
      },
      { name: 'image', type: { kind: 'image' }, nullable: true, metadata: { type: 'IMAGE_RAW' } },
      { name: 'label', type: { kind: 'int', bits: 64, signed: true }, metadata: { type: 'INT' } },
    ]);
  });

  it('locations: each value at its bytes and its metadata cell, the same as locateRecord', async () => {
    for (const name of ['basic_mixed', 'ndarray_image']) {
      const source = vector(name);
      const reader = await openMldf(source);
      for (const record of await records(reader, { locations: true })) {
        const locations = record.locations!;
        const row = reader.header.metadataPtr + record.index * reader.rowSize;
        expect(locations.sample).toEqual([
          { offset: row, length: reader.rowSize, file: source.name, field: 'sample' },
        ]);
        for (const f of reader.fields) {
          const [first, ...rest] = locations[f.name];
          const cell = rest.at(-1) ?? first;
          expect(cell, `${name} ${record.index} ${f.name} cell`).toEqual({
            offset: row + f.metadataOffset,
            length: f.metadataSize,
            file: source.name,
            field: f.name,
          });
          const info = await reader.valueInfo(record.index, f.name);
          if (info.size > 0) {
            // The bytes there are the value's: what the record prints as size + sha256, or decodes to.
            const stored = await readExact(source, first.offset, first.length!);
            expect(first).toMatchObject({ offset: info.ptr, length: info.size });
            const json = (await recordToJson(reader.schema, record))[f.name] as { sha256?: string };
            if (json?.sha256) expect(json.sha256).toBe(sha256(stored));
            if (f.type === 'TEXT_RAW') expect(new TextDecoder().decode(stored)).toBe(record.values[f.name]);
          } else expect(rest).toEqual([]);
        }
        const flat = [
          { offset: row, length: reader.rowSize, file: source.name },
          ...reader.fields.flatMap((f) => locations[f.name]),
        ];
        expect(await mldfPlugin.locateRecord(reader, record.index)).toEqual(flat);
      }
    }
  });
});

describe('records of written files', () => {
  const fields: FieldSpec[] = [
    { name: 'label', type: 'INT' },
    { name: 'meta', type: 'JSON' },
  ];
  const raw = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    return new MldfLazyText(bytes, 0, bytes.byteLength, 'JSON', 'meta', 0, undefined);
  };

  it('JSON prints as the file stores it: integers beyond 2^53, -0.0, spellings and repeated keys', async () => {
    const stored = '{"id": 12345678901234567890, "w": -0.0, "x": 1.0, "k": 1, "k": 2}';
    const bytes = await writeMldf(fields, [
      { label: 1, meta: raw(stored) },
      { label: 2, meta: ['a', 2.5] },
    ]);
    const reader = await openMldf(new MemorySource(bytes));
    expect(await lines(reader)).toEqual([
      '{"sample":0,"label":1,"meta":{"id":12345678901234567890,"w":-0.0,"x":1.0,"k":1,"k":2}}',
      '{"sample":1,"label":2,"meta":["a",2.5]}',
    ]);
    // The value itself is the parsed JSON, as filters and the web page use it.
    const [first] = await records(reader, { limit: 1 });
    expect(first.values.meta).toEqual({ id: 12345678901234567000, w: -0, x: 1, k: 2 });
  });

  it('the records before a value that does not decode come out before its error', async () => {
    const samples = Array.from({ length: 6 }, (_, i) => ({ label: i, meta: { i } }));
    const bytes = await writeMldf(fields, samples);
    const reader = await openMldf(new MemorySource(bytes));
    const at = (await reader.valueInfo(3, 'meta')).ptr;
    const broken = bytes.slice();
    broken[at] = 0x5d; // ']' cannot start JSON
    const bad = await openMldf(new MemorySource(broken, 'bad.mldf'));
    const got: number[] = [];
    let error: unknown;
    try {
      for await (const record of mldfPlugin.records(bad)) got.push(record.index);
    } catch (e) {
      error = e;
    }
    expect(got).toEqual([0, 1, 2]);
    expect(isBinscopeError(error, 'InvalidValue')).toBe(true);
    expect((error as { offset?: number }).offset).toBe(at);
  });

  it('a missing JSON, NDARRAY or image value is null; empty BYTES and TEXT_RAW are the empty value', async () => {
    const all: FieldSpec[] = [
      { name: 'meta', type: 'JSON' },
      { name: 'vec', type: 'NDARRAY', dtype: '<f4', shape: [2] },
      { name: 'img', type: 'IMAGE_RAW' },
      { name: 'blob', type: 'BYTES' },
      { name: 'text', type: 'TEXT_RAW' },
    ];
    const reader = await openMldf(new MemorySource(await writeMldf(all, [{}])));
    expect(await lines(reader)).toEqual([
      `{"sample":0,"meta":null,"vec":null,"img":null,"blob":{"size":0,"sha256":"${sha256(new Uint8Array(0))}"},"text":""}`,
    ]);
  });
});

describe('the plugin contract', () => {
  it('a reader never closes the target it was handed', async () => {
    const inner = new MemorySource(await writeMldf([{ name: 'n', type: 'INT' }], [{ n: 1 }]));
    let closed = 0;
    const source: ByteSource = {
      size: inner.size,
      name: 'counted.mldf',
      read: (offset, length, request) => inner.read(offset, length, request),
      close: async () => void closed++,
    };
    const reader = await mldfPlugin.open(fileTarget(source));
    await reader.close();
    expect(closed).toBe(0);
    // Still readable: the source is the caller's to close.
    expect((await reader.sample(0)).n).toBe(1n);
  });

  it('a folder is refused by every verb, with the one message core gives', async () => {
    const folder = directoryTarget(new MemoryDirectory({}, 'dir'));
    await expect(mldfPlugin.open(folder)).rejects.toThrow('MLDF is a single file, not a directory');
    expect((await mldfPlugin.validate(folder)).errors[0]).toMatchObject({ code: 'BadMagic' });
  });

  it('capabilities.sample writes the demo file, byte for byte what `binscope demo` wrote before', async () => {
    const folder = new MemoryDirectory();
    expect(await mldfPlugin.capabilities!.sample!(folder)).toEqual(['train.mldf']);
    expect(await folder.list()).toEqual(['train.mldf']);
    const source = await folder.open('train.mldf');
    // sha256 of the CLI's demo train.mldf at main b661e6b (apps/cli/src/commands/demo.ts).
    expect(sha256(await readExact(source, 0, source.size))).toBe(
      '5270e09898d2f33ca8ad2339c41aa8ecec8f3cc707b265bbdfaa25e1b892aa4e',
    );
    expect(await validateMldf(source)).toEqual({ valid: true, errors: [], warnings: [] });
    const reader = await openMldf(source);
    expect(reader.numSamples).toBe(16);
    expect(reader.fields.map((f) => `${f.name}:${f.type}`)).toEqual([
      'label:INT',
      'score:FLOAT',
      'image:IMAGE_RAW',
      'caption:TEXT_RAW',
      'embedding:NDARRAY',
      'meta:JSON',
    ]);
  });
});
