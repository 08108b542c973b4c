/**
 * The Snappy compressor of Parquet pages: whatever it is given, hyparquet's decompressor (the
 * reader's) gives the same bytes back, across 64 KiB fragments, long literals and long copies;
 * and repetitive bytes shrink.
 */
import { snappyUncompress } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { maxCompressedLength, snappyCompress } from '../src/snappy.js';

function roundTrip(input: Uint8Array): Uint8Array {
  const compressed = snappyCompress(input);
  expect(compressed.length).toBeLessThanOrEqual(maxCompressedLength(input.length));
  const output = new Uint8Array(input.length);
  snappyUncompress(compressed, output);
  expect(Buffer.from(output).equals(Buffer.from(input))).toBe(true);
  return compressed;
}

/** xorshift32 bytes: the same on every run. */
function noise(length: number, seed = 7): Uint8Array {
  let x = seed;
  return Uint8Array.from({ length }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x & 0xff;
  });
}

describe('snappyCompress', () => {
  it.each([0, 1, 14, 15, 16, 61, 257, 65535, 65536, 65537, 200_000])('%i noisy bytes', (length) => {
    roundTrip(noise(length));
  });

  it('runs and repeats, across fragments: long copies, and far fewer bytes', () => {
    const input = new Uint8Array(300_000);
    for (let i = 0; i < input.length; i++) input[i] = i % 1000 < 500 ? 7 : (i * 31) % 251;
    expect(roundTrip(input).length).toBeLessThan(input.length / 10);
  });

  it('text with matches at every distance up to 64 KiB', () => {
    const words = Array.from({ length: 30_000 }, (_, i) => `user_${i % 4000}_${(i * 7919) % 10007};`).join(
      '',
    );
    roundTrip(new TextEncoder().encode(words));
  });

  it('numbers as Parquet pages hold them', () => {
    roundTrip(new Uint8Array(Int32Array.from({ length: 100_000 }, (_, i) => (i * 37) % 20000).buffer));
    roundTrip(new Uint8Array(Float64Array.from({ length: 50_000 }, (_, i) => Math.sin(i) * 1e4).buffer));
  });
});
