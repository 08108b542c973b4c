import { type ByteSource, formatErrors, readExactSync } from '@binscope/core';

/** core's readExactSync, also checking the length the source returned (as readExact does). */
export function readSyncExact(
  source: ByteSource,
  offset: number,
  length: number,
  options: { format: string; what: string },
): Uint8Array | undefined {
  const out = readExactSync(source, offset, length, options);
  if (out && out.byteLength !== length) {
    const fail = formatErrors(options.format, source.name);
    throw fail('Truncated', `${options.what} ends early: got ${out.byteLength} of ${length} bytes`, offset);
  }
  return out;
}

export function joinBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}
