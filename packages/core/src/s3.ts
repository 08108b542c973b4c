import { AwsClient } from 'aws4fetch';
import type { ByteSource } from './bytes.js';
import { SourceError } from './errors.js';
import { RequestPool, remoteReads } from './coalesce.js';
import { HttpSource, type HttpSourceOptions } from './http.js';
import { exchange, type RequestOptions, requestPolicy } from './http-request.js';
import { ListingGuard, type ListingLimits, MAX_LISTING_PAGE } from './listing.js';
import { describeS3Error, xmlAll, xmlText } from './s3-xml.js';

/**
 * How to reach S3 (or an S3-compatible store). Browser-safe: the caller supplies the values;
 * `@binscope/core/node` resolves them from the standard AWS environment and files.
 */
export interface S3Settings {
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** Signing region; `us-east-1` when unset. */
  region?: string;
  /** An S3-compatible endpoint (`http://127.0.0.1:9000`); AWS's regional endpoint when unset. */
  endpoint?: string;
  /** Address buckets as `endpoint/bucket/key` instead of `bucket.endpoint/key`. */
  forcePathStyle?: boolean;
  /** Requests in flight at most, over every object this client opens (default 8). */
  concurrency?: number;
  fetch?: typeof fetch;
}

/** How a listing is made: the requests' timeouts and retries (as for objects) and its bounds. */
export type S3ListOptions = Omit<RequestOptions, 'fetch'> & ListingLimits;

export interface S3Location {
  bucket: string;
  key: string;
}

/** `s3://bucket/some/key` → { bucket, key }. The key may be empty or end in `/` (a prefix). */
export function parseS3Url(url: string): S3Location {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (!match?.[1]) throw new SourceError(`${url}: not an s3://bucket/key URL`, url);
  return { bucket: match[1], key: match[2] ?? '' };
}

export function isS3Url(url: string): boolean {
  return url.startsWith('s3://');
}

export function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

/** The largest error body read to name the S3 error code; the rest is discarded. */
const MAX_ERROR_BODY = 16 * 1024;

/**
 * Signs requests to S3 with SigV4 (aws4fetch) and maps `s3://` URLs to the endpoint. Failed
 * requests keep their status but carry S3's error code in the status text, so every source
 * built on HttpSource reports "HTTP 404 NoSuchKey: …" under the s3:// name the user gave.
 */
export class S3Client {
  /** Requests sent and payload bytes received, for request/byte counters. */
  requests = 0;
  bytesReceived = 0;
  /** Every object this client opens reads in this pool: its bound holds across files. */
  readonly pool: RequestPool;
  private readonly signer: AwsClient | undefined;
  private readonly fetchFn: typeof fetch;
  private readonly endpoint: URL;

  constructor(readonly settings: S3Settings = {}) {
    this.fetchFn = settings.fetch ?? globalThis.fetch.bind(globalThis);
    this.pool = new RequestPool(settings.concurrency ?? 8);
    const region = settings.region || 'us-east-1';
    this.endpoint = new URL(settings.endpoint || `https://s3.${region}.amazonaws.com`);
    // Without keys, requests go unsigned: public buckets and presigned-style anonymous access.
    this.signer =
      settings.accessKeyId && settings.secretAccessKey
        ? new AwsClient({
            accessKeyId: settings.accessKeyId,
            secretAccessKey: settings.secretAccessKey,
            sessionToken: settings.sessionToken,
            region,
            service: 's3',
            // Retries belong to HttpSource, which knows which failures are worth repeating.
            retries: 0,
          })
        : undefined;
  }

  /** The HTTPS address of an object (or of a bucket, with an empty key). */
  httpUrl({ bucket, key }: S3Location, query?: Record<string, string>): string {
    const url = new URL(this.endpoint.href);
    const base = url.pathname.replace(/\/+$/, '');
    if (this.settings.forcePathStyle) url.pathname = `${base}/${bucket}/${encodeKey(key)}`;
    else {
      url.hostname = `${bucket}.${url.hostname}`;
      url.pathname = `${base}/${encodeKey(key)}`;
    }
    if (query) for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url.href;
  }

