import { SourceError } from './errors.js';
import { parseS3Url, type S3Client } from './s3.js';
import { deleteObject, probeObject, putObject, type WriteRequestOptions } from './s3-multipart.js';
import { S3Upload, type S3UploadOptions } from './s3-upload.js';
import { type ByteSink, MemorySink } from './sink.js';

export interface S3DirectorySinkOptions extends WriteRequestOptions {
  /**
   * The file written last, whatever order the writer uses (SCDL's `header.sch`): a prefix
   * without it is an incomplete archive, and readers say so.
   */
  marker: string;
  /** Replace what is under the prefix. Without it, any object there is an `exists` error. */
  force?: boolean;
  /** How each file is uploaded (part size, parts in flight, memory), and the upload journal hooks. */
  upload?: Pick<
    S3UploadOptions,
    'concurrency' | 'memoryBudget' | 'partSize' | 'contentType' | 'onUploadStarted' | 'onUploadEnded'
  >;
  onWarning?(message: string): void;
}

/** Deletes at once, at most: enough to hide latency without flooding the store. */
const DELETES_AT_ONCE = 8;

function checkedPath(url: string, path: string): string {
  const clean = path.replace(/\\/g, '/').replace(/^\.\//, '');
  if (!clean || clean.startsWith('/') || clean.split('/').some((part) => part === '..' || part === ''))
    throw new SourceError(
      `cannot write ${url}${path}: not a relative path inside the archive`,
      `${url}${path}`,
    );
  return clean;
}

/**
 * A folder output under an S3 prefix (an SCDL archive at `s3://bucket/name/`): each file is
 * an object, uploaded as it is written (S3Upload: bounded memory), except the declared
 * marker, which is held and written last on `commit()`, after every other file is complete
 * and leftovers of a replaced archive are deleted. So a prefix holds a complete archive
 * exactly when its marker exists.
 *
 * S3 cannot rename, so replacing an archive (`force`) is not atomic the way a local folder
 * is: on the first file written, the old marker is deleted, which makes the old archive read
 * as incomplete from then on rather than as a mix of old and new files. `abort()` (or a
 * failed file, or the signal) deletes every object this sink wrote and, when it was
 * replacing an archive, the old archive's remaining objects too, so the prefix is left
 * empty rather than holding a partial archive. An abort before any file was written leaves
 * the old archive as it was.
 *
 * Structurally a DirectorySink (`write(path, content)`), plus `commit()` and `abort()`.
 */
export class S3DirectorySink {
  private state: 'open' | 'committed' | 'aborted' = 'open';
  private readonly written = new Set<string>();
  private readonly uploads = new Set<S3Upload>();
  private markerContent: Uint8Array | undefined;
  private oldMarkerGone = false;
  private aborting: Promise<void> | undefined;
  private readonly controller = new AbortController();
  private readonly onSignal = () => void this.abort();

  private constructor(
    readonly client: S3Client,
    /** s3://bucket/prefix/ */
    readonly url: string,
    /** Relative paths under the prefix before this write began. */
    private readonly existing: ReadonlySet<string>,
    private readonly options: S3DirectorySinkOptions,
  ) {
    options.signal?.addEventListener('abort', this.onSignal, { once: true });
  }

  /**
   * Opens the prefix for writing. Fails at once, changing nothing, on wrong credentials, a
   * missing bucket, or (without `force`) any object already under the prefix.
   */
  static async create(
    client: S3Client,
    url: string,
    options: S3DirectorySinkOptions,
  ): Promise<S3DirectorySink> {
    const folder = url.endsWith('/') ? url : `${url}/`;
    const { bucket, key } = parseS3Url(folder);
    const marker = checkedPath(folder, options.marker);
    // The probe's errors are typed (credentials, missing bucket); a listing's are not.
    await probeObject(client, `${folder}${marker}`, options);
    const listed = await client.list(bucket, key);
    const existing = new Set(
      listed.map((o) => o.key.slice(key.length)).filter((rel) => rel !== '' && !rel.endsWith('/')),
    );
    if (existing.size > 0 && !options.force) {
      const first = [...existing].sort()[0];
      throw new SourceError(
        `cannot write ${folder}: ${existing.size} object${existing.size === 1 ? '' : 's'} exist under the prefix (${first}${existing.size > 1 ? ', …' : ''}) and replacing them was not asked for; nothing was changed`,
        folder,
        { reason: 'exists' },
      );
    }
    return new S3DirectorySink(client, folder, existing, { ...options, marker });
  }

  private check(): void {
    if (this.state !== 'open')
      throw new SourceError(`cannot write ${this.url}: the archive was already ${this.state}`, this.url, {
        reason: this.state === 'aborted' ? 'aborted' : undefined,
      });
  }

  private requests(): WriteRequestOptions {
    return {
      retries: this.options.retries,
      timeout: this.options.timeout,
      streamBodies: this.options.streamBodies,
      signal: this.controller.signal,
    };
  }

  /** Writes one file (bytes, or a function streaming into a sink); the marker is held until commit. */
  async write(path: string, content: Uint8Array | ((sink: ByteSink) => Promise<void>)): Promise<void> {
    this.check();
    const rel = checkedPath(this.url, path);
    try {
      if (rel === this.options.marker) {
        const sink = new MemorySink();
        if (content instanceof Uint8Array) await sink.write(content);
        else await content(sink);
        this.markerContent = sink.bytes();
        return;
      }
      await this.retireOldMarker();
      const upload = await S3Upload.create(this.client, `${this.url}${rel}`, {
        ...this.options.upload,
        ...this.requests(),
        force: true,
        probe: false,
        onWarning: this.options.onWarning,
      });
      this.uploads.add(upload);
      this.written.add(rel);
      try {
        if (content instanceof Uint8Array) await upload.write(content);
        else await content(upload);
        await upload.commit();
      } finally {
        this.uploads.delete(upload);
        await upload.abort();
      }
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  /** When replacing: the old archive stops reading as complete before its files change. */
  private async retireOldMarker(): Promise<void> {
    if (this.oldMarkerGone || !this.existing.has(this.options.marker)) return;
    await deleteObject(this.client, `${this.url}${this.options.marker}`, this.requests());
    this.oldMarkerGone = true;
  }

  /** Deletes leftovers of a replaced archive, then writes the marker: the archive is complete. */
  async commit(): Promise<void> {
    this.check();
    try {
      if (this.markerContent === undefined)
        throw new SourceError(
          `cannot write ${this.url}: the archive's ${this.options.marker} was never written, so it would read as incomplete`,
          this.url,
        );
      await this.retireOldMarker();
      const stale = [...this.existing].filter((rel) => !this.written.has(rel) && rel !== this.options.marker);
      await this.deleteAll(stale);
      await putObject(this.client, `${this.url}${this.options.marker}`, this.markerContent, this.requests());
      this.state = 'committed';
      this.options.signal?.removeEventListener('abort', this.onSignal);
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  private async deleteAll(paths: readonly string[]): Promise<void> {
    const queue = [...paths];
    const worker = async () => {
      for (let rel = queue.shift(); rel !== undefined; rel = queue.shift())
        await deleteObject(this.client, `${this.url}${rel}`, this.requests());
    };
    await Promise.all(Array.from({ length: Math.min(DELETES_AT_ONCE, queue.length) }, worker));
  }

  /**
   * Aborts the file uploads under way and deletes what was written (see the class comment).
   * Safe at any time, more than once; never throws (failures go to onWarning).
   */
  abort(): Promise<void> {
    if (this.state === 'committed') return Promise.resolve();
    this.aborting ??= this.runAbort();
    return this.aborting;
  }

  private async runAbort(): Promise<void> {
    this.state = 'aborted';
    this.options.signal?.removeEventListener('abort', this.onSignal);
    this.controller.abort();
    await Promise.all([...this.uploads].map((u) => u.abort()));
    const doomed = new Set(this.written);
    if (this.oldMarkerGone) for (const rel of this.existing) doomed.add(rel);
    const failed: string[] = [];
    const queue = [...doomed];
    const worker = async () => {
      for (let rel = queue.shift(); rel !== undefined; rel = queue.shift()) {
        try {
          // Not this.requests(): its signal has just fired.
          await deleteObject(this.client, `${this.url}${rel}`, { retries: this.options.retries });
        } catch {
          failed.push(rel);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETES_AT_ONCE, queue.length) }, worker));
    if (failed.length > 0)
      this.options.onWarning?.(
        `${this.url}: could not delete ${failed.length} object${failed.length === 1 ? '' : 's'} of the aborted archive (${failed.slice(0, 3).join(', ')}${failed.length > 3 ? ', …' : ''}); without ${this.options.marker} the prefix reads as incomplete`,
      );
  }
}
