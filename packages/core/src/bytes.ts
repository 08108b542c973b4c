import { FormatError, SourceError } from './errors.js';

/** A value now or later: one code path for sources that answer synchronously and those that do not. */
export type Awaitable<T> = T | Promise<T>;

export interface ReadOptions {
  signal?: AbortSignal;
}

/** How one read is made. Every field is optional; a source that cannot honour a hint ignores it. */
export interface ReadRequest extends ReadOptions {
  /**
   * Fill this buffer from index 0 and return it (or `into.subarray(0, n)` when fewer bytes
   * arrive) instead of a new or aliased view: hot loops reuse one buffer. It must hold at least
   * the bytes asked for. Returning `into` itself when it is filled exactly costs no allocation,
   * so size it to the read.
   */
  into?: Uint8Array;
  /**
   * Ask the source not to block this thread: a local file then answers from the thread pool
   * (a promise) while the caller works on. What ReadAhead asks for; sources without such a
   * path ignore it.
   */
  defer?: boolean;
}

/**
 * Random-access bytes: a file, a Blob, an HTTP resource or memory. The only way readers touch
 * data, so nothing ever needs the whole file in memory.
 */
export interface ByteSource {
  /** Total length in bytes. */
  readonly size: number;
  /** A name for messages (file name or URL). */
  readonly name: string;
  /**
   * [offset, offset + length) clamped to `size`: fewer bytes only past the end. Sync sources
   * (memory, local files) answer synchronously, so a caller keeps one code path and checks
   * `instanceof Promise` only where a hot loop cares. Without `into`, the view may alias
   * internal buffers until the next call: copy to keep.
   */
  read(offset: number, length: number, request?: ReadRequest): Awaitable<Uint8Array>;
  close?(): Promise<void>;
}

/**
 * What a source returns for `bytes` it read: the bytes themselves, or, when the request gave
 * `into`, a copy there (`into` itself when filled exactly). For implementers of ByteSource.
 */
export function copyInto(bytes: Uint8Array, into: Uint8Array | undefined): Uint8Array {
  if (into === undefined || bytes === into) return bytes;
  if (bytes.byteLength > into.byteLength)
    throw new RangeError(`read into a ${into.byteLength}-byte buffer of ${bytes.byteLength} bytes`);
  into.set(bytes);
  return bytes.byteLength === into.byteLength ? into : into.subarray(0, bytes.byteLength);
}

/** The part of [offset, offset + length) inside a source of `size` bytes. */
export function clampRange(size: number, offset: number, length: number): { start: number; end: number } {
  const start = Math.min(Math.max(0, offset), size);
  return { start, end: Math.min(size, start + Math.max(0, length)) };
}

export class MemorySource implements ByteSource {
  readonly size: number;
  constructor(
    readonly bytes: Uint8Array,
    readonly name = 'memory',
  ) {
    this.size = bytes.byteLength;
  }
  read(offset: number, length: number, request?: ReadRequest): Uint8Array {
    const start = Math.min(Math.max(0, offset), this.size);
    const view = this.bytes.subarray(start, Math.min(this.size, start + Math.max(0, length)));
    return request?.into ? copyInto(view, request.into) : view;
  }
}

/** A Blob or File (browser, or Node ≥ 20). Reads with Blob.slice, never the whole blob. */
export class BlobSource implements ByteSource {
  readonly size: number;
  readonly name: string;
  constructor(
    readonly blob: Blob,
    name?: string,
  ) {
    this.size = blob.size;
    this.name = name ?? (blob as { name?: string }).name ?? 'blob';
  }
  async read(offset: number, length: number, request?: ReadRequest): Promise<Uint8Array> {
    request?.signal?.throwIfAborted();
    const { start, end } = clampRange(this.size, offset, length);
    const bytes = new Uint8Array(await this.blob.slice(start, end).arrayBuffer());
    return copyInto(bytes, request?.into);
  }
}

