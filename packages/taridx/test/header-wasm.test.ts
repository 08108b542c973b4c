import { FileListDirectory, MemoryDirectory } from '@binscope/core';
import { type TarEntry, tarBytes, tarHeader } from '@binscope/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HEADER_SLOTS, headerCheck, NAME_NEW_SLOT, NAME_SAME, NAME_UNCACHED } from '../src/header-wasm.js';
import { indexShards } from '../src/index.js';
import { checksumProblem, plainOctalSize, scanName } from '../src/tar.js';

const check = headerCheck();

/** `plain(0)` on a copy of `header`. */
function plain(header: Uint8Array): number {
  if (!check) throw new Error('no WebAssembly SIMD here');
  // In the last slot: the module's memory ends right after it.
  const at = (HEADER_SLOTS - 1) * 512;
  check.blocks.set(header, at);
  return check.plain(at);
}

/** The octal field as tar writers emit it (digits, then NUL or spaces), else -1. */
function plainOctal(h: Uint8Array, start: number, width: number): number {
  let i = start;
  let value = 0;
  while (i < start + width && h[i] >= 0x30 && h[i] <= 0x37) value = value * 8 + h[i++] - 0x30;
  if (i === start) return -1;
  for (; i < start + width && h[i] !== 0; i++) if (h[i] !== 0x20) return -1;
  return value;
}

/** What `plain` computes, in JavaScript: the size when the header is plain, else -1. */
function reference(h: Uint8Array): number {
  let sum = 8 * 0x20;
  for (let i = 0; i < 512; i++) if (i < 148 || i >= 156) sum += h[i];
  if (plainOctal(h, 148, 8) !== sum) return -1;
  const size = plainOctal(h, 124, 12);
  return size >= 0 && size <= 0x7fffffff ? size : -1;
}

function expectPlain(header: Uint8Array): number {
  const got = plain(header);
  expect(got).toBe(reference(header));
  if (got >= 0) {
    // What the walk's JavaScript would find for it.
    expect(checksumProblem(header, 0)).toBeUndefined();
    expect(plainOctalSize(header, 0)).toBe(got);
  }
  return got;
}

describe('the WebAssembly header check', () => {
  it('is there in Node', () => {
    expect(check).toBeDefined();
  });

  it('returns the size of headers as tar writers emit them, and -1 from 2^31 on', () => {
    for (const size of [0, 1, 511, 512, 11_264, 0x7fffffff]) {
      expect(expectPlain(tarHeader({ name: `d/s${size}.jpg`, size }))).toBe(size);
    }
    for (const format of ['ustar', 'gnu', 'pax'] as const) {
      expect(expectPlain(tarHeader({ name: 'a.cls', size: 3, format }))).toBe(3);
    }
    expect(expectPlain(tarHeader({ name: 'big.bin', size: 2 ** 31 }))).toBe(-1);
    expect(expectPlain(tarHeader({ name: 'huge.bin', size: 8 ** 11 - 1 }))).toBe(-1);
  });

  it('sends anything else to the JavaScript: zero blocks, base-256 sizes, odd fields, wrong sums', () => {
    expect(expectPlain(new Uint8Array(512))).toBe(-1);
    expect(expectPlain(tarHeader({ name: 'a.bin', size: 5, sizeEncoding: 'base256' }))).toBe(-1);
    const header = tarHeader({ name: 'a.jpg', size: 700 });
    const bad = header.slice();
    bad[1] ^= 1;
    expect(expectPlain(bad)).toBe(-1);
    // The checksum field with a leading space: a valid sum, but not as writers emit it.
    const spaced = header.slice();
    spaced.copyWithin(149, 148, 154);
    spaced[148] = 0x20;
    expect(expectPlain(spaced)).toBe(-1);
  });

  it('agrees with the JavaScript on damaged and random headers', () => {
    const base = tarHeader({ name: 'shard/sample_000123.json', size: 4321 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 511 }), fc.integer({ min: 0, max: 255 })), {
          maxLength: 4,
        }),
        fc.boolean(),
        (edits, refreshSum) => {
          const header = base.slice();
          for (const [at, value] of edits) header[at] = value;
          if (refreshSum) {
            // Edits outside the checksum field, with the sum written again (size field edits stay).
            header.fill(0x20, 148, 156);
            let sum = 0;
            for (let i = 0; i < 512; i++) sum += header[i];
            const text = sum.toString(8).padStart(6, '0');
            for (let i = 0; i < 6; i++) header[148 + i] = text.charCodeAt(i);
            header[154] = 0;
          }
          expectPlain(header);
        },
      ),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 512, maxLength: 512 }), (header) => {
        expectPlain(header);
      }),
      { numRuns: 500 },
    );
  });

  it('gives each caller memory of its own', () => {
    const a = headerCheck();
    const b = headerCheck();
    expect(a?.blocks.buffer).not.toBe(b?.blocks.buffer);
    expect(a?.blocks.byteLength).toBe(HEADER_SLOTS * 512);
  });
});

