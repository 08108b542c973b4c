import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import type { ByteSource } from '@binscope/core';

/** Bytes per request on a sequential pass over a remote source: few round trips, bounded memory. */
const SEQUENTIAL_CHUNK = 8 << 20;

/**
 * A source read front to back, the next chunk requested while the caller consumes the
 * current one, so a pass over a URL costs about the transfer time, not transfer + latency
 * per chunk.
 */
export async function* sourceChunks(
  source: ByteSource,
  chunk = SEQUENTIAL_CHUNK,
): AsyncGenerator<Uint8Array> {
  let offset = 0;
  const read = (at: number) => Promise.resolve(source.read(at, chunk));
  let next: Promise<Uint8Array> | undefined = source.size > 0 ? read(0) : undefined;
  while (next) {
    const bytes = await next;
    offset += bytes.byteLength;
    next = offset < source.size && bytes.byteLength > 0 ? read(offset) : undefined;
    yield bytes;
  }
}

/** Standard input as byte chunks (for streaming readers: CSV, tar). */
export async function* stdinChunks(stdin: Readable = process.stdin): AsyncGenerator<Uint8Array> {
  for await (const chunk of stdin)
    yield typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
}

/** Writes chunks to a new file (the caller removes it), returning how many bytes it holds. */
export async function spool(chunks: AsyncIterable<Uint8Array>, file: string): Promise<number> {
  const fd = fs.openSync(file, 'wx', 0o600);
  let total = 0;
  try {
    for await (const chunk of chunks) {
      let written = 0;
      while (written < chunk.byteLength) written += fs.writeSync(fd, chunk, written);
      total += chunk.byteLength;
    }
  } finally {
    fs.closeSync(fd);
  }
  return total;
}

/** A private scratch folder removed by `remove()`, for spooled inputs and staged outputs. */
export function scratchFolder(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
