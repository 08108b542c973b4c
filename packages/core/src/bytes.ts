import { FormatError, SourceError } from './errors.js';

export interface ReadOptions {
  signal?: AbortSignal;
}

/**
 * Random-access bytes: a file, a Blob, an HTTP resource or memory. The only way readers
 * touch data, so nothing ever needs the whole file in memory.
 */
export interface ByteSource {
  /** Total length in bytes. */
  readonly size: number;
  /** A name for messages (file name or URL). */
  readonly name: string;
  /**
   * Reads `length` bytes at `offset`. May return fewer bytes only when the range runs past
   * `size`. The returned view may alias internal buffers until the next call; copy to keep.
   */
  read(offset: number, length: number, options?: ReadOptions): Promise<Uint8Array>;
  /** A synchronous read, offered by sources that can do it cheaply (memory, local files). */
  readSync?(offset: number, length: number): Uint8Array;
  /**
   * Positional read into the caller's buffer: `length` bytes at `position` into `target` from
   * `targetOffset`; returns how many arrived (fewer only at the end). Offered by local files so
   * hot loops reuse one buffer instead of allocating a view per read. Wrappers must forward it.
   */
  readAt?(target: Uint8Array, targetOffset: number, length: number, position: number): number;
  /** As readAt without blocking this thread (Node: the thread pool); what ReadAhead uses. */
  readAtAsync?(target: Uint8Array, targetOffset: number, length: number, position: number): Promise<number>;
  close?(): Promise<void>;
}

/** A value now or later: one code path for sources that answer synchronously and those that do not. */
export type Awaitable<T> = T | Promise<T>;

/**
 * Reads through `readSync` when the source has it, else through `read`: a caller that checks
 * `instanceof Promise` keeps one code path and pays for a microtask only on async sources.
 */
export function readAwaitable(
  source: ByteSource,
  offset: number,
  length: number,
  options?: ReadOptions,
): Awaitable<Uint8Array> {
  return source.readSync ? source.readSync(offset, length) : source.read(offset, length, options);
}

/** Fills `target` from `position` through the fastest read the source declares; returns the filled part. */
export function readIntoAwaitable(
  source: ByteSource,
  target: Uint8Array,
  position: number,
  options?: ReadOptions,
): Awaitable<Uint8Array> {
  if (source.readAt) {
    const filled = source.readAt(target, 0, target.byteLength, position);
    return filled === target.byteLength ? target : target.subarray(0, filled);
  }
  const copy = (bytes: Uint8Array) => {
    target.set(bytes);
    return target.subarray(0, bytes.byteLength);
  };
  const bytes = readAwaitable(source, position, target.byteLength, options);
  return bytes instanceof Promise ? bytes.then(copy) : copy(bytes);
}

export class MemorySource implements ByteSource {
  readonly size: number;
  constructor(
    readonly bytes: Uint8Array,
    readonly name = 'memory',
  ) {
    this.size = bytes.byteLength;
  }
  read(offset: number, length: number): Promise<Uint8Array> {
    return Promise.resolve(this.readSync(offset, length));
  }
  readSync(offset: number, length: number): Uint8Array {
    const start = Math.min(Math.max(0, offset), this.size);
    return this.bytes.subarray(start, Math.min(this.size, start + Math.max(0, length)));
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
  async read(offset: number, length: number, options?: ReadOptions): Promise<Uint8Array> {
    options?.signal?.throwIfAborted();
    const end = Math.min(this.size, offset + Math.max(0, length));
    return new Uint8Array(await this.blob.slice(offset, end).arrayBuffer());
  }
}

/** Counts what a source was asked for: proves lazy reads in tests and feeds the web page's counter. */
export class CountingSource implements ByteSource {
  bytesRead = 0;
  reads = 0;
  readonly readSync?: (offset: number, length: number) => Uint8Array;
  readonly readAt?: ByteSource['readAt'];
  readonly readAtAsync?: ByteSource['readAtAsync'];
  constructor(readonly inner: ByteSource) {
    // Forwarded, not dropped: a wrapper without them would silently turn off the fast paths.
    const { readSync, readAt, readAtAsync } = inner;
    if (readSync) this.readSync = (offset, length) => this.counted(readSync.call(inner, offset, length));
    if (readAt)
      this.readAt = (target, targetOffset, length, position) =>
        this.countedLength(readAt.call(inner, target, targetOffset, length, position));
    if (readAtAsync)
      this.readAtAsync = async (target, targetOffset, length, position) =>
        this.countedLength(await readAtAsync.call(inner, target, targetOffset, length, position));
  }
  private counted(bytes: Uint8Array): Uint8Array {
    this.countedLength(bytes.byteLength);
    return bytes;
  }
  private countedLength(n: number): number {
    this.reads++;
    this.bytesRead += n;
    return n;
  }
  get size(): number {
    return this.inner.size;
  }
  get name(): string {
    return this.inner.name;
  }
  async read(offset: number, length: number, options?: ReadOptions): Promise<Uint8Array> {
    return this.counted(await this.inner.read(offset, length, options));
  }
  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}

export interface ReadExactOptions extends ReadOptions {
  format?: string;
  /** What is being read, for the error message ("column metadata table"). */
  what?: string;
}

/**
 * Reads exactly [offset, offset+length) or throws the taxonomy's error: OutOfBounds when
 * the range starts past the end, Truncated when it starts inside but runs past it. Check a
 * range here before allocating anything sized by a length field (A4).
 */
export async function readExact(
  source: ByteSource,
  offset: number,
  length: number,
  options: ReadExactOptions = {},
): Promise<Uint8Array> {
  checkRange(source, offset, length, options);
  if (length === 0) return new Uint8Array(0);
  const out = source.readSync ? source.readSync(offset, length) : await source.read(offset, length, options);
  if (out.byteLength !== length) throw shortRead(source, offset, length, out.byteLength, options);
  return out;
}

/** A source that returned fewer bytes than its size promised (a file that shrank, a short reply). */
function shortRead(
  source: ByteSource,
  offset: number,
  length: number,
  got: number,
  options: { what?: string; format?: string },
): FormatError {
  return new FormatError('Truncated', `${options.what ?? 'data'} ends early: got ${got} of ${length} bytes`, {
    offset,
    file: source.name,
    format: options.format,
  });
}

/** Synchronous readExact for sources with readSync; falls back to undefined otherwise. */
export function readExactSync(
  source: ByteSource,
  offset: number,
  length: number,
  options: Omit<ReadExactOptions, 'signal'> = {},
): Uint8Array | undefined {
  if (!source.readSync) return undefined;
  checkRange(source, offset, length, options);
  const out = source.readSync(offset, length);
  if (out.byteLength !== length) throw shortRead(source, offset, length, out.byteLength, options);
  return out;
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
