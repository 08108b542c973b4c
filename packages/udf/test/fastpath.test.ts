import { type ByteSource, FormatError, MemorySource } from '@binscope/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openUdf, UdfBuilder, type UdfDataset, type UdfReader } from '../src/index.js';
import { decodeShape, HINT_GHOSTS, type Hint } from '../src/types.js';

/** The same bytes from a source that answers with promises: forces the promise paths. */
function asyncOnly(bytes: Uint8Array): ByteSource {
  const inner = new MemorySource(bytes);
  return { size: inner.size, name: inner.name, read: async (offset, length) => inner.read(offset, length) };
}

function tree(n: number): Uint8Array {
  const file = new UdfBuilder({ id: 'TREE' });
  const ds = Array.from({ length: n }, (_, i) => file.dataset({ id: `T${i}` }));
  ds.forEach((d, i) => {
    const kids = [];
    for (let k = 3 * i + 1; k <= 3 * i + 3 && k < n; k++) kids.push(ds[k]);
    d.datasets('kids', kids);
    d.table('v', { prim: 'f32', hint: 'coord', shape: [4, 2], data: new Float32Array(8).fill(i) });
    d.table('i', { prim: 'u16', hint: 'index', indexName: 'v', data: [0, 3, 1] });
    d.text('names', [`n${i}`, 'ünï', '']);
  });
  // A big dataset (over the whole-dataset threshold) in the middle of the tree.
  ds[2].table('big', { prim: 'u8', data: new Uint8Array(40_000).fill(7) });
  file.setRoot(ds[0]);
  return file.toBytes();
}

async function summary(reader: UdfReader): Promise<string[]> {
  const out: string[] = [];
  for await (const d of reader.walk()) {
    const kids = (await d.children()).map((r) => `${r.at.offset}/${r.at.size}@${r.from}`);
    const values = [];
    for (const t of d.tables) {
      const table = await d.read(t);
      values.push(
        `${t.name}:${t.shape.join('x')}:${JSON.stringify(table.text ?? Array.from(table.values ?? [], String))}`,
      );
    }
    out.push(`${d.id} [${kids.join(' ')}] ${values.join(' ')}`);
  }
  return out;
}

