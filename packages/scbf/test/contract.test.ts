import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  createRegistry,
  fileTarget,
  MemoryDirectory,
  MemorySource,
  memoryScratch,
  parseWhere,
  readExact,
  recordToJson,
  runConverter,
} from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { NodeFileSource } from '@binscope/core/node';
import { tempDir } from '@binscope/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { csvToScbfConverter, scbfConverters, scbfFormat, scbfToCsvConverter } from '../src/magic.js';
import { csvToScbf, extendScbfFile, openScbfFile, scbfToCsv } from '../src/node.js';
import { nullBitmaps, splitNulls } from '../src/nulls.js';
import { openScbf, scbfPlugin } from '../src/plugin.js';
import { encodeScbf } from '../src/write.js';
import { jsonRows } from './helpers.js';

let tmp: { dir: string; remove: () => void };
beforeEach(() => {
  tmp = tempDir('scbf-contract-');
});
afterEach(() => tmp.remove());
const file = (name: string) => path.join(tmp.dir, name);

/** The rows of the `basic` vector, as the CLI printed them before contract v2 (`binscope cat`). */
const BASIC_LINES = [
  '{"id":1,"name":"Alice","score":91.5}',
  '{"id":2,"name":"Bob","score":88}',
  '{"id":3,"name":"Charlie, Jr.","score":79.25}',
  '{"id":-4,"name":"Dana \\"D\\" Smith","score":-0.5}',
  '{"id":2147483647,"name":"Eve","score":0.1}',
  '{"id":-2147483648,"name":"Frank","score":1234567.875}',
];
const basic = () =>
  encodeScbf([
    { name: 'id', type: 'int32', values: [1, 2, 3, -4, 2147483647, -2147483648] },
    {
      name: 'name',
      type: 'utf8',
      values: ['Alice', 'Bob', 'Charlie, Jr.', 'Dana "D" Smith', 'Eve', 'Frank'],
    },
    { name: 'score', type: 'float64', values: [91.5, 88, 79.25, -0.5, 0.1, 1234567.875] },
  ]);

describe('records as the apps print them', () => {
  it('recordToJson gives the JSON the CLI printed before, field for field, in column order', async () => {
    const reader = await openScbf(new MemorySource(await basic(), 'basic.scbf'));
    expect((await jsonRows(reader)).map((r) => JSON.stringify(r))).toEqual(BASIC_LINES);
    // --columns keeps the order asked for, as `rows({columns})` always did.
    const picked = await jsonRows(reader, { columns: ['score', 'id'], offset: 1, limit: 2 });
    expect(picked.map((r) => JSON.stringify(r))).toEqual(['{"score":88,"id":2}', '{"score":79.25,"id":3}']);
  });

  it('the schema: int32, float64 and utf8; nullable where the footer has a bitmap; dictionary text as string', async () => {
    const split = splitNulls([
      { name: 'n', type: 'int32', values: [1, null, 3] },
      { name: 'x', type: 'float64', values: [0.5, 1.5, 2.5] },
      { name: 's', type: 'utf8', values: ['a', 'b', 'c'] },
      { name: 'k', type: 'int32', values: [0, 1, 0] },
    ]);
    const dictionaries = new Map([[3, ['yes', 'no']]]);
    const reader = await openScbf(
      new MemorySource(await encodeScbf(split.columns, { extensions: { nulls: split.nulls, dictionaries } })),
    );
    expect(reader.schema.fields).toEqual([
      {
        name: 'n',
        type: { kind: 'int', bits: 32, signed: true },
        nullable: true,
        metadata: { type: 'int32' },
      },
      { name: 'x', type: { kind: 'float', bits: 64 }, metadata: { type: 'float64' } },
      { name: 's', type: { kind: 'string' }, metadata: { type: 'utf8' } },
      { name: 'k', type: { kind: 'string' }, metadata: { type: 'dictionary-encoded text' } },
    ]);
    expect(await jsonRows(reader)).toEqual([
      { n: 1, x: 0.5, s: 'a', k: 'yes' },
      { n: null, x: 1.5, s: 'b', k: 'no' },
      { n: 3, x: 2.5, s: 'c', k: 'yes' },
    ]);
    expect(() => parseWhere('k = 1', reader.schema)).toThrow(
      '--where: column "k" is dictionary-encoded text; compare it with a quoted string',
    );
  });

  it('locations: each value in its column block, as locateRecord says; index is the row', async () => {
    const reader = await openScbf(new MemorySource(await basic(), 'basic.scbf'));
    const where = parseWhere('id < 0', reader.schema);
    const records = [];
    for await (const r of scbfPlugin.records(reader, { where, locations: true, columns: ['name'] }))
      records.push(r);
    expect(records.map((r) => [r.index, r.values.name])).toEqual([
      [3, 'Dana "D" Smith'],
      [5, 'Frank'],
    ]);
    const expected = (await scbfPlugin.locateRecord(reader, 5)).find((l) => l.field === 'name');
    expect(records[1].locations).toEqual({ name: [expected] });
    expect(expected).toMatchObject({
      file: 'basic.scbf',
      length: reader.column('name').blocks[1].compressedSize,
    });
    // Without `locations`, none are made.
    for await (const r of scbfPlugin.records(reader, { limit: 1 })) expect(r.locations).toBeUndefined();
  });

  it('where with offset and limit counts matching rows', async () => {
    const reader = await openScbf(new MemorySource(await basic(), 'basic.scbf'));
    const where = parseWhere('score > 1', reader.schema);
    const got = [];
    for await (const r of scbfPlugin.records(reader, { where, offset: 1, limit: 2 })) got.push(r.index);
    expect(got).toEqual([1, 2]);
  });
});

