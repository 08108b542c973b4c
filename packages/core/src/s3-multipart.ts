import { SourceError, type SourceErrorReason } from './errors.js';
import { parseS3Url, type S3Client } from './s3.js';
import { escapeXml, xmlAll, xmlText } from './s3-xml.js';

/**
 * The S3 requests a writer makes (PutObject, the multipart calls, DeleteObject, a probe of
 * the key), each retried on what is worth retrying and failing with a one-line SourceError
 * that names the s3:// URL and says what kind of failure it is (SourceError.reason).
 * Browser-safe: everything goes through S3Client.fetch, signed as reads are.
 */

export interface WriteRequestOptions {
  signal?: AbortSignal;
  /** Further attempts after a 5xx/429 reply or a dropped connection (default 3). */
  retries?: number;
  /** Milliseconds one attempt may take before it counts as dropped (default 300 s). */
  timeout?: number;
  /**
   * Send request bodies as a stream with their Content-Length. Node's fetch copies a byte
   * array body (a part's worth of garbage per request, freed only when the collector runs);
   * a stream is sent as is. Browsers cannot stream request bodies over HTTP/1.1: leave it off
   * there. `@binscope/core/node`'s outputs turn it on.
   */
  streamBodies?: boolean;
}

/** Codes that mean "these keys are wrong", not "these keys may not do this". */
const CREDENTIAL_CODES = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'TokenRefreshRequired',
  'InvalidSecurity',
  'MissingSecurityHeader',
]);
const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);
const MAX_BACKOFF = 5000;

/** S3Client.fetch puts "Code: Message" in the status text of a failed reply. */
function s3Code(response: Response): string {
  return /^([A-Za-z]+)(?::|$)/.exec(response.statusText)?.[1] ?? '';
}

/**
 * A failed reply as the typed error a person can act on. `url` is the s3:// URL the user
 * gave; `doing` says which step failed ("write", "complete the upload of", …).
 */
export function replyError(url: string, doing: string, response: Response): SourceError {
  const code = s3Code(response);
  const reply = `HTTP ${response.status} ${response.statusText}`.trim();
  let reason: SourceErrorReason = 'http';
  let what = reply;
  if (response.status === 401 || CREDENTIAL_CODES.has(code)) {
    reason = 'credentials';
    what = `the store rejected the credentials (${reply}); check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE`;
  } else if (code === 'NoSuchBucket') {
    reason = 'missing';
    what = `bucket "${parseS3Url(url).bucket}" does not exist (${reply})`;
  } else if (response.status === 403) {
    reason = 'denied';
    what = `the store refused the request (${reply}); the credentials lack permission or a bucket policy forbids it`;
  } else if (response.status === 412 || code === 'ConditionalRequestConflict') {
    reason = 'exists';
    what = `an object was written there meanwhile and replacing it was not asked for (${reply}); nothing was changed`;
  }
  return new SourceError(`cannot ${doing} ${url}: ${what}`, url, { reason, status: response.status });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

function aborted(url: string, doing: string): SourceError {
  return new SourceError(`cannot ${doing} ${url}: aborted`, url, { reason: 'aborted' });
}

/**
 * One request with retries. Resolves with any reply that is not worth retrying (the caller
 * decides what a 4xx means); rejects with a SourceError when the connection keeps failing
 * or the caller's signal fires.
 */
export async function sendWrite(
  client: S3Client,
  url: string,
  doing: string,
  init: {
    method: string;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    body?: Uint8Array | string;
  },
  options: WriteRequestOptions = {},
): Promise<Response> {
  const retries = options.retries ?? 3;
  const timeout = options.timeout ?? 300_000;
  const target = client.httpUrl(parseS3Url(url), init.query);
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted) throw aborted(url, doing);
    const controller = new AbortController();
    const stop = () => controller.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(stop, timeout);
    try {
      const response = await client.fetch(target, {
        ...requestBody(init, options),
        signal: controller.signal,
      });
      if (!RETRYABLE_STATUS.has(response.status) || attempt >= retries) return response;
      await response.body?.cancel().catch(() => {});
    } catch (cause) {
      if (options.signal?.aborted) throw aborted(url, doing);
      if (attempt >= retries) {
        const message = controller.signal.aborted
          ? `no reply within ${timeout / 1000} s`
          : `connection failed or dropped: ${(cause as Error)?.message ?? String(cause)}`;
        throw new SourceError(`cannot ${doing} ${url}: ${message}`, url, { reason: 'dropped', cause });
      }
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
    }
    // Full jitter over the upper half, so writers that failed together spread out.
    await sleep(Math.min(MAX_BACKOFF, 250 * 2 ** attempt) * (0.5 + Math.random() / 2), options.signal);
  }
}

