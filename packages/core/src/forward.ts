import { type ByteSource, copyInto, type ReadOptions, type ReadRequest } from './bytes.js';
import { SourceError } from './errors.js';

/** Each forward read takes a window this many times larger: few requests before a pass streams. */
const GROWTH = 4;

export interface ForwardReadsOptions {
  /** The first read-ahead window, and what a random read resets it to (default 64 KiB). */
  minWindow?: number;
  /** The window grows fourfold on each forward read up to this (default 8 MiB). */
  maxWindow?: number;
  /**
   * Bytes at the start the inner source already holds (HttpSource keeps its opening probe):
   * reads inside them pass straight through, so parsing a header costs no read-ahead.
   */
  headWindow?: number;
  /**
   * Once windows reach this size (default 512 KiB) and the caller has read past the middle of
   * one, the pass is taken to be sequential: the window after it is fetched while the caller
   * works on the rest of this one.
   */
  prefetchFrom?: number;
  /**
   * The pass this source serves (one validation): every read of the inner source carries it,
   * the windows fetched ahead too, so aborting it cancels them in flight; once it is aborted
   * no read is made and every read fails. Without it a window fetched ahead outlives the read
   * that started it.
   */
  signal?: AbortSignal;
}

/**
 * Read-ahead for remote sources. A pass that reads forward in small pieces (a tar header
 * walk, a record scan) costs one request per piece over a network; here each read that
 * continues forward from the last one fetches a window that grows fourfold up to `maxWindow`, and
 * later reads inside it are served from memory. Reads elsewhere go straight through and
 * reset the window, so random access costs what it did.
 */
export class ForwardReadSource implements ByteSource {
  private window: { start: number; bytes: Uint8Array } | undefined;
  /** The window after `window`, being fetched. */
  private next: { start: number; end: number; bytes: Promise<Uint8Array | undefined> } | undefined;
  private lastEnd = -1;
  private grow: number;
  /** Bytes the caller has read since the last random read: what a prefetch may risk. */
  private runBytes = 0;
  /** The largest read of the run: a window after it must hold the next such read whole. */
  private largestRead = 0;
  private readonly minWindow: number;
  private readonly maxWindow: number;
  private readonly headWindow: number;
  private readonly prefetchFrom: number;
  private readonly signal: AbortSignal | undefined;

  constructor(
    readonly inner: ByteSource,
    options: ForwardReadsOptions = {},
  ) {
    this.minWindow = options.minWindow ?? 64 * 1024;
    this.maxWindow = Math.max(this.minWindow, options.maxWindow ?? 8 * 1024 * 1024);
    this.grow = this.minWindow;
    this.headWindow = Math.max(0, options.headWindow ?? 0);
    this.prefetchFrom = options.prefetchFrom ?? 512 * 1024;
    this.signal = options.signal;
    // What was read for a pass that is over is of no use: let it go at once.
    this.signal?.addEventListener(
      'abort',
      () => {
        this.window = undefined;
        this.next = undefined;
      },
      { once: true },
    );
  }

  get size(): number {
    return this.inner.size;
  }

  get name(): string {
    return this.inner.name;
  }

  read(offset: number, length: number, request?: ReadRequest): Promise<Uint8Array> {
    const bytes = this.readView(offset, length, request);
    return request?.into ? bytes.then((b) => copyInto(b, request.into)) : bytes;
  }

