import type { ByteSource } from '@binscope/core';
import { crc32 } from '@binscope/core/binary';
import { sha256 } from '@noble/hashes/sha2.js';
import type { RangeHashes } from '../protocol';

/** Bytes read and hashed per step: memory stays at one chunk whatever the range's size. */
const CHUNK = 4 << 20;

/**
 * CRC-32 and SHA-256 of `[offset, offset + length)`, read a chunk at a time (a range can be a
 * whole multi-GB node), cancellable between chunks and reporting progress as it goes.
 */
export async function hashRange(
  source: ByteSource,
  offset: number,
  length: number,
  signal: AbortSignal,
  onProgress?: (event: { done: number; total: number }) => void,
): Promise<RangeHashes> {
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0)
    throw new Error(`bad range: offset ${offset}, length ${length}`);
  if (offset + length > source.size)
    throw new Error(`the range ends at ${offset + length}, past the file's end (${source.size})`);
  const sha = sha256.create();
  let crc = 0;
  for (let done = 0; done < length; ) {
    signal.throwIfAborted();
    const chunk = await source.read(offset + done, Math.min(CHUNK, length - done), { signal });
    sha.update(chunk);
    crc = crc32(chunk, crc);
    done += chunk.byteLength;
    onProgress?.({ done, total: length });
  }
  const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return { offset, length, crc32: crc.toString(16).padStart(8, '0'), sha256: hex(sha.digest()) };
}
