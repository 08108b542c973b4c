import { type ByteSource, checkRange } from './bytes.js';
import { FormatError } from './errors.js';

export interface ReadAheadOptions {
  /** Where reading stops (default: the source's size). */
  end?: number;
  /** Bytes per read (default 4 MiB). */
  chunk?: number;
  /**
   * Chunks read ahead of the current window (default 1). More keep the reading thread busy
   * when the caller's work per chunk is light; when it is heavy, reads in flight compete with
   * it for memory bandwidth and can slow the pass (MLDF measured both; see its README).
   */
  depth?: number;
  /**
   * Cycle through `depth + 1` buffers instead of allocating one per chunk. The caller must
   * be done with a window's bytes before calling `advance` again: the chunks read ahead
   * reuse the buffers of windows already passed.
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
 * contiguously, carrying the current window's tail into the next buffer. Reads are made with
 * `{ into, defer: true }`: a local file fills the buffer on the thread pool; any other source
 * answers as it always does (memory at once, HTTP when the bytes arrive).
 */
export class ReadAhead {
  /** The current window: file offsets [lo, hi) are `bytes[0 .. hi - lo)`. */
  bytes: Uint8Array = new Uint8Array(0);
  lo = 0;
  hi = 0;
  private readonly end: number;
  private readonly chunk: number;
  private readonly depth: number;
  private readonly recycle: boolean;
  /** Room in front of each chunk for the straddling record carried over from the last one. */
  private readonly carryRoom: number;
  /** The buffers a recycling reader cycles through (each carry room + chunk). */
  private readonly ring: Uint8Array[] = [];
  /** The whole buffer behind `bytes`. */
  private holder: Uint8Array | undefined;
  /** Chunks being read ahead, in file order, each starting where the one before ends. */
  private readonly queue: Array<{ buffer: Uint8Array; at: number; length: number; read: Promise<number> }> =
    [];

  constructor(
    private readonly source: ByteSource,
    private readonly options: ReadAheadOptions = {},
  ) {
    this.end = Math.min(source.size, options.end ?? source.size);
    this.chunk = Math.max(1, options.chunk ?? 4 << 20);
    this.depth = Math.max(1, Math.floor(options.depth ?? 1));
    this.recycle = options.recycle === true;
    this.carryRoom = Math.min(CARRY, this.chunk);
  }

  /**
   * Makes [lo, hi) the start of the window (`lo` at or after the current window's start).
   * Uses the chunk read ahead when it continues the current window; otherwise reads directly.
   */
  async advance(lo: number, hi: number): Promise<void> {
    const next = this.queue.shift();
    if (next !== undefined) {
      // The next window may also start past the current one, inside the chunk read ahead:
      // records with gaps between them (one field of many) skip bytes at chunk boundaries.
      const carry = Math.max(0, this.hi - lo);
      const usable =
        next.at === this.hi && lo >= this.lo && lo < next.at + next.length && carry <= this.carryRoom;
      if (usable) {
        const n = await next.read;
        if (hi <= this.hi + n) {
          if (carry > 0) next.buffer.set(this.bytes.subarray(lo - this.lo), this.carryRoom - carry);
          const from = this.carryRoom - carry + Math.max(0, lo - next.at);
          this.show(next.buffer, from, this.carryRoom + n, lo);
          return;
        }
      } else {
        await next.read.catch(() => undefined);
      }
      // Not a continuation (the window jumps, or the record outgrows the chunk): what is
      // still being read ahead is of no use.
      await this.settle();
    }
    // Lengths come from the file: check them before sizing a buffer by them.
    checkRange(this.source, lo, hi - lo, { format: this.options.format });
    const length = Math.max(hi - lo, Math.min(this.chunk, this.end - lo));
    const buffer = this.take(this.carryRoom + length);
    const n = await this.readChunk(buffer, length, lo);
    if (lo + n < hi) {
      throw new FormatError('Truncated', `data ends early: got ${n} of ${hi - lo} bytes`, {
        offset: lo,
        file: this.source.name,
        format: this.options.format,
      });
    }
    this.show(buffer, this.carryRoom, this.carryRoom + n, lo);
  }

  /**
   * Starts reading the chunks after the current window, up to `depth` of them. With
   * `recycle`, call it only once the windows before the current one are no longer needed.
   */
  prefetch(): void {
    for (;;) {
      const last = this.queue[this.queue.length - 1];
      const at = last === undefined ? this.hi : last.at + last.length;
      if (this.queue.length >= this.depth || at >= this.end) return;
      const length = Math.min(this.chunk, this.end - at);
      const buffer = this.take(this.carryRoom + length);
      const read = this.readChunk(buffer, length, at);
      // Awaited by advance; a reader abandoned mid-way must not leave an unhandled rejection.
      read.catch(() => undefined);
      this.queue.push({ buffer, at, length, read });
    }
  }

  /** Waits for the reads still in flight (errors ignored): call when abandoning the pass. */
  async settle(): Promise<void> {
    const pending = this.queue.splice(0);
    for (const entry of pending) await entry.read.catch(() => undefined);
  }

  /** Fills `buffer` after its carry room with `length` bytes at `at`; resolves to how many arrived. */
  private async readChunk(buffer: Uint8Array, length: number, at: number): Promise<number> {
    const into = buffer.subarray(this.carryRoom, this.carryRoom + length);
    const bytes = await this.source.read(at, length, { into, defer: true });
    // A source that ignored `into` still gets its bytes used.
    if (bytes.buffer !== into.buffer || bytes.byteOffset !== into.byteOffset) into.set(bytes);
    // A short read (the file ended early) leaves the rest of the buffer as it came from bytesToFill.
    if (bytes.byteLength < length) into.fill(0, bytes.byteLength);
    return bytes.byteLength;
  }

  private show(buffer: Uint8Array, from: number, to: number, lo: number): void {
    this.holder = buffer;
    this.bytes = buffer.subarray(from, to);
    this.lo = lo;
    this.hi = lo + (to - from);
  }

  /** A buffer of at least `size` bytes that neither the current window nor a read in flight uses. */
  private take(size: number): Uint8Array {
    if (!this.recycle) {
      const fresh = bytesToFill(size);
      // The carry room is read only where a record is carried in: the rest must not show old memory.
      fresh.fill(0, 0, this.carryRoom);
      return fresh;
    }
    for (let i = 0; i < this.ring.length; i++) {
      const candidate = this.ring[i];
      if (candidate === this.holder || this.queue.some((entry) => entry.buffer === candidate)) continue;
      if (candidate.byteLength >= size) return candidate;
      this.ring[i] = new Uint8Array(size);
      return this.ring[i];
    }
    const fresh = new Uint8Array(Math.max(size, this.carryRoom + this.chunk));
    if (this.ring.length <= this.depth) this.ring.push(fresh);
    return fresh;
  }
}

const NodeBuffer = (globalThis as { Buffer?: { allocUnsafeSlow(size: number): Uint8Array } }).Buffer;

/**
 * A buffer the caller fills completely: Node's uninitialised memory where Node is (a fresh
 * zeroed 4 MiB window cost a zero-fill pass, ~17 % of a fresh-values MLDF pass, that the read
 * then overwrites), a zeroed Uint8Array in a browser. Not pooled: `allocUnsafeSlow`.
 */
function bytesToFill(size: number): Uint8Array {
  if (NodeBuffer === undefined) return new Uint8Array(size);
  const buffer = NodeBuffer.allocUnsafeSlow(size);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, size);
}
