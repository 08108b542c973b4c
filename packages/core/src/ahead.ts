import { type ByteSource, checkRange } from './bytes.js';
import { FormatError } from './errors.js';

/** Sources that fill a caller's buffer without blocking this thread (Node files: the thread pool). */
export interface AsyncPositionalSource extends ByteSource {
  readAtAsync(target: Uint8Array, targetOffset: number, length: number, position: number): Promise<number>;
}

export function canReadAhead(source: ByteSource): source is AsyncPositionalSource {
  return typeof (source as Partial<AsyncPositionalSource>).readAtAsync === 'function';
}

export interface ReadAheadOptions {
  /** Where reading stops (default: the source's size). */
  end?: number;
  /** Bytes per read (default 4 MiB). */
  chunk?: number;
  /**
   * Alternate between two buffers instead of allocating one per chunk. The caller must be
   * done with a window's bytes before `prefetch` reuses its buffer for the chunk after next.
   */
  recycle?: boolean;
  /** Format id for errors. */
  format?: string;
}

/** A record that straddles two chunks is copied in front of the second; longer ones are read anew. */
const CARRY = 256 << 10;

/**
 * Forward windows over a source, each next chunk read while the caller decodes the current
 * one. A sequential pass then costs about the larger of reading and decoding, not their sum.
 * Records may straddle chunks: `advance(lo, hi)` returns a window that holds [lo, hi)
 * contiguously, carrying the current window's tail into the next buffer.
 */
export class ReadAhead {
  /** The current window: file offsets [lo, hi) are `bytes[0 .. hi - lo)`. */
  bytes: Uint8Array = new Uint8Array(0);
  lo = 0;
  hi = 0;
  private readonly end: number;
  private readonly chunk: number;
  private readonly recycle: boolean;
  /** Room in front of each chunk for the straddling record carried over from the last one. */
  private readonly carryRoom: number;
  /** The two buffers a recycling reader alternates between (each carry room + chunk). */
  private readonly pair: Uint8Array[] = [];
  /** The whole buffer behind `bytes`. */
  private holder: Uint8Array | undefined;
  private next: { buffer: Uint8Array; at: number; read: Promise<number> } | undefined;

  constructor(
    private readonly source: AsyncPositionalSource,
    private readonly options: ReadAheadOptions = {},
  ) {
    this.end = Math.min(source.size, options.end ?? source.size);
    this.chunk = Math.max(1, options.chunk ?? 4 << 20);
    this.recycle = options.recycle === true;
    this.carryRoom = Math.min(CARRY, this.chunk);
  }

  /**
   * Makes [lo, hi) the start of the window (`lo` at or after the current window's start).
   * Uses the chunk read ahead when it continues the current window; otherwise reads directly.
   */
  async advance(lo: number, hi: number): Promise<void> {
    const next = this.next;
    this.next = undefined;
    if (next !== undefined) {
      const carry = this.hi - lo;
      const usable = next.at === this.hi && lo >= this.lo && carry >= 0 && carry <= this.carryRoom;
      if (usable) {
        const n = await next.read;
        if (hi <= this.hi + n) {
          next.buffer.set(this.bytes.subarray(lo - this.lo), this.carryRoom - carry);
          this.show(next.buffer, this.carryRoom - carry, this.carryRoom + n, lo);
          return;
        }
      } else {
        await next.read.catch(() => undefined);
      }
    }
    // Lengths come from the file: check them before sizing a buffer by them.
    checkRange(this.source, lo, hi - lo, { format: this.options.format });
    const length = Math.max(hi - lo, Math.min(this.chunk, this.end - lo));
    const buffer = this.take(this.carryRoom + length);
    const n = await this.source.readAtAsync(buffer, this.carryRoom, length, lo);
    if (lo + n < hi) {
      throw new FormatError('Truncated', `data ends early: got ${n} of ${hi - lo} bytes`, {
        offset: lo,
        file: this.source.name,
        format: this.options.format,
      });
    }
    this.show(buffer, this.carryRoom, this.carryRoom + n, lo);
  }

  /** Starts reading the chunk after the current window. With `recycle`, only once the previous window's bytes are no longer needed. */
  prefetch(): void {
    if (this.next !== undefined || this.hi >= this.end) return;
    const length = Math.min(this.chunk, this.end - this.hi);
    const buffer = this.take(this.carryRoom + length);
    const read = this.source.readAtAsync(buffer, this.carryRoom, length, this.hi);
    // Awaited by advance; a reader abandoned mid-way must not leave an unhandled rejection.
    read.catch(() => undefined);
    this.next = { buffer, at: this.hi, read };
  }

  /** Waits for a read still in flight (errors ignored): call when abandoning the pass. */
  async settle(): Promise<void> {
    const next = this.next;
    this.next = undefined;
    await next?.read.catch(() => undefined);
  }

  private show(buffer: Uint8Array, from: number, to: number, lo: number): void {
    this.holder = buffer;
    this.bytes = buffer.subarray(from, to);
    this.lo = lo;
    this.hi = lo + (to - from);
  }

  /** A buffer of at least `size` bytes that neither the current window nor a read in flight uses. */
  private take(size: number): Uint8Array {
    if (!this.recycle) return new Uint8Array(size);
    const busy = this.next?.buffer;
    for (let i = 0; i < 2; i++) {
      const candidate = this.pair[i];
      if (candidate === undefined || candidate === this.holder || candidate === busy) continue;
      if (candidate.byteLength >= size) return candidate;
      this.pair[i] = new Uint8Array(size);
      return this.pair[i];
    }
    const fresh = new Uint8Array(Math.max(size, this.carryRoom + this.chunk));
    if (this.pair.length < 2) this.pair.push(fresh);
    return fresh;
  }
}