  /** fetch() for `s3://` (or endpoint https) URLs: signed, counted, errors named by S3 code. */
  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const raw = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const url = isS3Url(raw) ? this.httpUrl(parseS3Url(raw)) : raw;
    this.requests++;
    const response = this.signer ? await this.signer.fetch(url, init) : await this.fetchFn(url, init);
    const length = Number(response.headers.get('content-length') ?? 0);
    if (Number.isFinite(length)) this.bytesReceived += length;
    if (response.status < 400 || response.status === 416) return response;
    const text = await readTextPrefix(response, MAX_ERROR_BODY);
    const reason = (describeS3Error(text) ?? response.statusText).replace(/[^\t\x20-\x7e]/g, ' ');
    return new Response(null, { status: response.status, statusText: reason, headers: response.headers });
  };

  /**
   * Opens one object as a byte source named by its s3:// URL: reads issued together are merged
   * and bounded by the client's pool, forward passes read ahead.
   */
  async open(url: string, options: Omit<HttpSourceOptions, 'fetch'> = {}): Promise<ByteSource> {
    parseS3Url(url);
    const source = await this.pool.run(() =>
      HttpSource.open(url, { ...options, fetch: this.fetch as typeof fetch }),
    );
    return remoteReads(source, this.pool);
  }

  /**
   * Whether any object's key starts with `prefix`: one listing request, with the timeouts
   * and retries of any other. An error status is "no" (the caller reports its own error);
   * a server that stalls or drops is a SourceError. No `max-keys`: some S3-compatible servers
   * fail on it, and one page costs the same round trip.
   */
  async hasPrefix(bucket: string, prefix: string, options: S3ListOptions = {}): Promise<boolean> {
    const guard = new ListingGuard(`s3://${bucket}/${prefix}`, options);
    const page = await this.listPage(bucket, prefix, undefined, guard, options, 'no');
    return page !== undefined && xmlAll(page, 'Contents').length > 0;
  }

  /**
   * Every key under a prefix with ListObjectsV2, following continuation tokens. Each page is
   * a request like an object read (idle timeout, deadline, retries of 5xx and SlowDown); a
   * token given twice, a truncated page without a token, and a listing past its limits
   * (`maxPages`, `maxEntries`, `maxNamesLength`; a number is `maxEntries`) are SourceErrors,
   * so a listing neither loops, nor grows without bound, nor ends early in silence.
   */
  async list(
    bucket: string,
    prefix: string,
    limits: number | S3ListOptions = {},
  ): Promise<Array<{ key: string; size: number }>> {
    const options = typeof limits === 'number' ? { maxEntries: limits } : limits;
    const guard = new ListingGuard(`s3://${bucket}/${prefix}`, options);
    const out: Array<{ key: string; size: number }> = [];
    let token: string | undefined;
    do {
      const xml = (await this.listPage(bucket, prefix, token, guard, options, 'fail')) ?? '';
      for (const entry of xmlAll(xml, 'Contents')) {
        const key = xmlText(entry, 'Key');
        if (key === undefined) continue;
        guard.entry(key);
        out.push({ key, size: Number(xmlText(entry, 'Size') ?? 0) });
      }
      token = undefined;
      if (xmlText(xml, 'IsTruncated') === 'true') {
        token = xmlText(xml, 'NextContinuationToken');
        if (!token)
          throw guard.fail(
            'bad-response',
            'the page says the listing is truncated but gives no continuation token',
          );
        guard.follow(token);
      }
    } while (token);
    return out;
  }

  /** One ListObjectsV2 page as text; on an error status, a SourceError or (`onError: 'no'`) undefined. */
  private listPage(
    bucket: string,
    prefix: string,
    token: string | undefined,
    guard: ListingGuard,
    options: S3ListOptions,
    onError: 'fail' | 'no',
  ): Promise<string | undefined> {
    const query: Record<string, string> = { 'list-type': '2', prefix };
    if (token) query['continuation-token'] = token;
    const page = guard.page();
    const policy = requestPolicy({ ...options, fetch: this.fetch as typeof fetch });
    const request = {
      url: this.httpUrl({ bucket, key: '' }, query),
      name: guard.where,
      purpose: `listing page ${page}`,
      counters: { bytesFetched: 0, requests: 0 },
    };
    return exchange(policy, request, async (response, body, fail) => {
      if (!response.ok) {
        await body.discard();
        if (onError === 'no') return undefined;
        throw fail('http', `HTTP ${response.status} ${response.statusText}`.trim(), response.status);
      }
      const bytes = await body.upTo(MAX_LISTING_PAGE, () => guard.pageTooLarge());
      return new TextDecoder().decode(bytes);
    });
  }
}

async function readTextPrefix(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (total < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
  }
  await reader.cancel().catch(() => {});
  const bytes = new Uint8Array(Math.min(total, limit));
  let pos = 0;
  for (const chunk of chunks) {
    const take = Math.min(chunk.byteLength, bytes.byteLength - pos);
    bytes.set(chunk.subarray(0, take), pos);
    pos += take;
  }
  return new TextDecoder().decode(bytes);
}