/** The method, headers and body of one attempt (a stream is read once, so each attempt gets its own). */
function requestBody(
  init: { method: string; headers?: Record<string, string>; body?: Uint8Array | string },
  options: WriteRequestOptions,
): RequestInit & { duplex?: 'half' } {
  const { method, headers, body } = init;
  if (!(body instanceof Uint8Array) || !options.streamBodies)
    return { method, headers, body: body as BodyInit };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (body.byteLength > 0) controller.enqueue(body);
      controller.close();
    },
  });
  return {
    method,
    headers: { ...headers, 'Content-Length': String(body.byteLength) },
    body: stream as BodyInit,
    duplex: 'half',
  };
}

async function drain(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

function isConditionUnsupported(response: Response): boolean {
  return response.status === 501 || s3Code(response) === 'NotImplemented';
}

/**
 * Whether an object is at `url`, by a one-byte ranged GET (unlike HEAD, its error body says
 * whether a 404 is the key or the bucket, and a 403 the keys or a policy). `unknown` when the
 * credentials may write but not read.
 */
export async function probeObject(
  client: S3Client,
  url: string,
  options: WriteRequestOptions = {},
): Promise<'exists' | 'absent' | 'unknown'> {
  const response = await sendWrite(
    client,
    url,
    'write',
    { method: 'GET', headers: { Range: 'bytes=0-0' } },
    options,
  );
  await drain(response);
  if (response.ok || response.status === 416) return 'exists';
  if (response.status === 404 && s3Code(response) !== 'NoSuchBucket') return 'absent';
  const error = replyError(url, 'write', response);
  if (error.reason === 'denied') return 'unknown';
  throw error;
}

/**
 * PutObject; `ifNoneMatch` makes it a create that fails if the key exists (reason `exists`).
 * `unsupported`: the store refused that header (501 NotImplemented) and wrote nothing.
 */
export async function putObject(
  client: S3Client,
  url: string,
  body: Uint8Array,
  options: WriteRequestOptions & { ifNoneMatch?: boolean; contentType?: string } = {},
): Promise<'written' | 'unsupported'> {
  const headers: Record<string, string> = {
    'Content-Type': options.contentType ?? 'application/octet-stream',
  };
  if (options.ifNoneMatch) headers['If-None-Match'] = '*';
  const response = await sendWrite(client, url, 'write', { method: 'PUT', headers, body }, options);
  await drain(response);
  if (response.ok) return 'written';
  if (options.ifNoneMatch && isConditionUnsupported(response)) return 'unsupported';
  throw replyError(url, 'write', response);
}

export async function createMultipartUpload(
  client: S3Client,
  url: string,
  options: WriteRequestOptions & { contentType?: string } = {},
): Promise<string> {
  const response = await sendWrite(
    client,
    url,
    'write',
    {
      method: 'POST',
      query: { uploads: '' },
      headers: { 'Content-Type': options.contentType ?? 'application/octet-stream' },
    },
    options,
  );
  if (!response.ok) throw replyError(url, 'write', response);
  const uploadId = xmlText(await response.text(), 'UploadId');
  if (!uploadId)
    throw new SourceError(`cannot write ${url}: the store started an upload but gave no UploadId`, url, {
      reason: 'bad-response',
      status: response.status,
    });
  return uploadId;
}

/** UploadPart; returns the part's ETag for CompleteMultipartUpload. */
export async function uploadPart(
  client: S3Client,
  url: string,
  uploadId: string,
  partNumber: number,
  body: Uint8Array,
  options: WriteRequestOptions = {},
): Promise<string> {
  const response = await sendWrite(
    client,
    url,
    'write',
    { method: 'PUT', query: { partNumber: String(partNumber), uploadId }, body },
    options,
  );
  await drain(response);
  if (!response.ok) throw replyError(url, `upload part ${partNumber} of`, response);
  const etag = response.headers.get('etag');
  if (!etag)
    throw new SourceError(
      `cannot write ${url}: the store gave no ETag for part ${partNumber} (a browser needs the bucket's CORS to expose ETag)`,
      url,
      { reason: 'bad-response', status: response.status },
    );
  return etag;
}

export interface UploadedPart {
  partNumber: number;
  etag: string;
}

/**
 * CompleteMultipartUpload: the object appears now, whole. `unsupported`: the store refused
 * `If-None-Match` (501 NotImplemented) and did nothing. S3 may answer 200 and still
 * report an error in the body (it keeps the connection alive while it assembles parts).
 */
export async function completeMultipartUpload(
  client: S3Client,
  url: string,
  uploadId: string,
  parts: readonly UploadedPart[],
  options: WriteRequestOptions & { ifNoneMatch?: boolean } = {},
): Promise<'written' | 'unsupported'> {
  const body =
    '<CompleteMultipartUpload>' +
    parts
      .map((p) => `<Part><PartNumber>${p.partNumber}</PartNumber><ETag>${escapeXml(p.etag)}</ETag></Part>`)
      .join('') +
    '</CompleteMultipartUpload>';
  const headers: Record<string, string> = { 'Content-Type': 'application/xml' };
  if (options.ifNoneMatch) headers['If-None-Match'] = '*';
  const response = await sendWrite(
    client,
    url,
    'complete the upload of',
    { method: 'POST', query: { uploadId }, headers, body },
    options,
  );
  if (!response.ok) {
    await drain(response);
    if (options.ifNoneMatch && isConditionUnsupported(response)) return 'unsupported';
    throw replyError(url, 'complete the upload of', response);
  }
  const text = await response.text();
  const code = xmlText(text, 'Code');
  if (/<Error>/.test(text) && code) {
    const message = xmlText(text, 'Message');
    throw new SourceError(
      `cannot complete the upload of ${url}: the store reported ${code}${message ? `: ${message}` : ''}`,
      url,
      { reason: 'http', status: response.status },
    );
  }
  return 'written';
}

/** AbortMultipartUpload; `gone` when the store no longer knows the upload (done or aborted). */
export async function abortMultipartUpload(
  client: S3Client,
  url: string,
  uploadId: string,
  options: WriteRequestOptions = {},
): Promise<'aborted' | 'gone'> {
  const response = await sendWrite(
    client,
    url,
    'abort the upload of',
    { method: 'DELETE', query: { uploadId } },
    options,
  );
  await drain(response);
  if (response.ok) return 'aborted';
  if (response.status === 404 && s3Code(response) !== 'NoSuchBucket') return 'gone';
  throw replyError(url, `abort upload ${uploadId} of`, response);
}

export async function deleteObject(
  client: S3Client,
  url: string,
  options: WriteRequestOptions = {},
): Promise<void> {
  const response = await sendWrite(client, url, 'delete', { method: 'DELETE' }, options);
  await drain(response);
  if (response.ok || (response.status === 404 && s3Code(response) !== 'NoSuchBucket')) return;
  throw replyError(url, 'delete', response);
}

export interface UnfinishedUpload {
  /** s3://bucket/key */
  url: string;
  key: string;
  uploadId: string;
  /** When the store says the upload started (its clock). */
  initiated: Date;
}

/**
 * ListMultipartUploads under a prefix (every page), or undefined when the store does not
 * implement it. Bounded: at most `maxUploads` entries are read.
 */
export async function listMultipartUploads(
  client: S3Client,
  bucket: string,
  prefix: string,
  options: WriteRequestOptions & { maxUploads?: number } = {},
): Promise<UnfinishedUpload[] | undefined> {
  const where = `s3://${bucket}/${prefix}`;
  const out: UnfinishedUpload[] = [];
  let keyMarker: string | undefined;
  let idMarker: string | undefined;
  for (;;) {
    const query: Record<string, string> = { uploads: '', prefix };
    if (keyMarker !== undefined) query['key-marker'] = keyMarker;
    if (idMarker !== undefined) query['upload-id-marker'] = idMarker;
    const response = await sendWrite(
      client,
      `s3://${bucket}/`,
      'list the uploads under',
      { method: 'GET', query },
      options,
    );
    if (!response.ok) {
      await drain(response);
      if (isConditionUnsupported(response) || response.status === 405) return undefined;
      throw replyError(where, 'list the uploads under', response);
    }
    const xml = await response.text();
    for (const entry of xmlAll(xml, 'Upload')) {
      const key = xmlText(entry, 'Key');
      const uploadId = xmlText(entry, 'UploadId');
      if (key === undefined || !uploadId) continue;
      out.push({
        url: `s3://${bucket}/${key}`,
        key,
        uploadId,
        initiated: new Date(xmlText(entry, 'Initiated') ?? 0),
      });
    }
    if (out.length > (options.maxUploads ?? 100_000))
      throw new SourceError(
        `cannot list the uploads under ${where}: more than ${options.maxUploads ?? 100_000}`,
        where,
        {
          reason: 'bad-response',
        },
      );
    if (xmlText(xml, 'IsTruncated') !== 'true') return out;
    const nextKey = xmlText(xml, 'NextKeyMarker');
    const nextId = xmlText(xml, 'NextUploadIdMarker');
    if (nextKey === undefined || (nextKey === keyMarker && nextId === idMarker))
      throw new SourceError(
        `cannot list the uploads under ${where}: the store's listing does not advance`,
        where,
        {
          reason: 'bad-response',
        },
      );
    keyMarker = nextKey;
    idMarker = nextId;
  }
}
