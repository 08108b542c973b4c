import { deflate, Inflate } from 'pako';
import {
  DEFAULT_LEVEL,
  type DeflateSettings,
  type InflateOutcome,
  inflateChunkSize,
  PakoDeflater,
  type StreamDeflater,
  tooLong,
} from './zlib.js';

export const zlibName = 'pako';

const TOO_LONG = Symbol('too-long');

export function inflateBlock(input: Uint8Array, expectedSize: number): InflateOutcome {
  // windowBits 15 given explicitly: zlib wrapper only (pako would otherwise also accept gzip).
  // One spare byte: the stream's end then arrives before the chunk is full, so pako does not
  // allocate a second expectedSize-sized chunk just to find out there is nothing more; and a
  // full chunk means the stream runs long, which onData turns into a stop.
  const chunkSize = inflateChunkSize(expectedSize);
  const inflater = new Inflate({ windowBits: 15, chunkSize });
  const chunks: Uint8Array[] = [];
  let total = 0;
  let runsLong = false;
  inflater.onData = (chunk: Uint8Array) => {
    total += chunk.byteLength;
    if (total <= expectedSize) chunks.push(chunk);
    // A full chunk past the size: stop here, as node:zlib does when its chunk fills. A partial
    // one is the final flush, and node:zlib reports an error of that same call first: wait for it.
    else if (chunk.byteLength === chunkSize) throw TOO_LONG;
    else runsLong = true;
  };
  inflater.onEnd = () => {};
  try {
    inflater.push(input, true);
  } catch (error) {
    if (error === TOO_LONG) {
      return tooLong(expectedSize);
    }
    return { ok: false, reason: 'corrupt', message: String((error as Error)?.message ?? error) };
  }
  if (inflater.err)
    return { ok: false, reason: 'corrupt', message: inflater.msg || `zlib error ${inflater.err}` };
  if (runsLong) return tooLong(expectedSize);
  if (chunks.length === 1) return { ok: true, bytes: chunks[0] };
  const bytes = new Uint8Array(total);
  let pos = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, pos);
    pos += chunk.byteLength;
  }
  return { ok: true, bytes };
}

export function deflateBlock(input: Uint8Array, level = DEFAULT_LEVEL): Uint8Array {
  return deflate(input, { level });
}

/** pako, on this thread (browsers have no deflate thread pool to hand it to). */
export function createDeflater(
  settings: DeflateSettings,
  onData: (chunk: Uint8Array) => void,
): StreamDeflater {
  return new PakoDeflater(settings, onData);
}
