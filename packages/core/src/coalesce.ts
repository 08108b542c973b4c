import { type ByteSource, copyInto, type ReadRequest } from './bytes.js';
import { maxOf } from './collections.js';
import { SourceError } from './errors.js';
import { ForwardReadSource } from './forward.js';

/**
 * A bound on requests in flight. One pool can be shared by every source of one store (an
 * S3Client shares one among the objects it opens), so a reader that fans out over many
 * files still keeps at most `limit` requests open.
 */
export class RequestPool {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** The most requests that were ever in flight at once (for tests and the bench). */
  peak = 0;

  readonly limit: number;

  constructor(limit = 8) {
    this.limit = Math.max(1, Math.floor(limit));
  }

  /** Runs `task` when a slot is free. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    this.peak = Math.max(this.peak, this.active);
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

export interface CoalescingOptions {
  /** The pool reads run in (default: a pool of 8 for this source alone). */
  pool?: RequestPool;
  /** Reads this close (bytes between them) are fetched as one request (default 32 KiB). */
  gap?: number;
  /** A merged request spans at most this many bytes (default 8 MiB). */
  maxSpan?: number;
}

interface Pending {
  start: number;
  end: number;
  resolve: (bytes: Uint8Array) => void;
  reject: (error: unknown) => void;
  signal?: AbortSignal;
}

/** The next macrotask: reads issued together (a batch of samples) are all queued by then. */
const nextTask: (fn: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function'
    ? (fn) => (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(fn)
    : (fn) => setTimeout(fn, 0);

/**
 * Fewer round trips for reads issued together: reads are queued until the next macrotask,
 * then reads that overlap or lie within `gap` bytes of each other go out as one request of
 * the inner source, each caller getting its slice. Requests run in a bounded pool, so a batch
 * of a thousand reads never opens a thousand connections. A lone read costs one request, as
 * before; only its start waits for the current task to end.
 */
export class CoalescingSource implements ByteSource {
  /** Requests made of the inner source. */
  requests = 0;
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly pool: RequestPool;
  private readonly gap: number;
  private readonly maxSpan: number;

  constructor(
    readonly inner: ByteSource,
    options: CoalescingOptions = {},
  ) {
    this.pool = options.pool ?? new RequestPool();
    this.gap = Math.max(0, options.gap ?? 32 * 1024);
    this.maxSpan = Math.max(1, options.maxSpan ?? 8 * 1024 * 1024);
  }

  get size(): number {
    return this.inner.size;
  }

  get name(): string {
    return this.inner.name;
  }

  read(offset: number, length: number, request?: ReadRequest): Promise<Uint8Array> {
    const start = Math.min(Math.max(0, offset), this.size);
    const end = Math.min(this.size, start + Math.max(0, length));
    if (request?.signal?.aborted)
      return Promise.reject(new SourceError(`${this.name}: read aborted`, this.name, { reason: 'aborted' }));
    if (end <= start) return Promise.resolve(copyInto(new Uint8Array(0), request?.into));
    const into = request?.into;
    return new Promise((resolve, reject) => {
      const deliver = into ? (bytes: Uint8Array) => resolve(copyInto(bytes, into)) : resolve;
      this.queue.push({ start, end, resolve: deliver, reject, signal: request?.signal });
      if (!this.scheduled) {
        this.scheduled = true;
        nextTask(() => this.flush());
      }
    });
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }

  /** Groups the queued reads into spans and starts one pooled request per span. */
  private flush(): void {
    this.scheduled = false;
    const queued = this.queue.sort((a, b) => a.start - b.start);
    this.queue = [];
    let group: Pending[] = [];
    let groupEnd = -1;
    for (const read of queued) {
      const joins =
        group.length > 0 &&
        read.start <= groupEnd + this.gap &&
        Math.max(groupEnd, read.end) - group[0].start <= this.maxSpan;
      if (!joins && group.length > 0) {
        this.fetchSpan(group);
        group = [];
      }
      group.push(read);
      groupEnd = group.length === 1 ? read.end : Math.max(groupEnd, read.end);
    }
    if (group.length > 0) this.fetchSpan(group);
  }

  private fetchSpan(group: Pending[]): void {
    const start = group[0].start;
    const end = maxOf(group, (read) => read.end);
    // A caller's signal may cancel the request only when every read in it carries that signal
    // (one caller, or one pass whose reads share it).
    const signal = group.every((read) => read.signal === group[0].signal) ? group[0].signal : undefined;
    this.pool
      .run(() => {
        this.requests++;
        return Promise.resolve(this.inner.read(start, end - start, { signal }));
      })
      .then(
        (bytes) => {
          for (const read of group) {
            if (read.start - start + (read.end - read.start) > bytes.byteLength) {
              read.reject(
                new SourceError(
                  `${this.name}: asked for bytes ${start}-${end - 1}, got ${bytes.byteLength}`,
                  this.name,
                ),
              );
            } else read.resolve(bytes.subarray(read.start - start, read.end - start));
          }
        },
        (error) => {
          for (const read of group) read.reject(error);
        },
      );
  }
}

/** What HttpSource.open fetches and keeps: the head window every format parses first. */
const HEAD_WINDOW = 64 * 1024;

/**
 * How binscope reads a remote object: reads issued together are merged and run in `pool`,
 * and forward passes read ahead (ForwardReadSource over CoalescingSource over the HTTP source).
 * With `signal`, the source serves one pass (a validation) and aborting it cancels the windows
 * read ahead too (ForwardReadsOptions.signal): give each pass its own.
 */
export function remoteReads(
  source: ByteSource,
  pool: RequestPool,
  options: { signal?: AbortSignal } = {},
): ByteSource {
  return new ForwardReadSource(new CoalescingSource(source, { pool }), {
    headWindow: HEAD_WINDOW,
    signal: options.signal,
  });
}
