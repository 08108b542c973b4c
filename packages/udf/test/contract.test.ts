import * as path from 'node:path';
import {
  type ByteSource,
  CountingSource,
  createRegistry,
  fileTarget,
  type JsonValue,
  MemoryDirectory,
  MemorySource,
  type TableInfo,
} from '@binscope/core';
import { describeWith, tempDir } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { udfFormat } from '../src/magic.js';
import { openUdfFile, writeUdfFile } from '../src/node.js';
import { catalogueSchema, openUdf, UdfBuilder, type UdfReader, udfPlugin } from '../src/index.js';
import { sceneBuilder } from '../src/sample.js';
import { jsonRecords, UDF_VECTORS, VECTORS_NEEDED } from './helpers.js';
import { variantsFile } from './variants.js';

/** JSON text as the CLI prints a record: JSON.stringify, except that a float -0 stays `-0.0`. */
function jsonLine(value: JsonValue): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0.0' : JSON.stringify(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jsonLine).join(',')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${JSON.stringify(k)}:${jsonLine(v)}`)
    .join(',')}}`;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function lines(reader: UdfReader, options = {}): Promise<string[]> {
  return (await jsonRecords(reader, options)).map(jsonLine);
}

/** `binscope cat --format jsonl` of the vectors, as the CLI printed them before contract v2. */
const VECTOR_LINES: Record<string, string[]> = {
  primitives: [
    '{"dataset":64,"dataset_id":"PRIM","table":"u8_1d","prim":"u8","dims":1,"hint":"none","shape":[5],"type_name":"bytes","values":[0,1,127,128,255]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"i8_1d","prim":"i8","dims":1,"hint":"none","shape":[5],"values":[-128,-1,0,1,127]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"u16_1d","prim":"u16","dims":1,"hint":"none","shape":[3],"values":[0,65535,1234]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"i16_2d","prim":"i16","dims":2,"hint":"none","shape":[2,3],"values":[-32768,-1,0,1,2,32767]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"u32_scalar","prim":"u32","dims":0,"hint":"none","shape":[],"values":[4294967295]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"i32_1d","prim":"i32","dims":1,"hint":"none","shape":[3],"values":[-2147483648,0,2147483647]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"u64_1d","prim":"u64","dims":1,"hint":"none","shape":[3],"values":[0,"18446744073709551615","9007199254740993"]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"i64_1d","prim":"i64","dims":1,"hint":"none","shape":[3],"values":["-9223372036854775808",-1,"9223372036854775807"]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"f32_3d","prim":"f32","dims":3,"hint":"none","shape":[2,2,2],"values":[0,-0.0,1.5,-2.25,3.4028234663852886e+38,1.401298464324817e-45,0.10000000149011612,65504]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"f64_1d","prim":"f64","dims":1,"hint":"none","shape":[4],"values":[0.1,-1e+308,5e-324,3.141592653589793]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"empty_1d","prim":"f64","dims":1,"hint":"none","shape":[0],"values":[]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"coords","prim":"f32","dims":1,"hint":"coord","shape":[3,2],"type_name":"vec2<f32>","related_name":"colors","values":[0,0,1,0.5,-1,2]}',
    '{"dataset":64,"dataset_id":"PRIM","table":"colors","prim":"u8","dims":1,"hint":"rgb","shape":[3,3],"related_name":"coords","values":[255,0,0,0,255,0,0,0,255]}',
  ],
  nested_text_json: [
    '{"dataset":864,"dataset_id":"ROOT","table":"children","prim":"u64","dims":1,"hint":"dataset","shape":[2,2],"file_offsets":[{"offset":64,"size":416},{"offset":480,"size":384}]}',
    '{"dataset":864,"dataset_id":"ROOT","table":"title","prim":"u8","dims":0,"hint":"text","shape":[14],"text":"Nested UDF ✓"}',
    '{"dataset":864,"dataset_id":"ROOT","table":"meta","prim":"custom","dims":0,"hint":"json","shape":[],"json":{"version":1,"tags":["a","b"],"ünï":"cödé"}}',
    '{"dataset":64,"dataset_id":"CHLA","table":"names","prim":"u8","dims":1,"hint":"text","shape":[4,10],"text":["alpha","","γάμμα","emoji 🎉"]}',
    '{"dataset":64,"dataset_id":"CHLA","table":"utf16","prim":"u16","dims":0,"hint":"text","shape":[18],"text":"UTF-16 text: 日本 🎉"}',
    '{"dataset":64,"dataset_id":"CHLA","table":"utf32_list","prim":"u32","dims":1,"hint":"text","shape":[4,2],"text":["a","bc","","🎉"]}',
    '{"dataset":64,"dataset_id":"CHLA","table":"items","prim":"custom","dims":1,"hint":"json","shape":[3],"json":[1,"two",{"three":3}]}',
    '{"dataset":480,"dataset_id":"CHLB","table":"vertices","prim":"f32","dims":1,"hint":"coord","shape":[6,2],"values":[0,0,1,0,1,1,0,1,2,2,3,3]}',
    '{"dataset":480,"dataset_id":"CHLB","table":"tri","prim":"u32","dims":1,"hint":"index","shape":[6],"index_name":"vertices","values":[0,1,2,2,3,0]}',
    '{"dataset":480,"dataset_id":"CHLB","table":"polys","prim":"u32","dims":1,"hint":"range","shape":[3,2],"index_name":"vertices","values":[0,3,3,3,3,6]}',
    '{"dataset":480,"dataset_id":"CHLB","table":"poly_ids","prim":"u16","dims":1,"hint":"none","shape":[3],"related_name":"polys","values":[10,20,30]}',
  ],
  root_null: [],
};

/** The same for variantsFile(): opaque bytes, values_head, an error stand-in, a dataset that does not load. */
const VARIANT_LINES = [
  '{"dataset":272,"dataset_id":"ROOT","table":"blob","prim":"custom","dims":1,"hint":"none","shape":[5],"type_name":"opaque","bytes":5}',
  `{"dataset":272,"dataset_id":"ROOT","table":"big","prim":"i16","dims":1,"hint":"none","shape":[70000],"values_head":[${Array.from({ length: 64 }, (_, i) => i - 30_000).join(',')}],"truncated":true}`,
  '{"dataset":272,"dataset_id":"ROOT","table":"bad","prim":"u8","dims":0,"hint":"text","shape":[4],"error":{"code":"InvalidValue","message":"table \\"bad\\": text is not valid UTF-8","offset":140616}}',
  '{"dataset":272,"dataset_id":"ROOT","table":"zc","prim":"u32","dims":1,"hint":"none","shape":[10],"values":[1,2,3,4,5,6,7,8,9,10]}',
  '{"dataset":272,"dataset_id":"ROOT","table":"kids","prim":"u64","dims":1,"hint":"dataset","shape":[2,2],"file_offsets":[{"offset":64,"size":112},{"offset":184,"size":96}]}',
  '{"dataset":64,"dataset_id":"KID","table":"k","prim":"u8","dims":1,"hint":"none","shape":[1],"type_name":"byte","values":[7]}',
  '{"dataset":184,"dataset_size":96,"referenced_at":140656,"error":{"code":"Misaligned","message":"dataset FileOffset (184, 96): offset and size must be multiples of 16","offset":140656}}',
];

describeWith(VECTORS_NEEDED, 'the catalogue prints as it always has', () => {
  for (const [name, expected] of Object.entries(VECTOR_LINES)) {
    it(`${name}: recordToJson gives the lines the CLI printed before, key for key`, async () => {
      const reader = await openUdfFile(path.join(UDF_VECTORS, name, `${name}.udf`));
      try {
        expect(await lines(reader)).toEqual(expected);
      } finally {
        await reader.close();
      }
    });
  }
});

describe('records as the apps print them', () => {
  it('opaque bytes, values_head, an error stand-in and a dataset that does not load print as before', async () => {
    const reader = await openUdf(new MemorySource(await variantsFile(), 'variants.udf'));
    expect(await lines(reader)).toEqual(VARIANT_LINES);
    // A window, and only the fields asked for, in the order asked; a stand-in keeps its error.
    expect(await lines(reader, { offset: 2, limit: 2, columns: ['table', 'prim'] })).toEqual([
      '{"table":"bad","prim":"u8","error":{"code":"InvalidValue","message":"table \\"bad\\": text is not valid UTF-8","offset":140616}}',
      '{"table":"zc","prim":"u32"}',
    ]);
  });

  it("the layout fields diff sets aside are the schema's layout marks: offsets and sizes", () => {
    expect(udfPlugin.layoutFields).toEqual(['dataset', 'dataset_size', 'referenced_at', 'file_offsets']);
    const marked = catalogueSchema.fields.filter((f) => f.metadata?.layout === 'true').map((f) => f.name);
    expect(marked).toEqual(udfPlugin.layoutFields);
  });

  it('locations: each field where locateRecord says, the content at the table data', async () => {
    const reader = await openUdf(new MemorySource(await variantsFile(), 'variants.udf'));
    let n = 0;
    for await (const record of udfPlugin.records(reader, { locations: true })) {
      const located = await udfPlugin.locateRecord(reader, record.index);
      expect(record.index).toBe(n++);
      for (const [field, places] of Object.entries(record.locations!)) {
        expect(record.values[field], field).toBeDefined();
        for (const place of places) expect(located).toContainEqual(place);
      }
      expect(Object.keys(record.locations!).sort()).toEqual(Object.keys(record.values).sort());
    }
    expect(n).toBe(VARIANT_LINES.length);
    const root = (await reader.root())!;
    const blob = root.table('blob')!;
    const first = await udfPlugin.locateRecord(reader, 0);
    expect(first[0]).toEqual({ offset: blob.dataOffset, length: blob.dataSize, file: 'variants.udf' });
    // Where the values of the first record are: the descriptor's fields, the dataset header, the data.
    const [record] = await collect(udfPlugin.records(reader, { locations: true, limit: 1 }));
    const at = (offset: number, length: number, field?: string) => ({
      offset,
      length,
      file: 'variants.udf',
      ...(field ? { field } : {}),
    });
    const desc = blob.descriptorOffset;
    expect(record.locations).toEqual({
      dataset: [at(root.fileOffset.offset, 24, 'dataset')],
      dataset_id: [at(root.fileOffset.offset, 24, 'dataset_id')],
      table: [at(desc, 4, 'table')],
      prim: [at(desc + 4, 2, 'prim')],
      dims: [at(desc + 4, 2, 'dims')],
      hint: [at(desc + 4, 2, 'hint')],
      shape: [at(desc + 0x14, 8, 'shape')],
      type_name: [at(desc + 0x24, 4, 'type_name')],
      bytes: [at(blob.dataOffset, blob.dataSize)],
    });
    // A dataset that does not load: its record's values are the reference's FileOffset.
    const [gone] = await collect(udfPlugin.records(reader, { locations: true, offset: 6 }));
    const ref = gone.values.referenced_at as number;
    expect(gone.locations).toEqual({
      dataset: [at(ref, 8, 'dataset')],
      dataset_size: [at(ref + 8, 8, 'dataset_size')],
      referenced_at: [at(ref, 16, 'referenced_at')],
    });
  });
});

/** Names of the demo scene's tables, with their schema's one field type and row count. */
async function tableList(reader: UdfReader): Promise<TableInfo[]> {
  const out: TableInfo[] = [];
  for await (const t of udfPlugin.capabilities!.tables!(reader)) out.push(t);
  return out;
}

describe('one table per UDF table', () => {
  it('is named by its path through DATASET tables, unique in the file, with a schema of its rows', async () => {
    const reader = await openUdf(new MemorySource(sceneBuilder().toBytes(), 'scene.udf'));
    const tables = await tableList(reader);
    expect(tables.map((t) => `${t.name} ${t.count} ${JSON.stringify(t.schema.fields[0].type)}`)).toEqual([
      'title 1 {"kind":"string"}',
      'meta 1 {"kind":"json"}',
      'meshes 2 {"kind":"struct","fields":[{"name":"offset","type":{"kind":"int","bits":64,"signed":false}},{"name":"size","type":{"kind":"int","bits":64,"signed":false}}]}',
      'frame_times 4 {"kind":"float","bits":64}',
      'frame_ids 4 {"kind":"int","bits":64,"signed":false}',
      'meshes[0]/name 1 {"kind":"string"}',
      'meshes[0]/vertices 4 {"kind":"ndarray","dtype":"f32","shape":[3]}',
      'meshes[0]/triangles 2 {"kind":"ndarray","dtype":"u16","shape":[3]}',
      'meshes[1]/name 1 {"kind":"string"}',
      'meshes[1]/vertices 3 {"kind":"ndarray","dtype":"f32","shape":[3]}',
      'meshes[1]/triangles 1 {"kind":"ndarray","dtype":"u16","shape":[3]}',
    ]);
    expect(tables[6].schema.fields[0]).toMatchObject({
      name: 'vertices',
      metadata: { prim: 'f32', hint: 'none' },
    });
    expect(tables[2].schema.fields[0].metadata).toMatchObject({ layout: 'true', hint: 'dataset' });
  });

  it('records({table}) yields the rows of that table, by its schema', async () => {
    const reader = await openUdf(new MemorySource(sceneBuilder().toBytes(), 'scene.udf'));
    const rows = async (table: string, options = {}) => lines(reader, { table, ...options });
    expect(await rows('meshes[0]/vertices')).toEqual([
      '{"vertices":{"dtype":"f32","shape":[3],"values":[0,0,0]}}',
      '{"vertices":{"dtype":"f32","shape":[3],"values":[1,0,0]}}',
      '{"vertices":{"dtype":"f32","shape":[3],"values":[1,1,0]}}',
      '{"vertices":{"dtype":"f32","shape":[3],"values":[0,1,0]}}',
    ]);
    expect(await rows('meshes[1]/triangles')).toEqual([
      '{"triangles":{"dtype":"u16","shape":[3],"values":[0,1,2]}}',
    ]);
    expect(await rows('frame_ids', { offset: 2 })).toEqual([
      '{"frame_ids":3}',
      '{"frame_ids":"18446744073709551615"}',
    ]);
    expect(await rows('frame_times', { limit: 2 })).toEqual(['{"frame_times":0}', '{"frame_times":0.04}']);
    expect(await rows('title')).toEqual(['{"title":"binscope demo scene"}']);
    expect(await rows('meta')).toEqual([
      '{"meta":{"author":"binscope demo","units":"m","tags":["sample","mesh"]}}',
    ]);
    const [refs] = await jsonRecords(reader, { table: 'meshes', limit: 1 });
    expect(Object.keys(refs.meshes as object)).toEqual(['offset', 'size']);
    await expect(rows('nope')).rejects.toThrow(/no table "nope"/);
  });

  it('rows of text, JSON, 2D and opaque tables; a repeated name gets #2; each row located', async () => {
    const file = new UdfBuilder({ id: 'ROWS' });
    const root = file
      .dataset({ id: 'R' })
      .table('words', {
        prim: 'u8',
        hint: 'text',
        dims: 2,
        shape: [2, 2, 5],
        data: new TextEncoder().encode('one\0\0two\0\0threefour\0'),
      })
      .json('list', [1, { two: 2 }, [3]], { dims: 1 })
      .table('blob', { prim: 'custom', data: new Uint8Array([9, 8, 7]) })
      .table('grid', { prim: 'i32', shape: [2, 3], data: [1, 2, 3, 4, 5, 6] })
      .table('grid', { prim: 'u8', data: [1, 2] });
    file.setRoot(root);
    const reader = await openUdf(new MemorySource(file.toBytes(), 'rows.udf'));
    const names = (await tableList(reader)).map((t) => t.name);
    expect(names).toEqual(['words', 'list', 'blob', 'grid', 'grid#2']);
    expect(await lines(reader, { table: 'words' })).toEqual([
      '{"words":["one","two"]}',
      '{"words":["three","four"]}',
    ]);
    expect(await lines(reader, { table: 'list' })).toEqual([
      '{"list":1}',
      '{"list":{"two":2}}',
      '{"list":[3]}',
    ]);
    expect(await lines(reader, { table: 'blob' })).toEqual([
      `{"blob":{"size":3,"sha256":"${await sha256(new Uint8Array([9, 8, 7]))}"}}`,
    ]);
    expect(await lines(reader, { table: 'grid' })).toEqual([
      '{"grid":{"dtype":"i32","shape":[3],"values":[1,2,3]}}',
      '{"grid":{"dtype":"i32","shape":[3],"values":[4,5,6]}}',
    ]);
    expect(await lines(reader, { table: 'grid#2' })).toEqual(['{"grid":1}', '{"grid":2}']);
    const grid = (await reader.root())!.tables[3];
    const second = [];
    for await (const r of udfPlugin.records(reader, { table: 'grid', offset: 1, locations: true }))
      second.push(r);
    const where = { offset: grid.dataOffset + 12, length: 12, file: 'rows.udf', field: 'grid' };
    expect(second[0].locations).toEqual({ grid: [where] });
    expect(await udfPlugin.locateRecord(reader, 1, { table: 'grid' })).toEqual([where]);
  });
});

async function sha256(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');
}

describe('the plugin contract', () => {
  it('/magic is the lazy entry: metadata now, the plugin from load()', async () => {
    expect(await udfFormat.load!()).toBe(udfPlugin);
    const registry = createRegistry([udfFormat]);
    expect(registry.info('udf')?.title).toBe(udfPlugin.title);
    expect(await registry.load('udf')).toBe(udfPlugin);
  });

  it('a reader never closes the source it was handed; openUdfFile closes the file it opened', async () => {
    let closed = 0;
    const inner = new MemorySource(sceneBuilder().toBytes());
    const source: ByteSource = {
      size: inner.size,
      name: 'x.udf',
      read: (o, l, r) => inner.read(o, l, r),
      close: async () => void closed++,
    };
    const reader = await udfPlugin.open(fileTarget(source));
    await reader.close?.();
    expect(closed).toBe(0);
    const tmp = tempDir('udf-contract-');
    try {
      const file = path.join(tmp.dir, 'scene.udf');
      await writeUdfFile(file, sceneBuilder());
      const own = await openUdfFile(file);
      await own.close();
      await expect((async () => own.root())()).rejects.toThrow(/after close/);
    } finally {
      tmp.remove();
    }
  });

  it("capabilities.sample writes the demo scene with the format's own writer", async () => {
    const out = new MemoryDirectory({}, 'demo');
    const shown = await udfPlugin.capabilities!.sample!(out);
    expect(shown).toEqual(['scene.udf']);
    const source = await out.open('scene.udf');
    const reader = await udfPlugin.open(fileTarget(source));
    expect((await udfPlugin.info(reader)).counts).toEqual({ datasets: 3, tables: 11 });
    expect((await udfPlugin.validate(fileTarget(source))).valid).toBe(true);
  });
});

describe('looking tables up by name', () => {
  it('after a listing, a table is found without walking the file again; an unknown name reads nothing', async () => {
    const file = new UdfBuilder({ id: 'MANY' });
    const kids = Array.from({ length: 400 }, (_, i) =>
      file.dataset({ id: `K${i}` }).table('v', { prim: 'u16', data: [i] }),
    );
    file.setRoot(file.dataset({ id: 'ROOT' }).datasets('kids', kids));
    const source = new CountingSource(new MemorySource(file.toBytes(), 'many.udf'));
    const reader = await openUdf(source);
    let listed = 0;
    for await (const _ of udfPlugin.capabilities!.tables!(reader)) listed++;
    expect(listed).toBe(401);
    const values = async (r: UdfReader, table: string) => {
      const out = [];
      for await (const row of udfPlugin.records(r, { table })) out.push(row.values);
      return out;
    };
    const before = source.reads;
    expect(await values(reader, 'kids[7]/v')).toEqual([{ v: 7 }]);
    expect(source.reads - before).toBeLessThanOrEqual(2);
    const after = source.reads;
    await expect(values(reader, 'kids[400]/v')).rejects.toThrow(/no table "kids\[400\]\/v"/);
    expect(source.reads).toBe(after);
    // Without a listing first, the name is found by walking as far as it.
    const fresh = await openUdf(source);
    const walked = source.reads;
    expect(await values(fresh, 'kids[399]/v')).toEqual([{ v: 399 }]);
    expect(source.reads - walked).toBeGreaterThan(400);
  });
});

describe('rows of a table that breaks a rule', () => {
  it('an INDEX value past its target fails the rows with the error the table read gives, piece after piece', async () => {
    const file = new UdfBuilder({ id: 'IDX' });
    const n = 70_000; // more than one piece of rows
    file.setRoot(
      file
        .dataset({ id: 'R' })
        .table('pos', { prim: 'f32', hint: 'coord', shape: [4, 2], data: new Float32Array(8) })
        .table('tri', { prim: 'u32', hint: 'index', indexName: 'pos', data: new Uint32Array(n) }),
    );
    const bytes = file.toBytes();
    const tri = (await (await openUdf(new MemorySource(bytes))).root())!.table('tri')!;
    const bad = 66_000; // in the second piece
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(tri.dataOffset + bad * 4, 4, true);
    const reader = await openUdf(new MemorySource(bytes, 'idx.udf'));
    const read = await (async () => (await reader.root())!.read('tri'))().catch((e: unknown) => e);
    expect(read).toMatchObject({ code: 'OutOfBounds', offset: tri.dataOffset + bad * 4 });
    let rows = 0;
    const error = await (async () => {
      for await (const _ of udfPlugin.records(reader, { table: 'tri' })) rows++;
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'OutOfBounds', offset: tri.dataOffset + bad * 4 });
    expect((error as Error).message).toBe((read as Error).message);
    // The first piece was good and came out before the bad one was read.
    expect(rows).toBe(65_536);
  });
});
