import { type ByteSource, copyInto, type ReadRequest } from './bytes.js';
import { SourceError } from './errors.js';
import { exchange, type Fail, type RangeRequest, type RequestPolicy, requestPolicy } from './http-request.js';

export interface HttpSourceOptions {
  /** Extra request headers (auth). */
  headers?: Record<string, string>;
  /** Cache granularity. Small reads are rounded out to whole blocks. */
  blockSize?: number;
  /** How many blocks the LRU cache keeps. */
  cacheBlocks?: number;
  /**
   * A server that ignores Range answers 200 with the whole body. Files up to this size (default
   * 64 MiB) are then kept in memory, read once; larger ones are refused with a SourceError
   * (`range-ignored`), since every read would download the file again.
   */
  maxWholeBody?: number;
  /** Milliseconds without a byte before a request fails with SourceError `timeout` (default 30 000). */
  idleTimeout?: number;
  /**
   * Milliseconds one request may take in all, retries included, before it fails with SourceError
   * `timeout` however steadily bytes arrive (default 120 000; `Infinity` for none). Raise it to
   * read ranges of hundreds of MB over a slow link in one request.
   */
  deadline?: number;
  /** Retries for 429/5xx replies and dropped connections (default 3), with backoff and jitter. */
  retries?: number;
  /** First retry delay in ms (default 250), doubled per retry, at most 5 s; Retry-After is honoured. */
  retryDelay?: number;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** Whether a path is an http(s) URL (what HttpSource and HttpDirectory open). */
export function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** Bytes asked for by `open`: the size (Content-Range) and the first structures in one request. */
const PROBE = 64 * 1024;

/** The file's version, sent back as If-Range so a changed file answers 200 instead of mixing versions. */
interface Validator {
  etag?: string;
  lastModified?: string;
}

/**
 * A resource read with HTTP range requests: learns the size from Content-Range, caches small
 * blocks, honours AbortSignal. Every failure is a SourceError naming the URL, the range and the
 * status; requests time out when idle, retry 429/5xx and dropped connections, and carry
 * If-Range, so a file that changes between requests is an error, never a mix of two versions.
 */
export class HttpSource implements ByteSource {
  /** Payload bytes received over the network, for "fetched N of M bytes" counters. */
  bytesFetched = 0;
  requests = 0;
  private cache = new Map<number, Uint8Array>();
  private whole: Uint8Array | undefined;
  private readonly blockSize: number;
  private readonly cacheBlocks: number;
  private readonly sendIfRange: boolean;

  private constructor(
    readonly url: string,
    readonly size: number,
    private readonly policy: RequestPolicy,
    private readonly validator: Validator,
    options: HttpSourceOptions,
  ) {
    this.blockSize = options.blockSize ?? 64 * 1024;
    this.cacheBlocks = options.cacheBlocks ?? 64;
    this.sendIfRange = !crossOriginInBrowser(url);
  }

  get name(): string {
    return this.url;
  }

  /** Opens a URL: one small ranged request learns the size (and whether ranges work). */
  static async open(url: string, options: HttpSourceOptions = {}): Promise<HttpSource> {
    const policy: RequestPolicy = requestPolicy(options);
    const maxWholeBody = options.maxWholeBody ?? 64 * 1024 * 1024;
    const counters = { bytesFetched: 0, requests: 0 };
    const request: RangeRequest = { url, range: `bytes=0-${PROBE - 1}`, counters };
    const opened = await exchange(policy, request, async (response, body, fail) => {
      if (response.status === 206) {
        const range = parseContentRange(response.headers.get('content-range'));
        if (
          !range ||
          range.total === undefined ||
          range.start !== 0 ||
          range.end >= PROBE ||
          range.end >= range.total
        )
          throw badRange(response, fail);
        return {
          size: range.total,
          head: await body.exact(range.end + 1),
          whole: false,
          validator: validatorOf(response),
        };
      }
      if (response.status === 200) {
        const declared = contentLength(response);
        const tooLarge = () =>
          fail(
            'range-ignored',
            `the server ignores Range requests and the file is ${declared === undefined ? 'larger than' : `${declared} bytes, over`} the ${maxWholeBody} bytes (maxWholeBody) binscope keeps in memory for such servers`,
            200,
          );
        if (declared !== undefined && declared > maxWholeBody) {
          await body.discard();
          throw tooLarge();
        }
        const bytes = await body.upTo(maxWholeBody, tooLarge);
        if (declared !== undefined && bytes.byteLength !== declared)
          throw fail('dropped', `connection closed after ${bytes.byteLength} of ${declared} bytes`, 200);
        return { size: bytes.byteLength, head: bytes, whole: true, validator: {} };
      }
      if (response.status === 416) {
        // The one satisfiable reading of 416 to bytes=0-…: an empty file.
        if (parseContentRange(response.headers.get('content-range'))?.total === 0)
          return { size: 0, head: new Uint8Array(0), whole: true, validator: {} };
        await body.discard();
        throw fail('http', 'HTTP 416 Range Not Satisfiable for the first bytes of the file', 416);
      }
      await body.discard();
      throw fail('http', `HTTP ${response.status} ${response.statusText}`.trim(), response.status);
    });
    const source = new HttpSource(url, opened.size, policy, opened.validator, options);
    source.requests = counters.requests;
    source.bytesFetched = counters.bytesFetched;
    if (opened.whole) source.whole = opened.head;
    else source.storeBlocks(0, opened.head);
    return source;
  }

  async read(offset: number, length: number, request?: ReadRequest): Promise<Uint8Array> {
    return copyInto(await this.readView(offset, length, request?.signal), request?.into);
  }