/**
 * Counts what a source was asked for: proves lazy reads in tests and feeds the web page's
 * counter. One method to forward, so every request (into, defer, signal) reaches the inner
 * source as it was made, and a synchronous answer stays synchronous.
 */
export class CountingSource implements ByteSource {
  bytesRead = 0;
  reads = 0;
  constructor(readonly inner: ByteSource) {}
  get size(): number {
    return this.inner.size;
  }
  get name(): string {
    return this.inner.name;
  }
  read(offset: number, length: number, request?: ReadRequest): Awaitable<Uint8Array> {
    const bytes = this.inner.read(offset, length, request);
    // The synchronous answer first: the check that matches a Uint8Array is the shorter walk.
    if (bytes instanceof Uint8Array) {
      this.reads++;
      this.bytesRead += bytes.byteLength;
      return bytes;
    }
    return bytes.then(this.counted);
  }
  private readonly counted = (bytes: Uint8Array): Uint8Array => {
    this.reads++;
    this.bytesRead += bytes.byteLength;
    return bytes;
  };
  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}

export interface ReadExactOptions extends ReadRequest {
  format?: string;
  /** What is being read, for the error message ("column metadata table"). */
  what?: string;
}

/**
 * Reads exactly [offset, offset+length) or throws the taxonomy's error: OutOfBounds when the
 * range starts past the end, Truncated when it starts inside but runs past it (both before
 * anything is read or allocated: check a range here before sizing anything by a length field,
 * A4) and Truncated when the source returns fewer bytes than its size promised. Synchronous
 * when the source is: range errors are then thrown, not returned as a rejected promise.
 */
export function readExact(
  source: ByteSource,
  offset: number,
  length: number,
  options: ReadExactOptions = {},
): Awaitable<Uint8Array> {
  checkRange(source, offset, length, options);
  if (length === 0) return new Uint8Array(0);
  const out = source.read(offset, length, options);
  if (out instanceof Promise) return out.then((bytes) => exactly(source, offset, length, bytes, options));
  return exactly(source, offset, length, out, options);
}

function exactly(
  source: ByteSource,
  offset: number,
  length: number,
  bytes: Uint8Array,
  options: ReadExactOptions,
): Uint8Array {
  if (bytes.byteLength === length) return bytes;
  // A source that returned fewer bytes than its size promised (a file that shrank, a short reply).
  throw new FormatError(
    'Truncated',
    `${options.what ?? 'data'} ends early: got ${bytes.byteLength} of ${length} bytes`,
    { offset, file: source.name, format: options.format },
  );
}

export function checkRange(
  source: { size: number; name: string },
  offset: number,
  length: number,
  options: { format?: string; what?: string } = {},
): void {
  const what = options.what ?? 'data';
  const loc = { offset, file: source.name, format: options.format };
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new FormatError('OutOfBounds', `${what}: invalid range ${offset}+${length}`, loc);
  }
  if (offset > source.size || (offset === source.size && length > 0)) {
    throw new FormatError(
      'OutOfBounds',
      `${what} starts at ${offset}, past the end of the file (${source.size} bytes)`,
      loc,
    );
  }
  if (offset + length > source.size) {
    throw new FormatError(
      'Truncated',
      `${what} needs ${length} bytes at ${offset} but the file ends at ${source.size}`,
      loc,
    );
  }
}

/** Throws SourceError for an aborted signal: cancellations are not format errors. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SourceError('aborted', undefined, { cause: signal.reason });
}

/**
 * Whether a source answers reads synchronously (memory, local files), probed with an empty
 * read. For code whose synchronous path differs in more than awaiting (a buffer shared while
 * decoding, a sync API over the source); everything else checks `instanceof Promise` per read.
 */
export function answersSynchronously(source: ByteSource): boolean {
  try {
    const probe = source.read(0, 0);
    if (!(probe instanceof Promise)) return true;
    probe.catch(() => undefined);
  } catch {
    // A closed source: no read will answer at all.
  }
  return false;
}