  private async readView(offset: number, length: number, request?: ReadOptions): Promise<Uint8Array> {
    if (this.signal?.aborted)
      throw new SourceError(`${this.name}: read aborted`, this.name, { reason: 'aborted' });
    const options = { signal: both(request?.signal, this.signal) };
    const start = Math.min(Math.max(0, offset), this.size);
    const end = Math.min(this.size, start + Math.max(0, length));
    const window = this.window;
    if (window && start >= window.start && end <= window.start + window.bytes.byteLength) {
      this.lastEnd = end;
      this.runBytes += end - start;
      this.prefetch(end - start);
      return window.bytes.subarray(start - window.start, end - window.start);
    }
    if (end <= this.headWindow) {
      this.lastEnd = end;
      return this.inner.read(start, end - start, options);
    }
    const next = this.next;
    if (window && next && this.straddles(start, end, window, next)) {
      // Unaligned reads of a sequential pass end up here once per window: join the two.
      this.next = undefined;
      const bytes = await next.bytes;
      if (bytes && end - next.start <= bytes.byteLength) {
        const out = new Uint8Array(end - start);
        out.set(window.bytes.subarray(start - window.start));
        out.set(bytes.subarray(0, end - next.start), next.start - start);
        this.window = { start: next.start, bytes };
        this.lastEnd = end;
        this.runBytes += end - start;
        this.prefetch(end - start);
        return out;
      }
    }
    if (next && start >= next.start && end <= next.end) {
      this.next = undefined;
      const bytes = await next.bytes;
      if (bytes && end - next.start <= bytes.byteLength) {
        this.window = { start: next.start, bytes };
        this.lastEnd = end;
        this.runBytes += end - start;
        this.prefetch(end - start);
        return bytes.subarray(start - next.start, end - next.start);
      }
    }
    const forward = this.lastEnd >= 0 && start >= this.lastEnd && start - this.lastEnd <= this.grow;
    this.lastEnd = end;
    if (!forward) {
      this.grow = this.minWindow;
      this.next = undefined;
      // A random read may start a run.
      this.runBytes = end - start;
      this.largestRead = end - start;
      return this.inner.read(start, end - start, options);
    }
    this.grow = Math.min(this.maxWindow, this.grow * GROWTH);
    const bytes = await this.inner.read(start, Math.max(end - start, this.grow), options);
    this.window = { start, bytes };
    // A window fetched in flight for elsewhere (the read straddled two) would block the next.
    if (this.next && this.next.start !== start + bytes.byteLength) this.next = undefined;
    this.runBytes += end - start;
    this.prefetch(end - start);
    return bytes.subarray(0, end - start);
  }

  /** Whether [start, end) begins in the current window and ends in the one being fetched after it. */
  private straddles(
    start: number,
    end: number,
    window: { start: number; bytes: Uint8Array },
    next: { start: number; end: number },
  ): boolean {
    const windowEnd = window.start + window.bytes.byteLength;
    return (
      next.start === windowEnd &&
      start >= window.start &&
      start < windowEnd &&
      end > windowEnd &&
      end <= next.end
    );
  }

  /** In a sequential pass, starts fetching the window after the current one. */
  private prefetch(current: number): void {
    this.largestRead = Math.max(this.largestRead, current);
    const window = this.window;
    if (this.next || !window || window.bytes.byteLength < this.prefetchFrom || this.signal?.aborted) return;
    const start = window.start + window.bytes.byteLength;
    // Only a pass that has used half the window goes on: `head -n 10` stops well before.
    if (this.lastEnd < window.start + window.bytes.byteLength / 2) return;
    if (start >= this.size) return;
    const size = Math.max(Math.min(this.maxWindow, this.grow * GROWTH), 2 * this.largestRead);
    // Never risk more than the run had read before this read: `head -n 10` reading one 4 MiB
    // chunk is no pass, and what a run that stops wastes stays under half of what it read.
    if (this.runBytes - current < size) return;
    this.grow = size;
    const end = Math.min(this.size, start + size);
    // Not the caller's signal: the fetch outlives this read (the pass's does not). A failure
    // is left to the read that needs these bytes, which then asks again and gets the error itself.
    const signal = this.signal;
    const bytes = Promise.resolve()
      .then(() => this.inner.read(start, end - start, { signal }))
      .catch(() => undefined);
    this.next = { start, end, bytes };
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}

/** A signal that aborts when either does. */
function both(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a || a === b) return b;
  if (!b) return a;
  return AbortSignal.any([a, b]);
}
