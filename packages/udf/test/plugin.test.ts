import { createRegistry, fileTarget, MemorySource, nodesAt, toPlainTree } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { udfFormat } from '../src/magic.js';
import { UdfBuilder, type UdfReader, udfPlugin } from '../src/index.js';
import { jsonRecords } from './helpers.js';

function sample(datasets = 3): Uint8Array {
  const file = new UdfBuilder({ id: 'PLUG' });
  const kids = Array.from({ length: datasets - 1 }, (_, i) =>
    file.dataset({ id: `K${i}` }).table('v', { prim: 'i64', data: [BigInt(i), 2n ** 60n] }),
  );
  const root = file.dataset({ id: 'ROOT' });
  root
    .text('title', 'hi')
    .json('meta', { n: 1 })
    .table('f', { prim: 'f32', data: [Number.NaN, Number.POSITIVE_INFINITY, 0.5] });
  root.table('big', { prim: 'u16', data: new Uint16Array(70_000).map((_, i) => i) });
  root.datasets('kids', kids);
  file.setRoot(root);
  return file.toBytes();
}

describe('udfPlugin', () => {
  it('is detected by magic, and a later revision by its content check', async () => {
    const registry = createRegistry([udfPlugin]);
    const bytes = sample();
    expect((await registry.detect(fileTarget(new MemorySource(bytes, 'a.udf')))).format).toBe('udf');
    bytes[3] = 0x32;
    expect((await registry.detect(fileTarget(new MemorySource(bytes, 'a.bin')))).format).toBe('udf');
    expect((await udfPlugin.validate(fileTarget(new MemorySource(bytes)))).errors[0].code).toBe(
      'UnsupportedVersion',
    );
    expect(udfFormat.id).toBe('udf');
  });

  it('summarises datasets and tables', async () => {
    const reader = await udfPlugin.open(fileTarget(new MemorySource(sample())));
    const info = await udfPlugin.info(reader);
    expect(info.counts).toEqual({ datasets: 3, tables: 7 });
    expect(info.properties.find(([k]) => k === 'file id')?.[1]).toBe('PLUG');
  });

  it('yields one JSON record per table, in walk order, with A5 values', async () => {
    const reader = await udfPlugin.open(fileTarget(new MemorySource(sample())));
    const records = await jsonRecords(reader as UdfReader);
    expect(records.map((r) => `${r.dataset_id}/${r.table}`)).toEqual([
      'ROOT/title',
      'ROOT/meta',
      'ROOT/f',
      'ROOT/big',
      'ROOT/kids',
      'K0/v',
      'K1/v',
    ]);
    expect(records[0].text).toBe('hi');
    expect(records[1].json).toEqual({ n: 1 });
    expect(records[2].values).toEqual(['NaN', 'Infinity', 0.5]);
    expect(records[3].truncated).toBe(true);
    expect((records[3].values_head as number[]).slice(0, 3)).toEqual([0, 1, 2]);
    expect(records[5].values).toEqual([0, '1152921504606846976']);
    JSON.stringify(records);
    // A window of records, with the fields asked for in the order asked.
    const page = await jsonRecords(reader as UdfReader, {
      offset: 4,
      limit: 2,
      columns: ['table', 'dataset_id'],
    });
    expect(page.map((r) => JSON.stringify(r))).toEqual([
      '{"table":"kids","dataset_id":"ROOT"}',
      '{"table":"v","dataset_id":"K0"}',
    ]);
  });

  it('inspects file header → datasets → header/descriptors/lookup/strings/data with byte ranges', async () => {
    const bytes = sample();
    const reader = (await udfPlugin.open(fileTarget(new MemorySource(bytes)))) as UdfReader;
    const tree = await udfPlugin.inspect(reader);
    expect(tree.children!.map((c) => c.name)).toEqual(['file header', 'datasets']);
    const root = (await reader.root())!;
    const f = root.table('f')!;
    const path = nodesAt(tree, f.dataOffset + 2).map((n) => n.name);
    expect(path).toEqual([tree.name, 'datasets', 'dataset "ROOT"', 'data', 'f']);
    const descriptor = nodesAt(tree, f.descriptorOffset + 0x10);
    expect(descriptor.at(-1)).toMatchObject({
      name: 'data_size',
      offset: f.descriptorOffset + 0x10,
      length: 4,
      value: 12,
    });
    const plain = toPlainTree(tree);
    const ds = plain.children![1].children![0];
    expect(ds.children!.map((c) => c.name)).toEqual(['header', 'descriptors', 'lookup', 'strings', 'data']);
    for (const c of ds.children!) {
      expect(c.offset).toBeGreaterThanOrEqual(ds.offset);
      expect(c.offset + c.length).toBeLessThanOrEqual(ds.offset + ds.length);
    }
  });

  it('pages large dataset lists lazily', async () => {
    const reader = await udfPlugin.open(fileTarget(new MemorySource(sample(400))));
    const tree = await udfPlugin.inspect(reader);
    const datasets = tree.children![1];
    expect(datasets.children).toBeUndefined();
    expect(datasets.lazy!.count).toBe(400);
    const page = await datasets.lazy!.load(10, 12);
    expect(page.map((n) => n.name)).toEqual(['dataset "K9"', 'dataset "K10"']);
  });

  it('rejects a directory target with a FormatError, and validate reports it', async () => {
    const dir = {
      kind: 'directory' as const,
      directory: { name: 'x', list: async () => [], open: async () => new MemorySource(new Uint8Array()) },
    };
    await expect(udfPlugin.open(dir as never)).rejects.toMatchObject({ code: 'BadMagic' });
    expect((await udfPlugin.validate(dir as never)).valid).toBe(false);
  });
});
