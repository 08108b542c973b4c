import type { ByteSource } from '@binscope/core';
import type { ByteProfileView, WorkProgress } from '../protocol';

/** Bytes read per sample: enough for a stable byte histogram, little enough for 256 of them. */
export const PROFILE_BLOCK = 4096;
const MAX_STRIPS = 1024;

/** Shannon entropy of the bytes, in bits per byte (0: one value repeated; 8: all values alike often). */
export function entropy(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  const counts = new Uint32Array(256);
  for (const b of bytes) counts[b]++;
  let bits = 0;
  for (const c of counts) {
    if (c === 0) continue;
    const p = c / bytes.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * A byte map of the whole file at a bounded cost: one PROFILE_BLOCK at the start of each of
 * `strips` equal parts (the whole part when smaller), so compressed or encrypted regions
 * (near 8), text (4–5) and padding (near 0) show along the hex view's scrubber.
 */
export async function byteProfile(
  source: ByteSource,
  strips: number,
  signal: AbortSignal,
  progress: (event: WorkProgress) => void,
): Promise<ByteProfileView> {
  const size = source.size;
  // Never more strips than bytes: a tiny file gets a strip per byte at most.
  const n = Math.max(0, Math.min(MAX_STRIPS, Math.floor(strips) || 0, size));
  const samples: ByteProfileView['samples'] = [];
  for (let i = 0; i < n; i++) {
    const offset = Math.floor((i * size) / n);
    const end = Math.floor(((i + 1) * size) / n);
    const length = Math.min(PROFILE_BLOCK, end - offset);
    const bytes = await source.read(offset, length, { signal });
    samples.push({ offset, length, entropy: entropy(bytes) });
    progress({ phase: 'byte map', done: i + 1, total: n });
  }
  return { size, samples };
}
