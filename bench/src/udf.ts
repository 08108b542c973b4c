import * as fs from 'node:fs';
import * as path from 'node:path';
import { UdfBuilder } from '@binscope/udf';
import { openUdfFile, writeUdfFile } from '@binscope/udf/node';
import type { Bench } from './harness.js';

const FLOOR = 'raw read (fs.readSync, reused 4 MiB buffer)';
const scratch = Buffer.allocUnsafe(4 << 20);

/** The floor: the same bytes read sequentially into one reused 4 MiB buffer. */
function rawRead(file: string, start: number, end: number): number {
  const fd = fs.openSync(file, 'r');
  let sum = 0;
  try {
    for (let pos = start; pos < end; ) {
      const n = fs.readSync(fd, scratch, 0, Math.min(scratch.byteLength, end - pos), pos);
      if (n === 0) break;
      sum += scratch[0];
      pos += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return sum;
}

const FRESH_FLOOR = 'raw read into a fresh buffer (fs.readSync)';

/** The bytes read into a new buffer of their size (what any reader returning them must do). */
function freshRead(file: string, start: number, length: number): number {
  const fd = fs.openSync(file, 'r');
  try {
    const out = Buffer.allocUnsafe(length);
    for (let pos = 0; pos < length; ) {
      const n = fs.readSync(fd, out, pos, length - pos, start + pos);
      if (n === 0) break;
      pos += n;
    }
    return out[length - 1];
  } finally {
    fs.closeSync(fd);
  }
}

/** Deterministic pseudo-random numbers (LCG), so every run writes the same file. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * `n` datasets of 8 tables each, a tree with 8 children per node: DATASET children, an f32
 * COORD table, a u32 INDEX and a u32 RANGE table into it, a TEXT list, JSON, an RGB table
 * related to the coordinates, and i64 ids.
 */
function graph(n: number): UdfBuilder {
  const file = new UdfBuilder({ id: 'BNCH' });
  const rand = lcg(1);
  const ds = Array.from({ length: n }, (_, i) => file.dataset({ id: `D${i % 1000}` }));
  ds.forEach((d, i) => {
    const kids = [];
    for (let k = 8 * i + 1; k <= 8 * i + 8 && k < n; k++) kids.push(ds[k]);
    d.datasets('children', kids);
    d.table('pos', {
      prim: 'f32',
      hint: 'coord',
      shape: [64, 3],
      data: Float32Array.from({ length: 192 }, rand),
    });
    d.table('tri', {
      prim: 'u32',
      hint: 'index',
      indexName: 'pos',
      data: Uint32Array.from({ length: 96 }, () => Math.floor(rand() * 64)),
    });
    d.table('spans', {
      prim: 'u32',
      hint: 'range',
      indexName: 'pos',
      shape: [16, 2],
      data: Uint32Array.from({ length: 32 }, (_, j) => 4 * (j >> 1) + (j & 1) * 4),
    });
    d.text(
      'names',
      Array.from({ length: 8 }, (_, j) => `part-${i}-${j}`),
    );
    d.json('meta', { index: i, label: `dataset ${i}`, weight: rand() });
    d.table('color', {
      prim: 'u8',
      hint: 'rgb',
      shape: [64, 3],
      data: Uint8Array.from({ length: 192 }, () => rand() * 256),
      relatedName: 'pos',
    });
    d.table('ids', { prim: 'i64', data: BigInt64Array.from({ length: 64 }, (_, j) => BigInt(i * 64 + j)) });
  });
  file.setRoot(ds[0]);
  return file;
}

/** One f32 table `values` (dataset F32) of 256 MB (64 Mi floats) at full scale; returns its value count. */
export async function writeF32Table(b: Bench, bigFile: string): Promise<number> {
  const floats = Math.max(1024, Math.round((b.scale * 256 * 2 ** 20) / 4));
  const file = new UdfBuilder({ id: 'BIG' });
  const values = new Float32Array(floats);
  for (let i = 0; i < floats; i++) values[i] = i * 0.5;
  file.setRoot(file.dataset({ id: 'F32' }).table('values', { prim: 'f32', data: values }));
  await writeUdfFile(bigFile, file);
  return floats;
}

export default async function run(b: Bench): Promise<void> {
  const dir = b.dir('udf');

  const n = b.n(10_000, 16);
  const graphFile = path.join(dir, 'graph.udf');
  await writeUdfFile(graphFile, graph(n));
  const graphSize = fs.statSync(graphFile).size;
  const floor = { name: FLOOR, run: () => rawRead(graphFile, 0, graphSize) };

  await b.compare(
    {
      format: 'udf',
      operation: `open + walk ${n.toLocaleString('en-US')} datasets (headers, DATASET tables)`,
      bytes: graphSize,
      items: n,
      allocation: { count: n, unit: 'dataset' },
    },
    async () => {
      const reader = await openUdfFile(graphFile);
      let tables = 0;
      for await (const d of reader.walk()) tables += d.tables.length;
      await reader.close();
      if (tables !== n * 8) throw new Error(`walked ${tables} tables`);
    },
    floor,
  );

  await b.compare(
    {
      format: 'udf',
      operation: `open + walk ${n.toLocaleString('en-US')} datasets step by step (no promise on a local file)`,
      bytes: graphSize,
      items: n,
      allocation: { count: n, unit: 'dataset' },
    },
    async () => {
      const reader = await openUdfFile(graphFile);
      let tables = 0;
      // The walk's one method answers synchronously for a local file: await only a promise.
      const walk = reader.walk();
      for (let next = walk.step(); ; next = walk.step()) {
        const d = next instanceof Promise ? await next : next;
        if (d === undefined) break;
        tables += d.tables.length;
      }
      await reader.close();
      if (tables !== n * 8) throw new Error(`walked ${tables} tables`);
    },
    floor,
  );

  await b.compare(
    {
      format: 'udf',
      operation: `open + walk ${n.toLocaleString('en-US')} datasets × 8 tables, decode every table`,
      bytes: graphSize,
      items: n * 8,
      allocation: { count: n * 8, unit: 'table' },
    },
    async () => {
      const reader = await openUdfFile(graphFile);
      let decoded = 0;
      for await (const d of reader.walk()) {
        for (const t of d.tables) {
          await d.read(t);
          decoded++;
        }
      }
      await reader.close();
      if (decoded !== n * 8) throw new Error(`decoded ${decoded} tables`);
    },
    floor,
  );

  const bigFile = path.join(dir, 'f32.udf');
  const floats = await writeF32Table(b, bigFile);
  const probe = await openUdfFile(bigFile);
  const info = (await probe.root())!.table('values')!;
  await probe.close();
  const readBig = async () => {
    const reader = await openUdfFile(bigFile);
    const table = await (await reader.root())!.read('values');
    await reader.close();
    const values = table.values as Float32Array;
    if (values.length !== floats || values[floats - 1] !== Math.fround((floats - 1) * 0.5))
      throw new Error('bad table');
  };
  const mib = (info.dataSize / 2 ** 20).toFixed(0);
  await b.compare(
    { format: 'udf', operation: `read one f32 table (${mib} MiB)`, bytes: info.dataSize },
    readBig,
    { name: FLOOR, run: () => rawRead(bigFile, info.dataOffset, info.dataOffset + info.dataSize) },
  );
  // The same read against a floor that must also return the bytes: one read into a fresh
  // buffer of the table's size, so it pays the page faults of new memory as the reader does.
  await b.compare(
    {
      format: 'udf',
      operation: `read one f32 table (${mib} MiB) vs a fresh-buffer read`,
      bytes: info.dataSize,
    },
    readBig,
    { name: FRESH_FLOOR, run: () => freshRead(bigFile, info.dataOffset, info.dataSize) },
  );
}
