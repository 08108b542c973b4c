import * as fs from 'node:fs';
import * as path from 'node:path';
import { SourceError } from '../errors.js';
import { isS3Url, parseS3Url, S3Client } from '../s3-client.js';
import { S3DirectorySink } from '../s3-directory-sink.js';
import { abortMultipartUpload, listMultipartUploads } from '../s3-multipart.js';
import { S3Upload, type S3UploadOptions } from '../s3-upload.js';
import type { ByteSink, DirectorySink } from '../sink.js';
import { AtomicFile, assertReplaceable, writeDirectoryAtomic } from './atomic.js';
import { resolveS3Settings } from './aws.js';
import { describeFsError } from './file.js';
import { trackCleanup } from './temps.js';
import { abortStaleUploads, forgetUpload, journalDir, recordUpload } from './upload-journal.js';

export interface OutputOptions {
  /** Replace an existing output (never an input). */
  force?: boolean;
  /** Paths and URLs the command reads: writing onto one of them is refused. */
  inputs?: readonly string[];
  /** The output's expected size in bytes (chooses the S3 part size). */
  expectedSize?: number;
  /** Aborts the output (S3: the multipart upload) when it fires. */
  signal?: AbortSignal;
  onWarning?: (message: string) => void;
  /** The client for s3:// outputs; default: one from the AWS environment (resolveS3Settings). */
  s3?: S3Client;
  /** Where `-` writes; default process.stdout. */
  stdout?: NodeJS.WritableStream;
  /** How s3:// outputs upload (part size, parts in flight, memory, retries). */
  upload?: Pick<
    S3UploadOptions,
    'concurrency' | 'memoryBudget' | 'partSize' | 'contentType' | 'retries' | 'timeout'
  >;
  /**
   * s3://: before writing, abort every unfinished multipart upload at the key, whoever left it.
   * Without it, only uploads of dead binscope processes on this machine are aborted (the
   * journal, see upload-journal.ts) and others are reported through onWarning.
   */
  abortUnfinished?: boolean;
  /** The upload journal's folder (tests); default journalDir(). */
  journal?: string;
}

/** A file output: bytes appear at the target only on commit (stdout: as written). */
export interface Output extends ByteSink {
  /** What the caller named: a path, an s3:// URL or `-`. */
  readonly target: string;
  readonly kind: 'file' | 's3' | 'stdout';
  commit(): Promise<void>;
  /** Leaves the target as it was (stdout: nothing to undo). Safe more than once; never throws. */
  abort(): Promise<void>;
}

/** A folder output: files by relative path (a DirectorySink, what folder converters write to), complete on commit. */
export interface DirectoryOutput extends DirectorySink {
  readonly target: string;
  readonly kind: 'folder' | 's3';
  commit(): Promise<void>;
  abort(): Promise<void>;
}

let defaultClient: S3Client | undefined;

function clientFor(options: OutputOptions): S3Client {
  if (options.s3) return options.s3;
  defaultClient ??= new S3Client(resolveS3Settings());
  return defaultClient;
}

function s3Key(url: string): string {
  const { bucket, key } = parseS3Url(url);
  return `${bucket}/${key}`;
}

function statOf(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p);
  } catch {
    return undefined;
  }
}

function refuse(target: string, input: string, holds: boolean): SourceError {
  return new SourceError(
    `refusing to write ${target}: it ${holds ? 'holds' : 'is'} the input ${input}; choose another output`,
    target,
    { reason: 'exists' },
  );
}

/**
 * Writers never destroy their input: an output that is one of the inputs (the same local
 * file through any path or link, the same s3:// object) or, for a folder output, a folder
 * holding one, is refused.
 */
