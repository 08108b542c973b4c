import { deflateSync, inflateSync } from 'node:zlib';
import { DEFAULT_LEVEL, type InflateOutcome, inflateChunkSize, tooLong } from './zlib.js';

export const zlibName = 'node:zlib';

export function inflateBlock(input: Uint8Array, expectedSize: number): InflateOutcome {
  try {
    // One chunk of the known size + 1: one allocation, and node:zlib stops (ERR_BUFFER_TOO_LARGE)
    // as soon as that chunk fills, so a bomb is never inflated further.
    const bytes = inflateSync(input, {
      chunkSize: inflateChunkSize(expectedSize),
      maxOutputLength: Math.max(1, expectedSize),
    });
    // maxOutputLength cannot be 0; an empty declared size is enforced here.
    if (bytes.byteLength > expectedSize) return tooLong(expectedSize);
    return { ok: true, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') {
      return tooLong(expectedSize);
    }
    return { ok: false, reason: 'corrupt', message: (error as Error).message };
  }
}

export function deflateBlock(input: Uint8Array, level = DEFAULT_LEVEL): Uint8Array {
  const out = deflateSync(input, { level });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
