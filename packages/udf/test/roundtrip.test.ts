import * as fs from 'node:fs';
import { describeWith } from '@binscope/testkit';
import { MemorySource } from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { describe, expect, it } from 'vitest';
import { hashName, openUdf, UdfBuilder } from '../src/index.js';
import { rebuild, VECTORS_NEEDED, validVectors } from './helpers.js';

describeWith(VECTORS_NEEDED, 're-encoding the vectors', () => {
  const byteIdentical = new Set(['primitives', 'nested_text_json']);
  for (const vector of validVectors()) {
    it(`${vector.name}: decode → build with default settings → ${byteIdentical.has(vector.name) ? 'identical bytes' : 'same content'}`, async () => {
      const original = new Uint8Array(fs.readFileSync(vector.file));
      const reader = await openUdf(new MemorySource(original));
      const builder = await rebuild(reader);
      const bytes = builder.toBytes();
      if (byteIdentical.has(vector.name)) expect(Buffer.from(bytes).equals(Buffer.from(original))).toBe(true);
      // Streaming through a sink gives the same bytes as toBytes().
      const sink = new MemorySink();
      await builder.write(sink);
      expect(Buffer.from(sink.bytes()).equals(Buffer.from(bytes))).toBe(true);
      // And the rebuilt file decodes to the same content.
      const again = await rebuild(await openUdf(new MemorySource(bytes)));
      expect(Buffer.from(again.toBytes()).equals(Buffer.from(bytes))).toBe(true);
    });
  }
});

describe('hashing and layout', () => {
  it('hashes names with DJB2-xor seed 3581 (U3)', () => {
    expect(hashName('children')).toBe(522684110);
    expect(hashName('vec2<f32>')).toBe(4070626842);
    expect(hashName('')).toBe(3581);
  });

  it('lays out 16-aligned datasets, sorted lookup entries, 8-padded data (U1, U2, U3, U6)', async () => {
    const file = new UdfBuilder({ id: 'T' });
    const a = file
      .dataset({ id: 'A' })
      .table('zeta', { prim: 'u8', data: [1, 2, 3] })
      .table('alpha', { prim: 'f64', data: [] });
    const root = file.dataset({ id: 'R' }).datasets('kids', [a, null]).text('t', 'x');
    file.setRoot(root);
    const bytes = file.toBytes();
    const reader = await openUdf(new MemorySource(bytes));
    const [r, child] = await reader.allDatasets();
    // Post-order: the child comes first, right after the file header; the root follows it.
    expect(child.fileOffset.offset).toBe(64);
    expect(reader.header.root!.offset).toBe(64 + child.fileOffset.size);
    expect(child.fileOffset.size).toBe(0x18 + 2 * 0x30 + 2 * 8 + 16 + 8);
    for (const d of [r, child]) {
      expect(d.fileOffset.offset % 16).toBe(0);
      expect(d.fileOffset.size % 16).toBe(0);
      expect(d.header.headerSize).toBe(
        0x18 + 0x30 * d.header.descsLen + 8 * d.header.lookupLen + d.header.stringLen,
      );
      const hashes = d.names.map((n) => n.hash);
      expect(hashes).toEqual([...hashes].sort((x, y) => x - y));
      expect(d.header.stringLen % 8).toBe(0);
    }
    const alpha = child.table('alpha')!;
    expect([alpha.memStart, alpha.memEnd]).toEqual([0, 0]);
    const zeta = child.table('zeta')!;
    expect([zeta.memStart, zeta.memEnd]).toEqual([0, 1]);
    // Padding after 3 data bytes and up to the 16-byte dataset end is zero.
    const end = child.fileOffset.offset + child.fileOffset.size;
    expect(Array.from(bytes.subarray(zeta.dataOffset + 3, end)).every((b) => b === 0)).toBe(true);
  });

  it('refuses what would make an invalid file', () => {
    const file = new UdfBuilder();
    const d = file.dataset();
    expect(() => d.table('x', { prim: 'u8', data: [1, 2, 3], shape: [2] })).toThrow(/holds 2 elements/);
    expect(() => d.table('t', { prim: 'f32', hint: 'text', data: [1] })).toThrow(/cannot hold f32/);
    expect(() => d.table('c', { prim: 'f32', hint: 'coord', data: [1, 2], dims: 1, shape: [2] })).toThrow(
      /ghost/,
    );
    expect(() => d.table('i', { prim: 'u8', hint: 'index', data: [1] })).toThrow(/indexName/);
    expect(() => file.dataset({ id: 'TOOLONG' })).toThrow(/identifier/);
    d.table('v', { prim: 'u8', data: [1, 2] }).table('i', {
      prim: 'u8',
      hint: 'index',
      indexName: 'v',
      data: [2],
    });
    expect(() => file.setRoot(d).toBytes()).toThrow(/does not fit target length 2/);
    const other = new UdfBuilder().dataset();
    expect(() => file.dataset().datasets('k', [other])).toThrow(/another file/);
  });

  it('refuses names whose hashes collide', () => {
    // Find two short names with equal DJB2-xor hashes by search in a small space.
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    const letters = 'abcdefghijklmnopqrstuvwxyz0123456789';
    outer: for (const a of letters)
      for (const b of letters)
        for (const c of letters)
          for (const e of letters) {
            const name = a + b + c + e;
            const h = hashName(name);
            const prior = seen.get(h);
            if (prior) {
              pair = [prior, name];
              break outer;
            }
            seen.set(h, name);
          }
    expect(pair).toBeDefined();
    const file = new UdfBuilder();
    file.setRoot(
      file.dataset().table(pair![0], { prim: 'u8', data: [] }).table(pair![1], { prim: 'u8', data: [] }),
    );
    expect(() => file.toBytes()).toThrow(/same hash/);
  });
});
