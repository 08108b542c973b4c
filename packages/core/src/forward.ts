import type { ByteSource, ReadOptions } from './bytes.js';

export interface ForwardReadsOptions {
  /** The first read-ahead window, and what a random read resets it to (default 64 KiB). */
  minWindow?: number;
  /** The window doubles on each forward read up to this (default 8 MiB). */
  maxWindow?: number;
  /**
   * Bytes at the start the inner source already holds (HttpSource keeps its opening probe):
   * reads inside them pass straight through, so parsing a header costs no read-ahead.
   */
  headWindow?: number;
}

/**
 * Read-ahead for remote sources. A pass that reads forward in small pieces (a tar header
 * walk, a record scan) costs one request per piece over a network; here each read that
 * continues forward from the last one fetches a window that doubles up to `maxWindow`, and
 * later reads inside it are served from memory. Reads elsewhere go straight through and
 * reset the window, so random access costs what it did.
 */
export class ForwardReadSource implements ByteSource {
  private window: { start: number; bytes: Uint8Array } | undefined;
  private lastEnd = -1;
  private grow: number;
  private readonly minWindow: number;
  private readonly maxWindow: number;
  private readonly headWindow: number;

  constructor(
    readonly inner: ByteSource,
    options: ForwardReadsOptions = {},
  ) {
    this.minWindow = options.minWindow ?? 64 * 1024;
    this.maxWindow = Math.max(this.minWindow, options.maxWindow ?? 8 * 1024 * 1024);
    this.grow = this.minWindow;
    this.headWindow = Math.max(0, options.headWindow ?? 0);
  }

  get size(): number {
    return this.inner.size;
  }

  get name(): string {
    return this.inner.name;
  }

  async read(offset: number, length: number, options?: ReadOptions): Promise<Uint8Array> {
    const start = Math.min(Math.max(0, offset), this.size);
    const end = Math.min(this.size, start + Math.max(0, length));
    const window = this.window;
    if (window && start >= window.start && end <= window.start + window.bytes.byteLength) {
      this.lastEnd = end;
      return window.bytes.subarray(start - window.start, end - window.start);
    }
    if (end <= this.headWindow) {
      this.lastEnd = end;
      return this.inner.read(start, end - start, options);
    }
    const forward = this.lastEnd >= 0 && start >= this.lastEnd && start - this.lastEnd <= this.grow;
    this.lastEnd = end;
    if (!forward) {
      this.grow = this.minWindow;
      return this.inner.read(start, end - start, options);
    }
    this.grow = Math.min(this.maxWindow, this.grow * 2);
    const bytes = await this.inner.read(start, Math.max(end - start, this.grow), options);
    this.window = { start, bytes };
    return bytes.subarray(0, end - start);
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}
