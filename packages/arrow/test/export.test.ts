import * as path from 'node:path';
import { type DataRecord, fileTarget, MemorySource, type RecordsInput, type Schema } from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { describeWith, pythonModules, runPython, tempDir } from '@binscope/testkit';
import { decode } from 'fast-png';
import { afterAll, expect, it } from 'vitest';
import { arrowFileConverter, arrowStreamConverter } from '../src/export.js';
import { arrowPlugin, arrowsPlugin } from '../src/plugin.js';
import { convertOptions } from './helpers.js';

const U64_MAX = 2n ** 64n - 1n;
const I64_MIN = -(2n ** 63n);

const schema: Schema = {
  fields: [
    { name: 'u64', type: { kind: 'int', bits: 64, signed: false } },
    { name: 'i64', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
    { name: 'half', type: { kind: 'float', bits: 16 } },
    { name: 'flag', type: { kind: 'bool' } },
    { name: 'meta', type: { kind: 'json' }, nullable: true },
    { name: 'vec', type: { kind: 'ndarray', dtype: 'i32', shape: [2, 2] } },
    { name: 'image', type: { kind: 'image' } },
  ],
};

function record(i: number): DataRecord {
  return {
    index: i,
    values: {
      u64: i === 0 ? U64_MAX : BigInt(i),
      i64: i === 1 ? null : i === 0 ? I64_MIN : 2 ** 53 + 2 * i,
      half: 0.5 + i,
      flag: i % 2 === 0,
      meta: i === 2 ? null : { i, tags: ['a'] },
      vec: { dtype: 'i32', shape: [2, 2], data: Int32Array.of(i, -i, 7, 8) },
      image: { height: 1, width: 2, channels: 3, pixels: Uint8Array.of(i, 2, 3, 4, 5, 6) },
    },
  };
}

function input(count: number, extra: Partial<DataRecord> = {}): RecordsInput {
  return {
    kind: 'records',
    name: 'made.test',
    format: 'test',
    schema,
    tables: async function* () {},
    records: async function* () {
      for (let i = 0; i < count; i++) yield { ...record(i), ...(i === count - 1 ? extra : {}) };
    },
    summary: async () => ({ format: 'test', title: 'test', counts: {}, properties: [] }),
  };
}

async function exported(kind: 'file' | 'stream', count: number, values = {}) {
  const sink = new MemorySink();
  const converter = kind === 'file' ? arrowFileConverter : arrowStreamConverter;
  const report = await converter.convertRecords!(
    input(count),
    { kind: 'file', sink },
    convertOptions(values),
  );
  return { bytes: sink.bytes(), report };
}

const dir = tempDir('arrow-export-');
afterAll(() => dir.remove());

it('writes bounded record batches and reads them back exactly (64-bit ints, float16, json, ndarray, nulls)', async () => {
  for (const kind of ['file', 'stream'] as const) {
    const { bytes, report } = await exported(kind, 10, { batchRows: 3 });
    expect(report.details).toMatchObject({ rows: 10, batches: 4 });
    const plugin = kind === 'file' ? arrowPlugin : arrowsPlugin;
    const reader = await plugin.open(fileTarget(new MemorySource(bytes, `x.${kind}`)));
    expect((await plugin.info(reader)).counts).toEqual({ rows: 10, columns: 7, batches: 4 });
    const back: DataRecord[] = [];
    for await (const r of plugin.records(reader)) back.push(r);
    expect(back[0].values.u64).toBe(U64_MAX);
    expect(back[0].values.i64).toBe(I64_MIN);
    expect(back[1].values.i64).toBeNull();
    expect(back[5].values.i64).toBe(BigInt(2 ** 53 + 10));
    expect(back[4].values.half).toBe(4.5);
    expect(back[2].values.meta).toBeNull();
    expect(back[3].values.meta).toEqual({ i: 3, tags: ['a'] });
    expect(back[9].values.vec).toMatchObject({
      dtype: 'i32',
      shape: [2, 2],
      data: Int32Array.of(9, -9, 7, 8),
    });
    expect(back[7].values.image).toEqual({
      height: 1,
      width: 2,
      channels: 3,
      pixels: Uint8Array.of(7, 2, 3, 4, 5, 6),
    });
    expect((await plugin.validate(fileTarget(new MemorySource(bytes, 'x')))).valid).toBe(true);
  }
});

it('--images png writes each image as a PNG that decodes to its pixels', async () => {
  const { bytes } = await exported('file', 2, { images: 'png' });
  const reader = await arrowPlugin.open(fileTarget(new MemorySource(bytes, 'x.arrow')));
  const back: DataRecord[] = [];
  for await (const r of arrowPlugin.records(reader)) back.push(r);
  const png = decode(back[1].values.image as Uint8Array);
  expect([png.width, png.height, png.channels]).toEqual([2, 1, 3]);
  expect(Array.from(png.data)).toEqual([1, 2, 3, 4, 5, 6]);
});

it("refuses a record that stands for one the reader could not read, with that problem's error", async () => {
  const problem = {
    code: 'OutOfBounds',
    message: 'table points past the file',
    offset: 96,
    file: 'made.test',
  };
  const run = arrowFileConverter.convertRecords!(
    input(3, { problem }),
    { kind: 'file', sink: new MemorySink() },
    convertOptions(),
  );
  await expect(run).rejects.toMatchObject({
    code: 'OutOfBounds',
    offset: 96,
    message: /table points past the file/,
  });
});

it('a null in a field the schema says is never null is refused, naming the field', async () => {
  const bad = { values: { ...record(2).values, u64: null } };
  const run = arrowFileConverter.convertRecords!(
    input(3, bad),
    { kind: 'file', sink: new MemorySink() },
    convertOptions(),
  );
  await expect(run).rejects.toMatchObject({ code: 'InvalidValue', message: /u64 is null/ });
});

describeWith(pythonModules(['pyarrow']), 'pyarrow', () => {
  it('reads uint64 2^64-1 and int64 -2^63 exactly, and the batches as written', async () => {
    const file = path.join(dir.dir, 'exact.arrow');
    (await import('node:fs')).writeFileSync(file, (await exported('file', 5, { batchRows: 2 })).bytes);
    const script = path.join(dir.dir, 'exact.py');
    (await import('node:fs')).writeFileSync(
      script,
      'import sys, json, pyarrow.ipc as ipc\nr = ipc.open_file(sys.argv[1])\nt = r.read_all()\n' +
        'print(json.dumps([r.num_record_batches, str(t.column("u64")[0]), str(t.column("i64")[0]), t.column("i64").null_count]))\n',
    );
    expect(JSON.parse(runPython(script, [file]))).toEqual([3, String(U64_MAX), String(I64_MIN), 1]);
  });
});
