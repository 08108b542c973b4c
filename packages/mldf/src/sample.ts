import type { DirectorySink, ReadOptions } from '@binscope/core';
import type { FieldSpec } from './write.js';
import { MldfWriter } from './write.js';

/** Deterministic numbers, so every sample is the same file. */
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

const COLOURS = ['red', 'green', 'blue', 'grey'];

const FIELDS: readonly FieldSpec[] = [
  { name: 'label', type: 'INT' },
  { name: 'score', type: 'FLOAT' },
  { name: 'image', type: 'IMAGE_RAW' },
  { name: 'caption', type: 'TEXT_RAW' },
  { name: 'embedding', type: 'NDARRAY', dtype: '<f4', shape: [4] },
  { name: 'meta', type: 'JSON' },
];

/**
 * capabilities.sample: `train.mldf`, 16 samples with one field of each kind (a label, a score,
 * an 8×8 RGB image, a caption, a 4-element embedding and a JSON record), written by the
 * format's own writer in memory (browser-safe) and streamed into the sink.
 */
export async function writeMldfSample(out: DirectorySink, options: ReadOptions = {}): Promise<string[]> {
  const rand = random(2);
  const writer = new MldfWriter(FIELDS);
  for (let i = 0; i < 16; i++) {
    options.signal?.throwIfAborted();
    const pixels = new Uint8Array(8 * 8 * 3);
    for (let p = 0; p < pixels.length; p++) pixels[p] = Math.floor(rand() * 256);
    writer.add({
      label: i % 4,
      score: Math.round(rand() * 1000) / 1000,
      image: { height: 8, width: 8, channels: 3, pixels },
      caption: `sample ${i}: a ${COLOURS[i % 4]} square`,
      embedding: Float32Array.from({ length: 4 }, () => rand()),
      meta: { split: i < 12 ? 'train' : 'val', index: i },
    });
  }
  try {
    await out.write('train.mldf', (sink) => writer.finish(sink));
  } finally {
    writer.dispose();
  }
  return ['train.mldf'];
}