function refuseInputs(target: string, inputs: readonly string[], folder: boolean): void {
  if (isS3Url(target)) {
    const out = s3Key(target.endsWith('/') || !folder ? target : `${target}/`);
    for (const input of inputs) {
      if (!isS3Url(input)) continue;
      const key = s3Key(input);
      if (key === out || key.replace(/\/$/, '') === out.replace(/\/$/, ''))
        throw refuse(target, input, false);
      if (folder && key.startsWith(out)) throw refuse(target, input, true);
    }
    return;
  }
  if (target === '-') return;
  const stat = statOf(target);
  if (!stat) return;
  const real = fs.realpathSync(target);
  for (const input of inputs) {
    if (isS3Url(input) || /^https?:\/\//i.test(input) || input === '-') continue;
    const other = statOf(input);
    if (!other) continue;
    if (other.dev === stat.dev && other.ino === stat.ino) throw refuse(target, input, false);
    if (stat.isDirectory() && fs.realpathSync(input).startsWith(real + path.sep))
      throw refuse(target, input, true);
  }
}

function exists(target: string): SourceError {
  return new SourceError(
    `cannot write ${target}: it exists and replacing it was not asked for; nothing was changed`,
    target,
    { reason: 'exists' },
  );
}

/** Ties an output to the signal and to SIGINT/SIGTERM (removeTempsOnSignals) until it ends. */
function guard<T extends { abort(): Promise<void> }>(output: T, signal: AbortSignal | undefined): () => void {
  const untrack = trackCleanup(() => output.abort());
  const onAbort = () => void output.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  return () => {
    untrack();
    signal?.removeEventListener('abort', onAbort);
  };
}

/**
 * Opens where a command writes one file: a local path (an AtomicFile: a temp file renamed
 * over the target on commit), an s3:// URL (an S3Upload: the object appears on commit), or
 * `-` (standard output, written as it comes: not atomic; a failure shows in the exit status).
 * Refuses an output that is one of `inputs`, and an existing one without `force`.
 */
export async function openOutput(target: string, options: OutputOptions = {}): Promise<Output> {
  refuseInputs(target, options.inputs ?? [], false);
  if (target === '-') return stdoutOutput(options.stdout ?? process.stdout);
  if (isS3Url(target)) return s3Output(target, options);
  // Only a regular file is ever replaced, --force or not: a folder, device, FIFO, socket or
  // symbolic link is refused before the question of replacing arises.
  assertReplaceable(target);
  if (statOf(target) && !options.force) throw exists(target);
  const file = AtomicFile.create(target);
  let release = () => {};
  const output: Output = {
    target,
    kind: 'file',
    get position() {
      return file.position;
    },
    write: (bytes) => file.write(bytes),
    async commit() {
      try {
        if (!options.force && statOf(target)) throw exists(target);
        await file.commit();
      } catch (error) {
        file.abort();
        throw error;
      } finally {
        release();
      }
    },
    async abort() {
      file.abort();
      release();
    },
  };
  release = guard(output, options.signal);
  return output;
}

async function s3Output(url: string, options: OutputOptions): Promise<Output> {
  const client = clientFor(options);
  const journal = options.journal ?? journalDir();
  await abortStaleUploads(client, { dir: journal, onWarning: options.onWarning, signal: options.signal });
  await reportUnfinished(client, url, options);
  const upload = await S3Upload.create(client, url, {
    ...options.upload,
    streamBodies: true,
    expectedSize: options.expectedSize,
    force: options.force,
    signal: options.signal,
    onWarning: options.onWarning,
    onUploadStarted: (id) => recordUpload(client, url, id, journal),
    onUploadEnded: (id) => forgetUpload(client, id, journal),
  });
  const release = guard(upload, undefined);
  return {
    target: url,
    kind: 's3',
    get position() {
      return upload.position;
    },
    write: (bytes) => upload.write(bytes),
    commit: () => upload.commit().finally(release),
    abort: () => upload.abort().finally(release),
  };
}

/** Unfinished uploads at the key left by others: aborted with abortUnfinished, else reported. */
async function reportUnfinished(client: S3Client, url: string, options: OutputOptions): Promise<void> {
  const { bucket, key } = parseS3Url(url);
  let uploads: Awaited<ReturnType<typeof listMultipartUploads>>;
  try {
    uploads = await listMultipartUploads(client, bucket, key, { signal: options.signal });
  } catch {
    // The write itself will say what is wrong with the store or the credentials.
    return;
  }
  const here = (uploads ?? []).filter((u) => u.key === key);
  if (here.length === 0) return;
  if (options.abortUnfinished) {
    for (const u of here) await abortMultipartUpload(client, u.url, u.uploadId, { signal: options.signal });
    return;
  }
  const oldest = here.reduce((a, b) => (a.initiated <= b.initiated ? a : b));
  options.onWarning?.(
    `${url}: ${here.length} unfinished multipart upload${here.length === 1 ? '' : 's'} from other writers (oldest started ${oldest.initiated.toISOString()}) are billed until aborted; abort them (abortUnfinished) or set a lifecycle rule (AbortIncompleteMultipartUpload)`,
  );
}

function stdoutOutput(stream: NodeJS.WritableStream): Output {
  let position = 0;
  let failure: Error | undefined;
  const onError = (error: Error) => {
    failure ??= error;
  };
  stream.on('error', onError);
  const send = (bytes: Uint8Array) =>
    new Promise<void>((resolve, reject) => {
      if (failure) return reject(failure);
      // The callback fires once the chunk is handed over: a slow reader bounds memory.
      stream.write(bytes, (error) => (error ? reject(error) : resolve()));
    });
  return {
    target: '-',
    kind: 'stdout',
    get position() {
      return position;
    },
    async write(bytes) {
      await send(bytes.slice());
      position += bytes.byteLength;
    },
    async commit() {
      stream.off('error', onError);
      if (failure)
        throw new SourceError(`cannot write to standard output: ${failure.message}`, '-', { cause: failure });
    },
    async abort() {
      stream.off('error', onError);
    },
  };
}

/**
 * Opens where a command writes a folder (an SCDL archive): a local folder (built under a
 * temp name and renamed into place on commit, writeDirectoryAtomic) or an s3:// prefix (an
 * S3DirectorySink: `marker` written last, so the prefix is complete only once it exists).
 */
export async function openDirectoryOutput(
  target: string,
  options: OutputOptions & { marker: string },
): Promise<DirectoryOutput> {
  refuseInputs(target, options.inputs ?? [], true);
  if (target === '-')
    throw new SourceError('cannot write a folder to standard output; give a folder or an s3:// prefix', '-');
  if (isS3Url(target)) {
    const client = clientFor(options);
    const journal = options.journal ?? journalDir();
    await abortStaleUploads(client, { dir: journal, onWarning: options.onWarning, signal: options.signal });
    const sink = await S3DirectorySink.create(client, target, {
      marker: options.marker,
      force: options.force,
      signal: options.signal,
      retries: options.upload?.retries,
      timeout: options.upload?.timeout,
      streamBodies: true,
      onWarning: options.onWarning,
      upload: {
        ...options.upload,
        onUploadStarted: (id, url) => recordUpload(client, url, id, journal),
        onUploadEnded: (id) => forgetUpload(client, id, journal),
      },
    });
    const release = guard(sink, undefined);
    return {
      target: sink.url,
      kind: 's3',
      write: (rel, content) => sink.write(rel, content),
      commit: () => sink.commit().finally(release),
      abort: () => sink.abort().finally(release),
    };
  }
  return localDirectoryOutput(target, options);
}

/** Sentinel a local folder build throws when it is aborted: writeDirectoryAtomic then removes the temp. */
const ABORTED = Symbol('aborted');

/**
 * writeDirectoryAtomic with its build turned inside out: the build callback waits until
 * commit() or abort() decides, so the lock, the stale-copy recovery and the swap stay in one
 * place (atomic.ts) while the caller writes file by file.
 */
async function localDirectoryOutput(target: string, options: OutputOptions): Promise<DirectoryOutput> {
  assertReplaceable(target, { folder: true });
  if (statOf(target) && !options.force) throw exists(target);
  let decide!: (commit: boolean) => void;
  const decided = new Promise<boolean>((resolve) => {
    decide = resolve;
  });
  let opened!: (dir: string) => void;
  const tempDir = new Promise<string>((resolve) => {
    opened = resolve;
  });
  const done = writeDirectoryAtomic(
    target,
    async (dir) => {
      opened(dir);
      if (!(await decided)) throw ABORTED;
    },
    { replace: options.force ?? false, onWarning: options.onWarning },
  );
  const dir = await Promise.race([tempDir, done.then(() => '')]);
  let release = () => {};
  const finished = done.catch((error) => {
    if (error !== ABORTED) throw error;
  });
  const output: DirectoryOutput = {
    target,
    kind: 'folder',
    async write(rel, content) {
      // The temp folder is named from the target, which may be relative: compare absolute paths.
      const root = path.resolve(dir);
      const full = path.resolve(root, rel);
      if (!full.startsWith(root + path.sep))
        throw new SourceError(`cannot write ${target}: ${rel} is not a path inside it`, target);
      try {
        fs.mkdirSync(path.dirname(full), { recursive: true });
      } catch (cause) {
        throw new SourceError(`cannot write ${target}: ${describeFsError(cause)}`, target, { cause });
      }
      const file = AtomicFile.create(full);
      try {
        if (content instanceof Uint8Array) await file.write(content);
        else await content(file);
        await file.commit();
      } catch (error) {
        file.abort();
        throw error;
      }
    },
    async commit() {
      decide(true);
      try {
        await finished;
      } finally {
        release();
      }
    },
    async abort() {
      decide(false);
      await finished.catch(() => {});
      release();
    },
  };
  release = guard(output, options.signal);
  return output;
}