describe('ownership: whoever opens a source closes it', () => {
  it('a reader leaves its target open; openScbfFile closes the file it opened', async () => {
    fs.writeFileSync(file('b.scbf'), await basic());
    const source = NodeFileSource.open(file('b.scbf'));
    const reader = await scbfPlugin.open(fileTarget(source));
    await reader.close();
    expect((readExact(source, 0, 8) as Uint8Array).byteLength).toBe(8);
    await source.close();
    const own = await openScbfFile(file('b.scbf'));
    await own.close();
    expect(() => own.source.read(0, 1)).toThrow(/read after close/);
  });
});

describe('the /magic entry and the converters', () => {
  it('registers as a lazy entry with its converters, and loads the plugin on demand', async () => {
    const registry = createRegistry([scbfFormat], scbfConverters);
    const detection = await registry.detect(fileTarget(new MemorySource(await basic(), 'b.scbf')));
    expect(detection).toMatchObject({ format: 'scbf', role: 'format' });
    expect(registry.loadedIds()).toEqual([]);
    expect(await registry.load('scbf')).toBe(scbfPlugin);
    expect(registry.converter('csv', 'scbf')).toBe(csvToScbfConverter);
    expect(registry.convertersFrom('scbf')).toEqual([scbfToCsvConverter]);
  });

  it('CSV → SCBF into a memory sink and scratch gives the bytes the Node path helper writes', async () => {
    let csv = 'id,name,x,maybe\n';
    for (let i = 0; i < 3000; i++) csv += `${i},"n, ${i % 7}",${i}.25,${i % 3 ? i : ''}\n`;
    fs.writeFileSync(file('in.csv'), csv);
    const values = { types: 'id:int32', level: 9 };
    await csvToScbf(file('in.csv'), file('node.scbf'), { types: { id: 'int32' }, level: 9 });
    const converter = await csvToScbfConverter.load();
    const sink = new MemorySink();
    const scratch = memoryScratch();
    const target = fileTarget(NodeFileSource.open(file('in.csv'), 'in.csv'));
    const report = await runConverter(
      csvToScbfConverter,
      converter,
      target,
      { kind: 'file', sink },
      { scratch, values },
    );
    scratch.close();
    expect(Buffer.from(sink.bytes()).equals(fs.readFileSync(file('node.scbf')))).toBe(true);
    expect(report.details).toMatchObject({ rows: 3000, csvBytes: csv.length, scbfBytes: sink.position });
    // The extension pass: what `extendScbfFile` gives the plain file, and nulls as a rewrite.
    const extended = new MemorySink();
    await runConverter(
      csvToScbfConverter,
      converter,
      target,
      { kind: 'file', sink: extended },
      { scratch: memoryScratch(), values: { ...values, extensions: true } },
    );
    await extendScbfFile(file('node.scbf'), file('node.scbf'));
    expect(Buffer.from(extended.bytes()).equals(fs.readFileSync(file('node.scbf')))).toBe(true);
    const withNulls = new MemorySink();
    const nulls = await runConverter(
      csvToScbfConverter,
      converter,
      target,
      { kind: 'file', sink: withNulls },
      { scratch: memoryScratch(), values: { nulls: true } },
    );
    expect(nulls.details.nullColumns).toEqual(['maybe']);
    const reader = await openScbf(new MemorySource(withNulls.bytes()));
    expect([...(await nullBitmaps(reader)).keys()]).toEqual([3]);
  });

  it('SCBF → CSV through the converter is the S8 text scbfToCsv writes', async () => {
    fs.writeFileSync(file('b.scbf'), await basic());
    await scbfToCsv(file('b.scbf'), file('b.csv'));
    const sink = new MemorySink();
    const report = await runConverter(
      scbfToCsvConverter,
      await scbfToCsvConverter.load(),
      fileTarget(new MemorySource(await basic(), 'b.scbf')),
      { kind: 'file', sink },
      { scratch: memoryScratch() },
    );
    expect(Buffer.from(sink.bytes()).equals(fs.readFileSync(file('b.csv')))).toBe(true);
    expect(report).toEqual({ warnings: [], details: { bytes: fs.statSync(file('b.csv')).size } });
  });

  it('capabilities.sample writes the demo table and its CSV, and lists the SCBF file', async () => {
    const folder = new MemoryDirectory();
    const listed = await scbfPlugin.capabilities!.sample!(folder);
    expect(listed).toEqual(['measurements.scbf']);
    expect(await folder.list()).toEqual(['measurements.csv', 'measurements.scbf']);
    const reader = await openScbf(await folder.open('measurements.scbf'));
    expect(reader.rowCount).toBe(12);
    expect(reader.columns.map((c) => `${c.name}:${c.type}`)).toEqual([
      'id:int32',
      'species:utf8',
      'sepal_length:float64',
      'petal_width:float64',
      'note:utf8',
    ]);
    const first = await recordToJson(
      reader.schema,
      (await scbfPlugin.records(reader, { limit: 1 })[Symbol.asyncIterator]().next()).value,
    );
    expect(first).toMatchObject({ id: 1, species: 'setosa', note: 'first, and "quoted"' });
  });
});
