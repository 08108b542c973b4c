import type { ByteSource, ReadOptions } from './bytes.js';
import { SourceError } from './errors.js';

export interface HttpSourceOptions {
  /** Extra request headers (auth). */
  headers?: Record<string, string>;
  /** Cache granularity. Small reads are rounded out to whole blocks. */
  blockSize?: number;
  /** How many blocks the LRU cache keeps. */
  cacheBlocks?: number;
  /**
   * A server that ignores Range and answers 200 sends the whole body. Bodies up to this size
   * are kept in memory so later reads are free; larger ones are re-streamed per read.
   */
  maxWholeBody?: number;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/**
 * A resource read with HTTP range requests. Survives servers that answer 200 instead of
 * 206, reads the size from Content-Range, caches small blocks, and honours AbortSignal.
 */
export class HttpSource implements ByteSource {
  /** Payload bytes received over the network, for "fetched N of M bytes" counters. */
  bytesFetched = 0;
  requests = 0;
  private cache = new Map<number, Uint8Array>();
  private whole: Uint8Array | undefined;
  private rangesUnsupported = false;
  private readonly blockSize: number;
  private readonly cacheBlocks: number;
  private readonly maxWholeBody: number;
  private readonly fetchFn: typeof fetch;

  private constructor(
    readonly url: string,
    readonly size: number,
    private readonly options: HttpSourceOptions,
  ) {
    this.blockSize = options.blockSize ?? 64 * 1024;
    this.cacheBlocks = options.cacheBlocks ?? 64;
    this.maxWholeBody = options.maxWholeBody ?? 64 * 1024 * 1024;
    this.fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  get name(): string {
    return this.url;
  }

  /** Opens a URL: one small ranged request learns the size (and whether ranges work). */
  static async open(url: string, options: HttpSourceOptions = {}): Promise<HttpSource> {
    const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
    const probeLength = 64 * 1024;
    const response = await fetchFn(url, {
      headers: { ...options.headers, Range: `bytes=0-${probeLength - 1}` },
      signal: options.signal,
    }).catch((cause) => {
      throw new SourceError(`cannot fetch ${url}: ${String(cause?.message ?? cause)}`, url, { cause });
    });
    if (response.status === 206) {
      const total = parseContentRangeTotal(response.headers.get('content-range'));
      const body = new Uint8Array(await response.arrayBuffer());
      const size = total ?? body.byteLength;
      const source = new HttpSource(url, size, options);
      source.requests = 1;
      source.bytesFetched = body.byteLength;
      source.storeBlocks(0, body);
      return source;
    }
    if (response.status === 200) {
      const lengthHeader = response.headers.get('content-length');
      const declared = lengthHeader === null ? undefined : Number(lengthHeader);
      const source = new HttpSource(url, declared ?? 0, options);
      source.requests = 1;
      source.rangesUnsupported = true;
      if (declared === undefined || declared <= source.maxWholeBody) {
        const body = new Uint8Array(await response.arrayBuffer());
        source.bytesFetched = body.byteLength;
        source.whole = body;
        (source as { size: number }).size = body.byteLength;
      } else {
        // Only the head is needed now; later reads re-stream up to what they need.
        const head = await readStreamPrefix(response, probeLength);
        source.bytesFetched = head.byteLength;
        source.storeBlocks(
          0,
          head.subarray(0, Math.floor(head.byteLength / source.blockSize) * source.blockSize),
        );
      }
      return source;
    }
    if (response.status === 416) return new HttpSource(url, 0, options);
    throw new SourceError(`cannot fetch ${url}: HTTP ${response.status} ${response.statusText}`, url);
  }

  async read(offset: number, length: number, options?: ReadOptions): Promise<Uint8Array> {
    options?.signal?.throwIfAborted();
    const start = Math.min(Math.max(0, offset), this.size);
    const end = Math.min(this.size, start + Math.max(0, length));
    if (end <= start) return new Uint8Array(0);
    if (this.whole) return this.whole.subarray(start, end);

    const firstBlock = Math.floor(start / this.blockSize);
    const lastBlock = Math.floor((end - 1) / this.blockSize);
    // Large reads bypass the cache: caching them would evict the small structures that matter.
    if (lastBlock - firstBlock + 1 > this.cacheBlocks / 2)
      return this.fetchRange(start, end, options?.signal);

    // This read keeps its own references: concurrent reads may evict blocks from the cache
    // between this read's check and its copy.
    const held = new Map<number, Uint8Array>();
    const missing: number[] = [];
    for (let b = firstBlock; b <= lastBlock; b++) {
      const cached = this.cache.get(b);
      if (cached) held.set(b, cached);
      else missing.push(b);
    }
    // One request per run of consecutive missing blocks.
    for (let i = 0; i < missing.length; ) {
      let j = i;
      while (j + 1 < missing.length && missing[j + 1] === missing[j] + 1) j++;
      const runStart = missing[i] * this.blockSize;
      const runEnd = Math.min(this.size, (missing[j] + 1) * this.blockSize);
      const bytes = await this.fetchRange(runStart, runEnd, options?.signal);
      for (let b = missing[i]; b <= missing[j]; b++) {
        const from = (b - missing[i]) * this.blockSize;
        held.set(b, bytes.subarray(from, Math.min(bytes.byteLength, from + this.blockSize)));
      }
      this.storeBlocks(runStart, bytes);
      i = j + 1;
    }
    const out = new Uint8Array(end - start);
    for (let b = firstBlock; b <= lastBlock; b++) {
      const block = held.get(b)!;
      this.touch(b, block);
      const blockStart = b * this.blockSize;
      const from = Math.max(start, blockStart);
      const to = Math.min(end, blockStart + block.byteLength);
      out.set(block.subarray(from - blockStart, to - blockStart), from - start);
    }
    return out;
  }

  private touch(index: number, block: Uint8Array): void {
    this.cache.delete(index);
    this.cache.set(index, block);
  }

  private storeBlocks(start: number, bytes: Uint8Array): void {
    for (let pos = 0; pos < bytes.byteLength; pos += this.blockSize) {
      const index = (start + pos) / this.blockSize;
      const block = bytes.slice(pos, Math.min(bytes.byteLength, pos + this.blockSize));
      // A partial block is only complete at the end of the resource.
      if (block.byteLength < this.blockSize && start + pos + block.byteLength < this.size) break;
      this.touch(index, block);
    }
    while (this.cache.size > this.cacheBlocks) {
      const oldest = this.cache.keys().next().value as number;
      this.cache.delete(oldest);
    }
  }

  private async fetchRange(start: number, end: number, signal?: AbortSignal): Promise<Uint8Array> {
    this.requests++;
    const headers: Record<string, string> = { ...this.options.headers };
    if (!this.rangesUnsupported) headers.Range = `bytes=${start}-${end - 1}`;
    let response: Response;
    try {
      response = await this.fetchFn(this.url, { headers, signal: signal ?? this.options.signal });
    } catch (cause) {
      throw new SourceError(
        `cannot fetch ${this.url}: ${String((cause as Error)?.message ?? cause)}`,
        this.url,
        {
          cause,
        },
      );
    }
    if (response.status === 206) {
      const body = new Uint8Array(await response.arrayBuffer());
      this.bytesFetched += body.byteLength;
      if (body.byteLength !== end - start) {
        throw new SourceError(
          `${this.url}: asked for ${end - start} bytes, server sent ${body.byteLength}`,
          this.url,
        );
      }
      return body;
    }
    if (response.status === 200) {
      // The server ignored Range: skip to the part we need, then stop the transfer.
      this.rangesUnsupported = true;
      const prefix = await readStreamPrefix(response, end);
      this.bytesFetched += prefix.byteLength;
      return prefix.slice(start, end);
    }
    throw new SourceError(
      `cannot fetch ${this.url}: HTTP ${response.status} ${response.statusText}`,
      this.url,
    );
  }
}

function parseContentRangeTotal(header: string | null): number | undefined {
  const match = header?.match(/\/(\d+)\s*$/);
  return match ? Number(match[1]) : undefined;
}

async function readStreamPrefix(response: Response, wanted: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(await response.arrayBuffer()).subarray(0, wanted);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (total < wanted) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
  }
  await reader.cancel().catch(() => {});
  const out = new Uint8Array(Math.min(total, wanted));
  let pos = 0;
  for (const chunk of chunks) {
    const take = Math.min(chunk.byteLength, out.byteLength - pos);
    out.set(chunk.subarray(0, take), pos);
    pos += take;
    if (pos >= out.byteLength) break;
  }
  return out;
}
