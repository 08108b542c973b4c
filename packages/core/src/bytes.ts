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
  close?(): Promise<void>;
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
  constructor(readonly inner: ByteSource) {
    const innerSync = inner.readSync?.bind(inner);
    if (innerSync) {
      this.readSync = (offset, length) => {
        const out = innerSync(offset, length);
        this.reads++;
        this.bytesRead += out.byteLength;
        return out;
      };
    }
  }
  get size(): number {
    return this.inner.size;
  }
  get name(): string {
    return this.inner.name;
  }
  async read(offset: number, length: number, options?: ReadOptions): Promise<Uint8Array> {
    const out = await this.inner.read(offset, length, options);
    this.reads++;
    this.bytesRead += out.byteLength;
    return out;
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
  if (out.byteLength !== length) {
    throw new FormatError(
      'Truncated',
      `${options.what ?? 'data'} ends early: got ${out.byteLength} of ${length} bytes`,
      {
        offset,
        file: source.name,
        format: options.format,
      },
    );
  }
  return out;
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
  return source.readSync(offset, length);
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