describe('the WebAssembly name scan', () => {
  /** What `name` returns for each header of a walk, modelled in JavaScript with scanName. */
  function model(names: Uint8Array[]): number[] {
    let prev: Uint8Array | undefined;
    const slots: string[] = [];
    return names.map((bytes) => {
      const header = new Uint8Array(512);
      header.set(bytes.subarray(0, 100));
      const { stemStart, dot, end } = scanName(header, 0);
      const stem = header.slice(stemStart, dot < 0 ? end : dot);
      const same = prev !== undefined && prev.length === stem.length && prev.every((b, i) => b === stem[i]);
      prev = stem;
      const ext = Array.from(header.subarray(dot < 0 ? end : dot + 1, end)).join(',');
      const extLength = end - (dot < 0 ? end : dot + 1);
      let slot = slots.indexOf(ext);
      let flags = 0;
      if (slot < 0 && extLength <= 32 && slots.length < 32) {
        slot = slots.push(ext) - 1;
        flags = NAME_NEW_SLOT;
      } else if (slot < 0) {
        slot = 0;
        flags = NAME_UNCACHED;
      }
      return end | (stemStart << 7) | ((dot + 1) << 14) | (same ? NAME_SAME : 0) | (slot << 22) | flags;
    });
  }

  function scanAll(names: Uint8Array[]): number[] {
    const fresh = headerCheck();
    if (!fresh) throw new Error('no WebAssembly SIMD here');
    return names.map((bytes, k) => {
      const at = (k % HEADER_SLOTS) * 512;
      fresh.blocks.fill(0, at, at + 512);
      fresh.blocks.set(bytes.subarray(0, 100), at);
      return fresh.name(at);
    });
  }

  it('finds what scanName finds, and the same stems and extensions as the model', () => {
    const enc = new TextEncoder();
    const names = [
      'd/s0.jpg',
      'd/s0.json',
      'd/s0.cls',
      'd/s1.jpg',
      'x/s1.JPG',
      's1',
      'a.b/c',
      '.hidden',
      'a.',
      '',
    ].map((n) => enc.encode(n));
    names.push(enc.encode(`${'deep/'.repeat(18)}stem.tar.gz`), new Uint8Array(100).fill(0x61));
    expect(scanAll(names)).toEqual(model(names));
  });

  it('agrees with the model on random walks, long and many extensions included', () => {
    const part = fc.stringMatching(/^[ab./]{0,6}$/);
    const longExt = fc.constant(`.${'e'.repeat(40)}`);
    const manyExt = fc.integer({ min: 0, max: 40 }).map((i) => `s.x${i}`);
    const name = fc.oneof(
      part,
      fc.tuple(part, part).map(([a, b]) => a + b),
      longExt,
      manyExt,
    );
    fc.assert(
      fc.property(fc.array(name, { maxLength: 150 }), (list) => {
        const names = list.map((n) => new TextEncoder().encode(n));
        expect(scanAll(names)).toEqual(model(names));
      }),
      { numRuns: 300 },
    );
  });
});

describe('indexing with the WebAssembly scan', () => {
  it('gives the bytes of the JavaScript walk: stems across shards, 40 extensions, long ones, no dot', async () => {
    const entries = (shard: number): TarEntry[] =>
      Array.from({ length: 300 }, (_, i) => {
        const stem = i === 0 && shard === 1 ? 's0_149' : `s${shard}_${i >> 1}`; // shard 1 starts with shard 0's last stem
        const ext =
          i % 11 === 3
            ? `x${i % 40}`
            : i % 13 === 5
              ? 'e'.repeat(40)
              : i % 17 === 7
                ? ''
                : i % 2
                  ? 'JSON'
                  : 'jpg';
        return {
          name: `${i % 9 === 4 ? 'a/b.c/' : 'd/'}${stem}${ext ? `.${ext}` : ''}`,
          data: new Uint8Array(i % 5),
        };
      });
    const shards = [tarBytes(entries(0), 'gnu'), tarBytes(entries(1), 'gnu')];
    const memory = await indexShards({
      directory: new MemoryDirectory({ 'f_0.tar': shards[0], 'f_1.tar': shards[1] }),
      fold: 'f',
    });
    const files = new FileListDirectory(shards.map((s, i) => new File([new Uint8Array(s)], `f_${i}.tar`)));
    const windowed = await indexShards({ directory: files, fold: 'f' });
    expect(memory.bytes).toEqual(windowed.bytes);
    expect(memory.rows).toBe(600);
  });
});
