import { type DirectorySink, MemoryDirectory, type ReadOptions } from '@binscope/core';
// The workspace's one tar writer (deterministic USTAR), bundled into dist at build time.
import { tarBytes } from '@binscope/testkit/tar';
import { indexShards } from './indexer.js';

/** Deterministic numbers, so every sample is the same fold. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 6×6 RGB image as binary PPM: a real image payload, tiny. */
function ppm(seed: number): Uint8Array {
  const rand = random(seed);
  const head = new TextEncoder().encode('P6\n6 6\n255\n');
  const out = new Uint8Array(head.byteLength + 6 * 6 * 3);
  out.set(head);
  for (let i = head.byteLength; i < out.length; i++) out[i] = Math.floor(rand() * 256);
  return out;
}

/**
 * capabilities.sample: a WebDataset-style fold of two shards (`shards/train_0000.tar`,
 * `shards/train_0001.tar`, four samples each: a .ppm image, a .json caption and a .cls label)
 * and its index `shards/train.taridx`, made by the package's own indexer. Lists all three.
 */
export async function writeTaridxSample(out: DirectorySink, options: ReadOptions = {}): Promise<string[]> {
  const enc = new TextEncoder();
  const shards: Record<string, Uint8Array> = {};
  for (let shard = 0; shard < 2; shard++) {
    const members: Array<{ name: string; data: Uint8Array }> = [];
    for (let k = 0; k < 4; k++) {
      const n = shard * 4 + k;
      const key = `sample_${String(n).padStart(6, '0')}`;
      members.push({ name: `${key}.ppm`, data: ppm(n) });
      members.push({
        name: `${key}.json`,
        data: enc.encode(JSON.stringify({ key, shard, caption: `picture ${n}` })),
      });
      members.push({ name: `${key}.cls`, data: enc.encode(String(n % 3)) });
    }
    shards[`train_${String(shard).padStart(4, '0')}.tar`] = tarBytes(members);
  }
  const { bytes } = await indexShards({ directory: new MemoryDirectory(shards), fold: 'train' }, options);
  const paths: string[] = [];
  for (const [name, data] of Object.entries(shards)) {
    await out.write(`shards/${name}`, data);
    paths.push(`shards/${name}`);
  }
  await out.write('shards/train.taridx', bytes);
  return [...paths, 'shards/train.taridx'];
}
