import { SourceError } from './errors.js';
import { parseS3Url, type S3Client } from './s3.js';
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  probeObject,
  putObject,
  type UploadedPart,
  uploadPart,
  type WriteRequestOptions,
} from './s3-multipart.js';
import type { ByteSink } from './sink.js';

const MiB = 1024 * 1024;
/** S3's smallest part (every part but the last). */
export const MIN_PART_SIZE = 5 * MiB;
/** S3's largest part. */
export const MAX_PART_SIZE = 5 * 1024 * MiB;
/** S3's most parts in one upload. */
export const MAX_PARTS = 10_000;
const DEFAULT_PART_SIZE = 8 * MiB;
const DEFAULT_CONCURRENCY = 4;
const DEFAULT_MEMORY = 64 * MiB;
/** The first buffer of an upload: small outputs never hold a whole part. */
const FIRST_BUFFER = 64 * 1024;

/**
 * The first part's size: 8 MiB (or `minimum`), or more when `expectedSize` needs it to fit
 * in 10,000 parts, in whole MiB. Later parts grow only if the output outgrows the hint.
 */
export function choosePartSize(expectedSize?: number, minimum = DEFAULT_PART_SIZE): number {
  const floor = Math.max(MIN_PART_SIZE, minimum);
  if (!expectedSize || expectedSize <= 0) return floor;
  return Math.min(MAX_PART_SIZE, Math.max(floor, Math.ceil(expectedSize / MAX_PARTS / MiB) * MiB));
}

/**
 * The size of the part after `parts` parts holding `written` bytes: unchanged while the
 * remaining parts can hold the rest of the hint (or, past the hint or without one, as much
 * again as was written); doubled (up to 5 GiB) as often as needed otherwise. Without a hint,
 * 8 MiB parts reach about 3.6 TB in 10,000 parts.
 */
export function nextPartSize(current: number, parts: number, written: number, expectedSize?: number): number {
  const remaining = MAX_PARTS - parts;
  const hold = expectedSize !== undefined && written <= expectedSize ? expectedSize - written : written;
  let size = current;
  while (remaining * size < hold && size < MAX_PART_SIZE) size = Math.min(MAX_PART_SIZE, size * 2);
  return size;
}

export interface S3UploadOptions extends WriteRequestOptions {
  /** The output's expected size, to choose the part size (see choosePartSize). */
  expectedSize?: number;
  /** Replace an object already at the key. Without it, an existing object is an `exists` error. */
  force?: boolean;
  /** The first part's size (at least 5 MiB); default from expectedSize. */
  partSize?: number;
  /** Parts uploading at once, at most (default 4; fewer when parts are large, see memoryBudget). */
  concurrency?: number;
  /** Bytes of parts held at once (in flight and filling), at most; default 64 MiB, never below two parts. */
  memoryBudget?: number;
  contentType?: string;
  /** Check the key first (default true): fails early on credentials, a missing bucket, an existing object. */
  probe?: boolean;
  /** A multipart upload to `url` was started (to journal it for a later cleanup if this process dies). */
  onUploadStarted?(uploadId: string, url: string): void;
  /** That upload was completed or aborted. */
  onUploadEnded?(uploadId: string, url: string): void;
  /** What the upload noticed but went past (a store without conditional writes, an abort that failed). */
  onWarning?(message: string): void;
}

type State = 'open' | 'committing' | 'committed' | 'aborted';

/**
 * An S3 object written as a stream: a ByteSink whose bytes appear at the key only on
 * `commit()`, whole (one PutObject for outputs under one part, else a multipart upload
 * completed at the end). `abort()`, a failed write, or the signal abort the multipart upload,
 * so no parts are left billed. Memory is bounded: at most `memoryBudget` bytes of parts are
 * held (parts in flight plus the one filling).
 *
 * Without `force`, the key must be free: checked when the upload is created (a one-byte GET)
 * and again, atomically, by `If-None-Match: *` on the final PutObject or
 * CompleteMultipartUpload. A store that answers that header with 501 NotImplemented is
 * written without it (the first check then is the only one; `conditional` says which).
 */