  private async readView(
    offset: number,
    length: number,
    signal: AbortSignal | undefined,
  ): Promise<Uint8Array> {
    const start = Math.min(Math.max(0, offset), this.size);
    const end = Math.min(this.size, start + Math.max(0, length));
    if (signal?.aborted) throw new SourceError(`${this.url}: read aborted`, this.url, { reason: 'aborted' });
    if (end <= start) return new Uint8Array(0);
    if (this.whole) return this.whole.subarray(start, end);

    const firstBlock = Math.floor(start / this.blockSize);
    const lastBlock = Math.floor((end - 1) / this.blockSize);
    // Large reads bypass the cache: caching them would evict the small structures that matter.
    if (lastBlock - firstBlock + 1 > this.cacheBlocks / 2) return this.fetchRange(start, end, signal);

    // This read keeps its own references: concurrent reads may evict blocks from the cache
    // between this read's check and its copy.
    const held = new Map<number, Uint8Array>();
    const missing: number[] = [];
    for (let b = firstBlock; b <= lastBlock; b++) {
      const cached = this.cache.get(b);
      if (cached) held.set(b, cached);
      else missing.push(b);
    }
    // One request for every missing block, the cached ones between them fetched again: a
    // round trip costs more than the few blocks (at most half the cache) it could skip.
    if (missing.length > 0) {
      const first = missing[0];
      const runStart = first * this.blockSize;
      const runEnd = Math.min(this.size, (missing[missing.length - 1] + 1) * this.blockSize);
      const bytes = await this.fetchRange(runStart, runEnd, signal);
      for (const b of missing) {
        const from = (b - first) * this.blockSize;
        held.set(b, bytes.subarray(from, Math.min(bytes.byteLength, from + this.blockSize)));
      }
      this.storeBlocks(runStart, bytes);
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

  private fetchRange(start: number, end: number, signal?: AbortSignal): Promise<Uint8Array> {
    // If-Range with a strong ETag: a changed file answers 200 (the new version) instead of a
    // range of it. Not cross-origin in a browser: If-Range is no CORS-safelisted header, and the
    // preflight it forces fails on servers that allow only Range. The validators are compared
    // on every reply anyway, so a change is caught without it too.
    const ifRange = this.sendIfRange ? this.validator.etag : undefined;
    const request: RangeRequest = {
      url: this.url,
      range: `bytes=${start}-${end - 1}`,
      headers: ifRange ? { 'If-Range': ifRange } : undefined,
      signal,
      counters: this,
    };
    return exchange(this.policy, request, async (response, body, fail) => {
      if (response.status === 206) {
        const range = parseContentRange(response.headers.get('content-range'));
        if (!range || range.start !== start || range.end !== end - 1) throw badRange(response, fail);
        if (this.changed(response) || (range.total !== undefined && range.total !== this.size))
          throw changedError(fail, 206);
        return body.exact(end - start);
      }
      await body.discard();
      if (response.status === 200) {
        // After If-Range, a 200 means the ETag no longer matches (unless the reply repeats it).
        const changed = ifRange ? validatorOf(response).etag !== ifRange : this.changed(response);
        if (changed) throw changedError(fail, 200);
        throw fail(
          'range-ignored',
          'the server answered a range request with the whole file (it stopped honouring Range)',
          200,
        );
      }
      if (response.status === 416)
        throw fail('http', `HTTP 416 Range Not Satisfiable: the file is no longer ${this.size} bytes?`, 416);
      throw fail('http', `HTTP ${response.status} ${response.statusText}`.trim(), response.status);
    });
  }

  /** Whether a reply carries a validator that differs from the one the file was opened with. */
  private changed(response: Response): boolean {
    const { etag, lastModified } = validatorOf(response);
    return (
      (etag !== undefined && this.validator.etag !== undefined && etag !== this.validator.etag) ||
      (lastModified !== undefined &&
        this.validator.lastModified !== undefined &&
        lastModified !== this.validator.lastModified)
    );
  }
}

function crossOriginInBrowser(url: string): boolean {
  const here = (globalThis as { location?: { href?: string; origin?: string } }).location;
  if (typeof here?.href !== 'string') return false;
  try {
    return new URL(url, here.href).origin !== here.origin;
  } catch {
    return true;
  }
}

function changedError(fail: Fail, status: number): SourceError {
  return fail(
    'changed',
    'the file changed on the server since it was opened (ETag/Last-Modified differ)',
    status,
  );
}

function badRange(response: Response, fail: Fail): SourceError {
  const header = response.headers.get('content-range');
  return fail(
    'bad-response',
    header === null
      ? '206 Partial Content without a Content-Range header'
      : `206 Partial Content with Content-Range "${header}", not the range asked for`,
    206,
  );
}

/** A strong ETag (weak ones cannot go in If-Range) and Last-Modified. */
function validatorOf(response: Response): Validator {
  const etag = response.headers.get('etag') ?? undefined;
  return {
    etag: etag && !etag.startsWith('W/') ? etag : undefined,
    lastModified: response.headers.get('last-modified') ?? undefined,
  };
}

function contentLength(response: Response): number | undefined {
  const header = response.headers.get('content-length');
  const value = header === null ? Number.NaN : Number(header);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Content-Range: "bytes a-b/total" (total may be "*"), or "bytes (star)/total" (start and end then -1). */
function parseContentRange(
  header: string | null,
): { start: number; end: number; total: number | undefined } | undefined {
  const match = header?.match(/^\s*bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+|\*)\s*$/i);
  if (!match) return undefined;
  const total = match[3] === '*' ? undefined : Number(match[3]);
  if (match[1] === undefined) return { start: -1, end: -1, total };
  return { start: Number(match[1]), end: Number(match[2]), total };
}