describe('synchronous fast path', () => {
  const bytes = tree(40);

  it('walks, reads and finds children identically with and without readSync, whole or not', async () => {
    const reference = await summary(await openUdf(asyncOnly(bytes), { wholeDatasetBelow: 0 }));
    expect(reference.length).toBe(40);
    expect(reference[0]).toMatch(/^T0 /);
    for (const wholeDatasetBelow of [0, undefined]) {
      expect(await summary(await openUdf(new MemorySource(bytes), { wholeDatasetBelow }))).toEqual(reference);
      expect(await summary(await openUdf(asyncOnly(bytes), { wholeDatasetBelow }))).toEqual(reference);
    }
  });

  it('one walk: step() answers synchronously on a synchronous source, with promises on another', async () => {
    const ids = (await (await openUdf(asyncOnly(bytes))).allDatasets()).map((d) => d.id);
    for (const wholeDatasetBelow of [0, undefined]) {
      const reader = await openUdf(new MemorySource(bytes), { wholeDatasetBelow });
      const walk = reader.walk();
      const stepped: string[] = [];
      for (let d = walk.step(); d !== undefined; d = walk.step()) {
        // No promise anywhere: the walk, the children and the tables of a local file or memory.
        expect(d).not.toBeInstanceOf(Promise);
        const dataset = d as UdfDataset;
        expect(dataset.children()).not.toBeInstanceOf(Promise);
        for (const t of dataset.tables) expect(dataset.read(t)).not.toBeInstanceOf(Promise);
        stepped.push(dataset.id);
      }
      expect(stepped).toEqual(ids);
      const slow = (await openUdf(asyncOnly(bytes), { wholeDatasetBelow })).walk();
      const awaited: string[] = [];
      for (let d = slow.step(); d !== undefined; d = slow.step()) {
        // Every dataset of a source that answers with promises comes through one.
        expect(d).toBeInstanceOf(Promise);
        const dataset = await d;
        if (dataset !== undefined) awaited.push(dataset.id);
      }
      expect(awaited).toEqual(ids);
    }
  });

  it('raises the same FormatError on both paths', async () => {
    const broken = bytes.slice();
    const reader = await openUdf(new MemorySource(broken));
    const third = (await reader.allDatasets())[3];
    // Corrupt the check value of the fourth dataset of the walk.
    broken[third.fileOffset.offset] ^= 0xff;
    const failures: FormatError[] = [];
    for (const source of [new MemorySource(broken), asyncOnly(broken)]) {
      for (const wholeDatasetBelow of [0, undefined]) {
        const r = await openUdf(source, { wholeDatasetBelow });
        const error = await r.allDatasets().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(FormatError);
        failures.push(error as FormatError);
      }
    }
    for (const e of failures) {
      expect(e.code).toBe('InvalidValue');
      expect(e.offset).toBe(third.fileOffset.offset);
      expect(e.message).toBe(failures[0].message);
    }
  });

  it('visits an offset again when it is referenced with another size', async () => {
    const file = new UdfBuilder();
    const a = file.dataset({ id: 'A' }).table('v', { prim: 'u8', data: [1] });
    const r = file.dataset({ id: 'R' }).datasets('kids', [a, a, a]);
    file.setRoot(r);
    const out = file.toBytes();
    const reader = await openUdf(new MemorySource(out));
    const root = (await reader.root())!;
    const kids = root.table('kids')!;
    // The second reference: same offset, 16 bytes more (still inside the file, before R).
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    const size = Number(view.getBigUint64(kids.dataOffset + 16 + 8, true));
    view.setBigUint64(kids.dataOffset + 16 + 8, BigInt(size + 16), true);
    for (const source of [new MemorySource(out), asyncOnly(out)]) {
      const walked = await (await openUdf(source)).allDatasets();
      expect(walked.map((d) => `${d.id}:${d.fileOffset.size}`)).toEqual([
        'R:' + root.fileOffset.size,
        `A:${size}`,
        `A:${size + 16}`,
      ]);
    }
  });
});

/** decodeShape as first written (arrays and slices), the reference for the faster one. */
function referenceShape(dims: number, raw0: number, raw1: number, hint: Hint) {
  const axes = [raw0, raw1 & 0xffffff, raw1 >>> 24];
  const declared = axes.slice(0, dims);
  let ghostEnd = 3;
  while (ghostEnd > dims && axes[ghostEnd - 1] === 0) ghostEnd--;
  const ghosts = axes.slice(dims, ghostEnd);
  if (ghosts.includes(0)) return undefined;
  if (dims === 0 && ghosts.length === 1 && ghosts[0] === 1 && HINT_GHOSTS[hint] === 0) ghosts.length = 0;
  const shape = [...declared, ...ghosts];
  let elementCount = 1;
  for (const n of shape) elementCount *= n;
  return { shape, ghostDims: ghosts.length, elementCount };
}

describe('decodeShape', () => {
  it('matches the reference for every dims, axis pattern and hint', () => {
    const axis = fc.oneof(fc.constantFrom(0, 1, 2), fc.integer({ min: 0, max: 0xffffff }));
    const hints: Hint[] = [
      'none',
      'json',
      'text',
      'dataset',
      'range',
      'coord',
      'rgb',
      'transform',
      'index',
      'custom',
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        axis,
        axis,
        fc.integer({ min: 0, max: 255 }),
        fc.constantFrom(...hints),
        (dims, x, y, z, hint) => {
          const raw1 = ((z << 24) | y) >>> 0;
          expect(decodeShape(dims, x, raw1, hint)).toEqual(referenceShape(dims, x, raw1, hint));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
