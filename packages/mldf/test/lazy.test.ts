import * as path from 'node:path';
import { type ByteSource, isBinscopeError, MemorySource } from '@binscope/core';
import { tempDir } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import {
  type FieldSpec,
  MldfLazyText,
  type MldfSample,
  type MldfValue,
  openMldf,
  writeMldf,
} from '../src/index.js';
import { openMldfFile, writeMldfFile } from '../src/node.js';

const fields: FieldSpec[] = [
  { name: 'label', type: 'INT' },
  { name: 'meta', type: 'JSON' },
  { name: 'caption', type: 'TEXT_RAW' },
  { name: 'image', type: 'IMAGE_RAW' },
];

function sampleOf(i: number): MldfSample {
  return {
    label: BigInt(i) - 3n,
    meta: i % 5 === 0 ? undefined : { i, source: `shard-${i % 4}`, tags: ['x', 'ü'.repeat(i % 3)] },
    caption: i % 4 === 0 ? '' : i % 3 === 0 ? `caption ${i} ✓` : `plain ascii ${i}`,
    image: { height: 2, width: 2, channels: 1, mode: 0, pixels: Uint8Array.from([i, i + 1, i + 2, i + 3]) },
  };
}

/** A lazily decoded sample with its JSON/TEXT values decoded, to compare with an eager read. */
function settle(s: MldfSample): MldfSample {
  const out: MldfSample = {};
  for (const [k, v] of Object.entries(s)) out[k] = v instanceof MldfLazyText ? (v.value() as MldfValue) : v;
  return out;
}

function asyncOnly(bytes: Uint8Array): ByteSource {
  const inner = new MemorySource(bytes, 'async');
  return { size: inner.size, name: 'async', read: async (o, l) => inner.read(o, l) };
}

const N = 300;
const samples = Array.from({ length: N }, (_, i) => sampleOf(i));

describe("decode: 'lazy'", () => {
  it('returns MldfLazyText for non-empty JSON/TEXT values and the eager value for empty ones', async () => {
    const reader = await openMldf(new MemorySource(await writeMldf(fields, samples)));
    const s = await reader.sample(1, { decode: 'lazy' });
    expect(s.meta).toBeInstanceOf(MldfLazyText);
    expect(s.caption).toBeInstanceOf(MldfLazyText);
    const meta = s.meta as MldfLazyText;
    expect(meta.type).toBe('JSON');
    expect(meta.field).toBe('meta');
    expect(meta.text()).toBe(JSON.stringify(sampleOf(1).meta));
    expect(meta.value()).toEqual(sampleOf(1).meta);
    expect((s.caption as MldfLazyText).value()).toBe('plain ascii 1');
    expect(s.label).toBe(-2n);
    // empty values: same as eager
    const empty = await reader.sample(0, { decode: 'lazy' });
    expect(empty.meta).toBeUndefined();
    expect(empty.caption).toBe('');
  });

  it('sample, samples and batches: lazy values decode to what an eager read returns (sync and promise paths)', async () => {
    const bytes = await writeMldf(fields, samples);
    for (const source of [new MemorySource(bytes), asyncOnly(bytes)]) {
      const reader = await openMldf(source);
      for (const i of [0, 1, 3, 7, 150, N - 1])
        expect(settle(await reader.sample(i, { decode: 'lazy' }))).toEqual(sampleOf(i));
      const indices = [299, 5, 6, 100, 2];
      expect((await reader.samples(indices, { decode: 'lazy' })).map(settle)).toEqual(indices.map(sampleOf));
      let n = 0;
      for await (const batch of reader.batches({ decode: 'lazy', batchSize: 64, windowSize: 4096 })) {
        for (const s of batch) expect(settle(s)).toEqual(sampleOf(n++));
      }
      expect(n).toBe(N);
      expect(await reader.sample(4, { decode: 'eager' })).toEqual(sampleOf(4));
    }
  });

  it('local files with reuse: lazy values read the same as eager ones', async () => {
    const dir = tempDir('binscope-mldf-lazy-');
    const file = path.join(dir.dir, 'lazy.mldf');
    await writeMldfFile(file, fields, samples);
    const reader = await openMldfFile(file);
    try {
      for (const i of [3, 1, 299, 42]) {
        expect(settle(await reader.sample(i, { decode: 'lazy', reuse: true }))).toEqual(sampleOf(i));
        expect(settle(await reader.sample(i, { decode: 'lazy' }))).toEqual(sampleOf(i));
        expect(await reader.sample(i)).toEqual(sampleOf(i));
      }
      let n = 0;
      for await (const batch of reader.batches({ decode: 'lazy', reuse: true, windowSize: 8192 })) {
        for (const s of batch) expect(settle(s)).toEqual(sampleOf(n++));
      }
      expect(n).toBe(N);
    } finally {
      await reader.close();
      dir.remove();
    }
  });
});

