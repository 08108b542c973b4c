import { createDeflate, type Deflate, deflateSync, inflateSync } from 'node:zlib';
import {
  DEFAULT_LEVEL,
  type DeflateSettings,
  type InflateOutcome,
  inflateChunkSize,
  PakoDeflater,
  type StreamDeflater,
  tooLong,
} from './zlib.js';

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

/** Largest output chunk: each one is a round trip from the thread pool to the main thread. */
const OUTPUT_CHUNK = 256 << 10;
/** Bytes a stream may have queued before `settle` waits for it. */
const MAX_QUEUED = 2 << 20;

/** node:zlib on the thread pool, beside the caller; pako (Python-identical bytes) when asked. */
export function createDeflater(
  settings: DeflateSettings,
  onData: (chunk: Uint8Array) => void,
): StreamDeflater {
  if (settings.pythonZlib) return new PakoDeflater(settings, onData);
  return new ThreadPoolDeflater(settings.level ?? DEFAULT_LEVEL, onData);
}

class ThreadPoolDeflater implements StreamDeflater {
  private readonly stream: Deflate;
  private readonly done: Promise<void>;

  constructor(level: number, onData: (chunk: Uint8Array) => void) {
    this.stream = createDeflate({ level, chunkSize: OUTPUT_CHUNK });
    this.stream.on('data', (chunk: Buffer) => onData(chunk));
    this.done = new Promise((resolve, reject) => {
      this.stream.on('end', resolve);
      this.stream.on('error', reject);
    });
    this.done.catch(() => {});
  }

  write(bytes: Uint8Array): void {
    this.stream.write(bytes);
  }

  async settle(): Promise<void> {
    const stream = this.stream;
    while (stream.writableLength > MAX_QUEUED && !stream.destroyed) await drained(stream);
  }

  async end(): Promise<void> {
    this.stream.end();
    await this.done;
  }

  destroy(): void {
    this.stream.destroy();
  }
}

/** Resolves when a stream can take more, or can never again (error, close): no hang on failure. */
function drained(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('close', done);
    stream.once('error', done);
  });
}