export class S3Upload implements ByteSink {
  position = 0;
  /** Whether the final write was conditional: true, false (the store does not support it), undefined (force, or not yet). */
  conditional: boolean | undefined;
  /** Bytes the store has acknowledged (parts uploaded, or the one PutObject): for progress. */
  uploaded = 0;
  /** Part size of the next part (grows only past the size hint). */
  partSize: number;
  private state: State = 'open';
  private buffer: Uint8Array = new Uint8Array(0);
  private filled = 0;
  private dispatched = 0;
  private partCount = 0;
  private readonly parts: UploadedPart[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Buffers of sent parts, reused for the next ones: a new 8 MiB buffer per part would be
   * garbage the collector frees only in its own time, and the process would hold far more
   * than the parts in flight.
   */
  private spare: Uint8Array[] = [];
  private starting: Promise<string> | undefined;
  private failure: unknown;
  private aborting: Promise<void> | undefined;
  private readonly controller = new AbortController();
  /** Taken off the caller's signal when the upload ends: one signal may outlive many uploads. */
  private readonly onSignal = () => void this.abort();
  private readonly requests: WriteRequestOptions;

  private constructor(
    readonly client: S3Client,
    readonly url: string,
    private readonly options: S3UploadOptions,
  ) {
    this.partSize = options.partSize ?? choosePartSize(options.expectedSize);
    this.requests = {
      retries: options.retries,
      timeout: options.timeout,
      streamBodies: options.streamBodies,
      signal: this.controller.signal,
    };
    options.signal?.addEventListener('abort', this.onSignal, { once: true });
  }

  /** Starts an upload to `url` (s3://bucket/key); fails at once if the key is taken (without force). */
  static async create(client: S3Client, url: string, options: S3UploadOptions = {}): Promise<S3Upload> {
    const { key } = parseS3Url(url);
    if (!key || key.endsWith('/'))
      throw new SourceError(`cannot write ${url}: an object needs a key that does not end in "/"`, url);
    if (
      options.partSize !== undefined &&
      !(options.partSize >= MIN_PART_SIZE && options.partSize <= MAX_PART_SIZE)
    )
      throw new RangeError(`partSize ${options.partSize} is not within S3's 5 MiB to 5 GiB`);
    if (options.signal?.aborted)
      throw new SourceError(`cannot write ${url}: aborted`, url, { reason: 'aborted' });
    if (options.probe !== false) {
      const found = await probeObject(client, url, options);
      if (found === 'exists' && !options.force)
        throw new SourceError(
          `cannot write ${url}: an object exists there and replacing it was not asked for; nothing was changed`,
          url,
          { reason: 'exists' },
        );
    }
    return new S3Upload(client, url, options);
  }

  /** Parts in flight at most for the current part size, within the memory budget. */
  private get maxInFlight(): number {
    const budget = this.options.memoryBudget ?? DEFAULT_MEMORY;
    const byMemory = Math.floor(budget / this.partSize) - 1;
    return Math.max(1, Math.min(this.options.concurrency ?? DEFAULT_CONCURRENCY, byMemory));
  }

  /** Throws what stopped the upload: a failed part, an abort, or a commit (unless it is this commit's own part). */
  private check(committing = false): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.state === 'aborted')
      throw new SourceError(`cannot write ${this.url}: the upload was aborted`, this.url, {
        reason: 'aborted',
      });
    if (this.state === 'committed' || (this.state === 'committing' && !committing))
      throw new SourceError(`cannot write ${this.url}: the upload was already committed`, this.url);
  }

  async write(bytes: Uint8Array): Promise<void> {
    this.check();
    try {
      let at = 0;
      while (at < bytes.byteLength) {
        if (this.filled === this.partSize) await this.sendPart();
        const want = Math.min(this.partSize, this.filled + bytes.byteLength - at);
        if (want > this.buffer.byteLength) this.grow(want);
        const take = Math.min(bytes.byteLength - at, this.partSize - this.filled);
        this.buffer.set(bytes.subarray(at, at + take), this.filled);
        this.filled += take;
        at += take;
      }
      this.position += bytes.byteLength;
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  /**
   * Doubles the first buffer (from 64 KiB) up to the part size, so a small output holds only
   * itself; once a part has gone, the output is large and each buffer is a whole part.
   */
  private grow(need: number): void {
    if (this.partCount > 0 && this.filled === 0) {
      this.buffer = this.spare.pop() ?? new Uint8Array(this.partSize);
      return;
    }
    let size = this.partCount > 0 ? this.partSize : Math.max(FIRST_BUFFER, this.buffer.byteLength);
    while (size < need) size *= 2;
    const bigger = new Uint8Array(Math.min(size, this.partSize));
    bigger.set(this.buffer.subarray(0, this.filled));
    this.buffer = bigger;
  }

  /** Hands the filled buffer to an UploadPart, waiting first while too many are in flight. */
  private async sendPart(): Promise<void> {
    const body = this.buffer.subarray(0, this.filled);
    const partNumber = ++this.partCount;
    if (partNumber > MAX_PARTS)
      throw new SourceError(`cannot write ${this.url}: more than ${MAX_PARTS} parts`, this.url);
    this.buffer = new Uint8Array(0);
    this.filled = 0;
    this.dispatched += body.byteLength;
    const uploadId = await this.start();
    while (this.inFlight.size >= this.maxInFlight) await Promise.race(this.inFlight);
    this.check(true);
    const task: Promise<void> = uploadPart(
      this.client,
      this.url,
      uploadId,
      partNumber,
      body,
      this.requests,
    ).then(
      (etag) => {
        this.parts.push({ partNumber, etag });
        this.uploaded += body.byteLength;
      },
      (error) => {
        this.failure ??= error;
      },
    );
    this.inFlight.add(task);
    void task.finally(() => {
      this.inFlight.delete(task);
      // The part is sent (or failed for good): its buffer can take a later part.
      if (body.buffer.byteLength === this.partSize && this.state === 'open')
        this.spare.push(new Uint8Array(body.buffer));
    });
    this.partSize = nextPartSize(this.partSize, partNumber, this.dispatched, this.options.expectedSize);
    if (this.partSize !== body.buffer.byteLength) this.spare.length = 0;
  }

  private start(): Promise<string> {
    this.starting ??= createMultipartUpload(this.client, this.url, {
      ...this.requests,
      contentType: this.options.contentType,
    }).then((id) => {
      this.options.onUploadStarted?.(id, this.url);
      return id;
    });
    return this.starting;
  }

  /** Makes the object appear at the key, whole; on any failure the upload is aborted and the error thrown. */
  async commit(): Promise<void> {
    this.check();
    this.state = 'committing';
    const conditional = !this.options.force;
    try {
      if (this.starting === undefined) {
        const body = this.buffer.subarray(0, this.filled);
        const put = () =>
          putObject(this.client, this.url, body, {
            ...this.requests,
            ifNoneMatch: conditional && this.conditional !== false,
            contentType: this.options.contentType,
          });
        if ((await put()) === 'unsupported') {
          this.noConditionalWrites();
          await put();
        } else if (conditional) this.conditional = true;
        this.uploaded = body.byteLength;
      } else {
        if (this.filled > 0) await this.sendPart();
        while (this.inFlight.size > 0) await Promise.all(this.inFlight);
        if (this.failure !== undefined) throw this.failure;
        const uploadId = await this.start();
        const parts = [...this.parts].sort((a, b) => a.partNumber - b.partNumber);
        const complete = () =>
          completeMultipartUpload(this.client, this.url, uploadId, parts, {
            ...this.requests,
            ifNoneMatch: conditional && this.conditional !== false,
          });
        if ((await complete()) === 'unsupported') {
          this.noConditionalWrites();
          await complete();
        } else if (conditional) this.conditional = true;
        this.options.onUploadEnded?.(uploadId, this.url);
      }
      this.state = 'committed';
      this.buffer = new Uint8Array(0);
      this.spare = [];
      this.options.signal?.removeEventListener('abort', this.onSignal);
    } catch (error) {
      this.state = 'open';
      this.failure ??= error;
      await this.abort();
      throw error;
    }
  }

  private noConditionalWrites(): void {
    this.conditional = false;
    this.options.onWarning?.(
      `${this.url}: the store does not support conditional writes (If-None-Match); the key was checked only when the upload began`,
    );
  }

  /**
   * Stops the upload and aborts it at the store: nothing appears at the key and no parts stay
   * billed. Safe to call at any time and more than once (every call waits for the same
   * abort); never throws: an abort the store refused is reported through onWarning and
   * `abortFailure`, and a later write's cleanup of stale uploads can retry it.
   */
  abort(): Promise<void> {
    if (this.state === 'committed') return Promise.resolve();
    this.aborting ??= this.runAbort();
    return this.aborting;
  }

  /** Why the store did not abort the upload, if it did not. */
  abortFailure: unknown;

  private async runAbort(): Promise<void> {
    this.state = 'aborted';
    this.options.signal?.removeEventListener('abort', this.onSignal);
    this.controller.abort();
    this.buffer = new Uint8Array(0);
    this.spare = [];
    await Promise.allSettled([...this.inFlight]);
    const uploadId = this.starting ? await this.starting.catch(() => undefined) : undefined;
    if (!uploadId) return;
    try {
      // Not this.requests: its signal has just fired.
      await abortMultipartUpload(this.client, this.url, uploadId, {
        retries: this.options.retries,
        timeout: this.options.timeout,
      });
      this.options.onUploadEnded?.(uploadId, this.url);
    } catch (error) {
      this.abortFailure = error;
      this.options.onWarning?.(
        `${this.url}: could not abort multipart upload ${uploadId}; its parts stay billed until it is aborted: ${(error as Error).message}`,
      );
    }
  }
}
