import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * Writes a file of `size` bytes whose every aligned 4-byte word is its own offset as a
 * little-endian uint32, so any byte shown can be checked against where it claims to be.
 */
export function writeOffsetFile(path: string, size: number): void {
  const block = 1 << 20;
  const fd = openSync(path, 'w');
  try {
    const buf = Buffer.alloc(block);
    for (let at = 0; at < size; at += block) {
      for (let i = 0; i < block; i += 4) buf.writeUInt32LE((at + i) >>> 0, i);
      writeSync(fd, buf, 0, Math.min(block, size - at));
    }
  } finally {
    closeSync(fd);
  }
}

/** The byte a file written by writeOffsetFile has at `offset`. */
export function offsetFileByte(offset: number): number {
  const word = offset - (offset % 4);
  return (word >>> (8 * (offset % 4))) & 0xff;
}
