import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeWith } from '@binscope/testkit';
import { CountingSource, MemorySource } from '@binscope/core';
import { openFile } from '@binscope/core/node';
import { describe, expect, it } from 'vitest';
import { openUdf, UdfBuilder } from '../src/index.js';
import { UDF_VECTORS, VECTORS_NEEDED, arr } from './helpers.js';

function bigFile(): Uint8Array {
  const file = new UdfBuilder({ id: 'BIG' });
  const d = file.dataset({ id: 'D' });
  d.table('a', { prim: 'f32', data: new Float32Array(100_000).map((_, i) => i) });
  d.table('b', { prim: 'u16', data: new Uint16Array(50_000).fill(7) });
  d.table('c', { prim: 'i64', data: new BigInt64Array(20_000).fill(-5n) });
  file.setRoot(d);
  return file.toBytes();
}

describe('lazy reading', () => {
  it('reads one table without touching the others (counted)', async () => {
    const bytes = bigFile();
    const source = new CountingSource(new MemorySource(bytes));
    const reader = await openUdf(source);
    expect(source.bytesRead).toBe(64);
    const root = (await reader.root())!;
    const headerBytes = source.bytesRead - 64;
    expect(headerBytes).toBe(root.header.headerSize);
    expect(root.tableNames()).toEqual(['a', 'b', 'c']);
    const b = await root.read('b');
    expect(b.values).toBeInstanceOf(Uint16Array);
    expect(b.values!.length).toBe(50_000);
    expect(source.bytesRead).toBe(64 + headerBytes + 100_000);
    expect(source.bytesRead).toBeLessThan(bytes.byteLength / 3);
    // A slice of a big table reads only its bytes.
    const before = source.bytesRead;
    const slice = await root.readValues('a', 10, 14);
    expect(arr(slice)).toEqual([10, 11, 12, 13]);
    expect(source.bytesRead - before).toBe(16);
  });

  it('fetches a small dataset in one read, and not at all with wholeDatasetBelow: 0 until asked', async () => {
    const file = new UdfBuilder();
    file.setRoot(
      file
        .dataset()
        .table('x', { prim: 'u8', data: [1, 2, 3] })
        .table('y', { prim: 'u8', data: new Uint8Array(1000) }),
    );
    const bytes = file.toBytes();
    const whole = new CountingSource(new MemorySource(bytes));
    const r1 = await (await openUdf(whole)).root();
    await r1!.read('x');
    await r1!.read('y');
    expect(whole.reads).toBe(2);
    const exact = new CountingSource(new MemorySource(bytes));
    const r2 = await (await openUdf(exact, { wholeDatasetBelow: 0 })).root();
    await r2!.read('x');
    expect(exact.bytesRead).toBe(64 + r2!.header.headerSize + 3);
  });

  it('reads a Node file with positional reads', async () => {
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'udf-read-'));
    try {
      const file = path.join(dir, 'big.udf');
      fs.writeFileSync(file, bigFile());
      const source = openFile(file);
      const reader = await openUdf(source);
      const root = (await reader.root())!;
      const c = await root.read('c');
      expect(c.values).toBeInstanceOf(BigInt64Array);
      expect(c.values![19_999]).toBe(-5n);
      await reader.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('walk (U7)', () => {
  it('is depth-first pre-order, visits each dataset once, skips nulls and survives cycles', async () => {
    const file = new UdfBuilder();
    const [r, a, b, c, d] = ['R', 'A', 'B', 'C', 'D'].map((id) => file.dataset({ id }));
    r.datasets('kids', [a, null, b]).datasets('more', [c, a]);
    a.datasets('kids', [d, r]); // cycle back to the root
    b.datasets('self', [b, d]); // self cycle, shared child
    d.table('v', { prim: 'u8', data: [1] });
    c.datasets('loop', [r]);
    file.setRoot(r);
    const orphan = file.dataset({ id: 'O' });
    orphan.table('v', { prim: 'u8', data: [9] });
    const reader = await openUdf(new MemorySource(file.toBytes()));
    const order = (await reader.allDatasets()).map((x) => x.id);
    expect(order).toEqual(['R', 'A', 'D', 'B', 'C']);
  });

  it('reports no datasets for a null root, even with a dataset in the file', async () => {
    const file = new UdfBuilder();
    file.dataset({ id: 'ORPH' }).table('v', { prim: 'u8', data: [1] });
    const bytes = file.toBytes();
    expect(bytes.byteLength).toBeGreaterThan(64);
    const reader = await openUdf(new MemorySource(bytes));
    expect(reader.header.root).toBeNull();
    expect(await reader.allDatasets()).toEqual([]);
  });

  it('walks a 3,000-deep chain without exhausting the stack', async () => {
    const file = new UdfBuilder();
    const chain = Array.from({ length: 3000 }, (_, i) => file.dataset({ id: String(i % 1000) }));
    chain.forEach((d, i) => {
      d.datasets('next', i + 1 < chain.length ? [chain[i + 1]] : []);
    });
    file.setRoot(chain[0]);
    const reader = await openUdf(new MemorySource(file.toBytes()));
    expect((await reader.allDatasets()).length).toBe(3000);
  });
});

describe('decoding', () => {
  it('decodes every hint', async () => {
    const file = new UdfBuilder({ id: 'DEC' });
    const d = file.dataset({ id: 'ALL' });
    d.text('s8', 'héllo ✓')
      .text('s16', '日本 🎉', { encoding: 'utf16' })
      .text('s32', 'a🎉', { encoding: 'utf32' });
    d.text('list', ['', 'ab', 'γ'], { encoding: 'utf16' }).text('blank', ['', '', '']);
    d.json('obj', { a: [1, 2], b: 'ü' }).json('arr', [1, 'x', null]);
    d.table('pts', { prim: 'f64', hint: 'coord', shape: [3, 2], data: [0, 0, 1, 1, 2, 2] });
    d.table('tri', { prim: 'u8', hint: 'index', indexName: 'pts', data: [0, 1, 2, 2] });
    d.table('spans', { prim: 'u64', hint: 'range', indexName: 'pts', shape: [2, 2], data: [0n, 2n, 2n, 3n] });
    d.table('xf', { prim: 'f32', hint: 'transform', shape: [1, 2, 2], data: [1, 0, 0, 1] });
    d.table('rgba', { prim: 'f32', hint: 'rgb', shape: [1, 4], data: [1, 0.5, 0, 1], relatedName: 'xf' });
    d.table('cube', { prim: 'i16', dims: 3, shape: [2, 1, 2], data: [-1, 2, -3, 4] });
    d.table('one', { prim: 'u64', dims: 0, shape: [], data: [18446744073709551615n] });
    d.table('raw', { prim: 'custom', hint: 40, data: new Uint8Array([1, 2, 3]) });
    file.setRoot(d);
    const reader = await openUdf(new MemorySource(file.toBytes()));
    const root = (await reader.root())!;
    expect((await root.read('s8')).text).toBe('héllo ✓');
    expect((await root.read('s16')).text).toBe('日本 🎉');
    expect((await root.read('s32')).text).toBe('a🎉');
    expect((await root.read('list')).text).toEqual(['', 'ab', 'γ']);
    expect((await root.read('blank')).text).toEqual(['', '', '']);
    expect((await root.read('obj')).json).toEqual({ a: [1, 2], b: 'ü' });
    expect(root.table('obj')!.shape).toEqual([]);
    expect((await root.read('arr')).json).toEqual([1, 'x', null]);
    expect(root.table('arr')!.shape).toEqual([3]);
    const pts = root.table('pts')!;
    expect([pts.dims, pts.ghostDims, pts.shape]).toEqual([1, 1, [3, 2]]);
    const tri = await root.read('tri');
    expect(tri.target?.name).toBe('pts');
    expect(arr((await root.read('spans')).values!)).toEqual([0n, 2n, 2n, 3n]);
    expect(root.table('xf')!.ghostDims).toBe(2);
    expect(arr((await root.read('rgba')).values!)).toEqual([1, 0.5, 0, 1]);
    expect(root.table('cube')!.shape).toEqual([2, 1, 2]);
    expect((await root.read('one')).values![0]).toBe(2n ** 64n - 1n);
    expect(root.table('one')!.elementCount).toBe(1);
    const raw = await root.read('raw');
    expect(raw.info.hint).toBe('custom');
    expect(Array.from(raw.bytes)).toEqual([1, 2, 3]);
  });
});

describeWith(VECTORS_NEEDED, 'vectors', () => {
  it('reads nested_text_json lazily: the root, then one child table', async () => {
    const file = path.join(UDF_VECTORS, 'nested_text_json', 'nested_text_json.udf');
    const source = new CountingSource(openFile(file));
    const reader = await openUdf(source, { wholeDatasetBelow: 0 });
    const root = (await reader.root())!;
    const kids = await root.children();
    const child = await reader.dataset(kids[1].at, kids[1].from);
    const tri = await child.read('tri');
    expect(arr(tri.values!)).toEqual([0, 1, 2, 2, 3, 0]);
    expect(source.bytesRead).toBeLessThan(source.size);
    await reader.close();
  });
});
