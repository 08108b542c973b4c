import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadHasher } from '../src/hash.js';
import { hashStemText } from '../src/stem-hash.js';

/** Stems back to back, as the builder keeps them, hashed by the module and by xxhash-wasm. */
async function both(stems: Uint8Array[]): Promise<{ wasm: bigint[]; xxhash: bigint[] }> {
  const hasher = await loadHasher();
  const n = stems.length;
  const used = stems.reduce((sum, s) => sum + s.byteLength, 0);
  const text = new Uint8Array(used + 16);
  const starts = new Uint32Array(n);
  const lengths = new Uint32Array(n);
  let at = 0;
  stems.forEach((stem, k) => {
    text.set(stem, at);
    starts[k] = at;
    lengths[k] = stem.byteLength;
    at += stem.byteLength;
  });
  const lo = new Uint32Array(n);
  const hi = new Uint32Array(n);
  expect(hashStemText(text, used, starts, lengths, n, lo, hi)).toBe(true);
  return {
    wasm: stems.map((_, k) => (BigInt(hi[k]) << 32n) | BigInt(lo[k])),
    xxhash: stems.map((stem) => hasher.h64Raw(stem, 0n)),
  };
}

describe('XXH64 of many stems in one WebAssembly call', () => {
  it('equals xxhash-wasm for every length up to 300 (every branch of XXH64)', async () => {
    const stems = Array.from({ length: 301 }, (_, n) =>
      Uint8Array.from({ length: n }, (_, i) => (i * 131 + n) & 0xff),
    );
    const { wasm, xxhash } = await both(stems);
    expect(wasm).toEqual(xxhash);
  });

  it('equals xxhash-wasm on random stems, high bytes included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 120 }), { minLength: 1, maxLength: 200 }),
        async (stems) => {
          const { wasm, xxhash } = await both(stems);
          expect(wasm).toEqual(xxhash);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('hashes more stems than one page of memory holds', async () => {
    const stems = Array.from({ length: 20_000 }, (_, k) => new TextEncoder().encode(`sample_${k}`));
    const { wasm, xxhash } = await both(stems);
    expect(wasm).toEqual(xxhash);
  });
});
