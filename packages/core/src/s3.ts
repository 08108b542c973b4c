import { AwsClient } from 'aws4fetch';
import type { ByteSource } from './bytes.js';
import { SourceError } from './errors.js';
import { RequestPool, remoteReads } from './coalesce.js';
import { HttpSource, type HttpSourceOptions } from './http.js';
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
   * Whether any object's key starts with `prefix`: one listing request. No `max-keys`:
   * some S3-compatible servers fail on it, and one page costs the same round trip.
   */
  async hasPrefix(bucket: string, prefix: string): Promise<boolean> {
    const response = await this.fetch(this.httpUrl({ bucket, key: '' }, { 'list-type': '2', prefix }));
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      return false;
    }
    return xmlAll(await response.text(), 'Contents').length > 0;
  }

  /**
   * Every key under a prefix with ListObjectsV2, following continuation tokens up to
   * `maxKeys` keys, so a listing can neither loop nor grow without bound.
   */
  async list(
    bucket: string,
    prefix: string,
    maxKeys = 1_000_000,
  ): Promise<Array<{ key: string; size: number }>> {
    const out: Array<{ key: string; size: number }> = [];
    let token: string | undefined;
    const where = `s3://${bucket}/${prefix}`;
    do {
      const query: Record<string, string> = { 'list-type': '2', prefix };
      if (token) query['continuation-token'] = token;
      let response: Response;
      try {
        response = await this.fetch(this.httpUrl({ bucket, key: '' }, query));
      } catch (cause) {
        throw new SourceError(`cannot list ${where}: ${String((cause as Error)?.message ?? cause)}`, where, {
          cause,
        });
      }
      if (!response.ok)
        throw new SourceError(`cannot list ${where}: HTTP ${response.status} ${response.statusText}`, where);
      const xml = await response.text();
      for (const entry of xmlAll(xml, 'Contents')) {
        const key = xmlText(entry, 'Key');
        if (key !== undefined) out.push({ key, size: Number(xmlText(entry, 'Size') ?? 0) });
      }
      const next = xmlText(xml, 'IsTruncated') === 'true' ? xmlText(xml, 'NextContinuationToken') : undefined;
      if (next !== undefined && next === token)
        throw new SourceError(`cannot list ${where}: the server repeated its continuation token`, where);
      token = next;
      if (out.length > maxKeys)
        throw new SourceError(`cannot list ${where}: more than ${maxKeys} keys under the prefix`, where);
    } while (token);
    return out;
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