describe('text decoding', () => {
  async function withCaptionBytes(patch: (b: Uint8Array) => void, type: 'TEXT_RAW' | 'JSON' = 'TEXT_RAW') {
    const value = type === 'JSON' ? { a: 'abcdef' } : 'abcdef';
    const bytes = await writeMldf([{ name: 'v', type }], [{ v: value }]);
    const reader = await openMldf(new MemorySource(bytes, 'patched'));
    const info = await reader.valueInfo(0, 'v');
    const copy = bytes.slice();
    patch(copy.subarray(info.ptr, info.ptr + info.size));
    return { reader: await openMldf(new MemorySource(copy, 'patched')), ptr: info.ptr };
  }

  it('ASCII, multi-byte and long strings round-trip', async () => {
    const values = ['a', 'ascii only', 'ü✓ mixed 😀', 'x'.repeat(5000), `${'y'.repeat(2000)}é`];
    const bytes = await writeMldf(
      [{ name: 't', type: 'TEXT_RAW' }],
      values.map((t) => ({ t })),
    );
    const reader = await openMldf(new MemorySource(bytes));
    for (let i = 0; i < values.length; i++) expect((await reader.sample(i)).t).toBe(values[i]);
  });

  it('invalid UTF-8 is an InvalidValue at the value offset, eagerly or on text()', async () => {
    const { reader, ptr } = await withCaptionBytes((b) => {
      b[2] = 0xff;
    });
    const eager = await reader.sample(0).catch((e: unknown) => e);
    expect(isBinscopeError(eager, 'FormatError') && eager.code).toBe('InvalidValue');
    expect(isBinscopeError(eager, 'FormatError') && eager.offset).toBe(ptr);
    const lazy = (await reader.sample(0, { decode: 'lazy' })).v as MldfLazyText;
    expect(() => lazy.text()).toThrow(/not valid UTF-8/);
    // a lone continuation byte and a truncated sequence
    for (const bad of [[0x80], [0xc3]]) {
      const r = await withCaptionBytes((b) => b.set(bad, 5));
      await expect(r.reader.sample(0)).rejects.toThrow(/not valid UTF-8/);
    }
  });

  it('invalid JSON is an InvalidValue, eagerly or on value()', async () => {
    const { reader, ptr } = await withCaptionBytes((b) => {
      b[0] = 0x78; // 'x'
    }, 'JSON');
    await expect(reader.sample(0)).rejects.toThrow(/not valid JSON/);
    const lazy = (await reader.sample(0, { decode: 'lazy' })).v as MldfLazyText;
    expect(lazy.offset).toBe(ptr);
    let error: unknown;
    try {
      lazy.value();
    } catch (e) {
      error = e;
    }
    expect(isBinscopeError(error, 'FormatError') && error.code).toBe('InvalidValue');
    expect(isBinscopeError(error, 'FormatError') && error.offset).toBe(ptr);
  });

  it('sample() on a synchronous source reports errors as rejections, never synchronous throws', async () => {
    const reader = await openMldf(new MemorySource(await writeMldf(fields, samples.slice(0, 3))));
    const p = reader.sample(99);
    expect(p).toBeInstanceOf(Promise);
    await expect(p).rejects.toThrow(RangeError);
    const aborted = AbortSignal.abort();
    await expect(reader.sample(0, { signal: aborted })).rejects.toThrow();
  });
});
