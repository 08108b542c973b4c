/**
 * Node-only: HDF5 work (h5wasm) in a worker thread. HDF5 runs synchronously, and a corrupt
 * file can make it loop forever (HDF5 2.0 itself does, on a global heap collection whose
 * free-space record has size 0: h5py hangs on the same file). On this thread such a loop
 * would hold the event loop: no SIGTERM handler, no abort, no timer could run. In a worker it
 * can be stopped: an abort or a stall (no h5wasm call returned for `stallTimeout`) terminates
 * the worker, and the main thread, which owns the output and its temp files, cleans up.
 */
import * as fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import {
  FormatError,
  isBinscopeError,
  type ProgressEvent,
  SourceError,
  throwIfAborted,
} from '@binscope/core';
import type { CsrChunk, FeatureIndices, ScdlWriteOptions, ScdlWriteResult } from '@binscope/scdl';
import type { H5adSummary } from './anndata.js';
import type { ArchiveWriterLike, ConversionResult, ConvertOptions } from './convert.js';

/** Default for how long one h5wasm call may run before the file is taken for corrupt. */
export const DEFAULT_STALL_TIMEOUT = 120_000;

/** What the worker is asked to do. */
export type WorkerTask =
  | { op: 'describe'; file: string }
  | {
      op: 'convert';
      files: { path: string; label: string }[];
      options: Omit<ConvertOptions, 'signal' | 'onProgress' | 'onWarning'>;
    };

/** Messages from the worker. */
export type FromWorker =
  | { op: 'done'; result: unknown }
  | { op: 'failed'; error: SerializedError; reusable: boolean }
  | { op: 'progress'; event: ProgressEvent }
  | { op: 'warning'; message: string }
  | { op: 'create'; options: Pick<ScdlWriteOptions, 'dataDType' | 'numCols' | 'nnz'> }
  | { op: 'rows'; chunk: CsrChunk }
  | { op: 'finish'; features?: FeatureIndices }
  | { op: 'abort' };

/** A task for the worker, or the reply to its writer call. */
export type ToWorker = { op: 'task'; task: WorkerTask } | { op: 'reply'; result?: unknown };

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  detail?: string;
  offset?: number;
  file?: string;
  format?: string;
  path?: string;
}

export function serializeError(error: unknown): SerializedError {
  const e = error as { name?: unknown; message?: unknown } | undefined;
  const out: SerializedError = {
    name: typeof e?.name === 'string' ? e.name : 'Error',
    message: typeof e?.message === 'string' ? e.message : String(error),
  };
  if (isBinscopeError(error, 'FormatError')) {
    Object.assign(out, { code: error.code, detail: error.detail, offset: error.offset, file: error.file });
    out.format = error.format;
  } else if (isBinscopeError(error, 'SourceError')) out.path = error.path;
  return out;
}

function revive(error: SerializedError): Error {
  if (error.name === 'FormatError' && error.code)
    return new FormatError(error.code as FormatError['code'], error.detail ?? error.message, {
      offset: error.offset,
      file: error.file,
      format: error.format,
    });
  if (error.name === 'SourceError') return new SourceError(error.message, error.path);
  const revived = new Error(error.message);
  revived.name = error.name;
  return revived;
}

/** The worker script: next to this module when built; from dist when this runs from source (tests). */
function workerUrl(): URL {
  const here = new URL('./h5-worker.js', import.meta.url);
  if (fs.existsSync(here)) return here;
  return new URL('../dist/h5-worker.js', import.meta.url);
}

export interface HostOptions {
  signal?: AbortSignal;
  /** Milliseconds one h5wasm call may run before the file is taken for corrupt (default 120 s). */
  stallTimeout?: number;
  /** The file(s) named by a stall error. */
  label: string;
  onProgress?: (event: ProgressEvent) => void;
  onWarning?: (message: string) => void;
  /** Opens the real writer (in this thread, which owns the output). */
  createWriter?: (
    options: Pick<ScdlWriteOptions, 'dataDType' | 'numCols' | 'nnz'>,
  ) => Promise<ArchiveWriterLike>;
}

interface Thread {
  worker: Worker;
  heartbeat: Int32Array;
  /** What the current task listens to on the worker, taken off when it ends. */
  listeners: [event: string, listener: (...args: never[]) => void][];
}

/**
 * A worker that finished its task cleanly waits here for the next (unref'd: it keeps no
 * process alive), so a run of small files does not pay for a worker and h5wasm each time. One
 * that was stopped or whose HDF5 aborted is terminated instead.
 */
let idle: Thread | undefined;

function takeThread(): Thread {
  const ready = idle;
  idle = undefined;
  if (ready) {
    ready.worker.ref();
    return ready;
  }
  const heartbeat = new Int32Array(new SharedArrayBuffer(4));
  // No inherited execArgv: the worker is plain JS, and flags such as --input-type (a script
  // given with -e) are refused in workers.
  const worker = new Worker(workerUrl(), { workerData: { heartbeat }, execArgv: [] });
  const thread: Thread = { worker, heartbeat, listeners: [] };
  // An idle worker that dies (it should not) is simply not reused.
  worker.on('exit', () => {
    if (idle === thread) idle = undefined;
  });
  worker.on('error', () => {});
  return thread;
}

function release(thread: Thread, reusable: boolean): void {
  for (const [event, listener] of thread.listeners.splice(0))
    thread.worker.off(event, listener as (...args: unknown[]) => void);
  if (reusable && !idle) {
    thread.worker.unref();
    idle = thread;
  } else void thread.worker.terminate();
}

/** Listens on the task's worker until the task ends. */
function listen(thread: Thread, event: string, listener: (...args: never[]) => void): void {
  thread.listeners.push([event, listener]);
  thread.worker.on(event, listener as (...args: unknown[]) => void);
}

/** Runs one task in a worker thread (a waiting one, or a new one). */
export function runInWorker(
  task: { op: 'describe'; file: string },
  options: HostOptions,
): Promise<H5adSummary>;
export function runInWorker(
  task: WorkerTask & { op: 'convert' },
  options: HostOptions,
): Promise<ConversionResult>;
export function runInWorker(task: WorkerTask, options: HostOptions): Promise<unknown> {
  throwIfAborted(options.signal);
  const thread = takeThread();
  const { worker, heartbeat } = thread;
  let writer: ArchiveWriterLike | undefined;
  let settled = false;
  return new Promise<unknown>((resolve, reject) => {
    const stallTimeout = options.stallTimeout ?? DEFAULT_STALL_TIMEOUT;
    let seen = Atomics.load(heartbeat, 0);
    let quietSince = Date.now();
    const watchdog = setInterval(
      () => {
        const now = Atomics.load(heartbeat, 0);
        if (now !== seen) {
          seen = now;
          quietSince = Date.now();
        } else if (Date.now() - quietSince >= stallTimeout) {
          end(
            new FormatError(
              'InvalidValue',
              `HDF5 read failed (the HDF5 library has not returned for ${Number((stallTimeout / 1000).toFixed(1))} s: it loops on a corrupt structure)`,
              { file: options.label, format: 'h5ad' },
            ),
          );
        }
      },
      Math.min(1000, Math.max(50, stallTimeout / 4)),
    );
    const onAbort = () => end(new SourceError('aborted', undefined, { cause: options.signal?.reason }));
    options.signal?.addEventListener('abort', onAbort, { once: true });

    function end(error: unknown, result?: unknown, reusable = false): void {
      if (settled) return;
      settled = true;
      clearInterval(watchdog);
      options.signal?.removeEventListener('abort', onAbort);
      release(thread, reusable);
      if (error === undefined) {
        resolve(result);
        return;
      }
      // The output this thread was writing goes (temp folder, lock); the error is the cause.
      Promise.resolve(writer?.abort())
        .catch(() => {})
        .then(() => reject(error));
    }

    const reply = (result?: unknown) => {
      if (!settled) worker.postMessage({ op: 'reply', result } satisfies ToWorker);
    };
    const writerCall = async (message: FromWorker) => {
      switch (message.op) {
        case 'create':
          if (!options.createWriter) throw new Error('this task writes nothing');
          writer = await options.createWriter(message.options);
          return reply();
        case 'rows':
          await writer!.appendRows(message.chunk);
          return reply();
        case 'finish':
          return reply(await writer!.finish(message.features));
        case 'abort': {
          const open = writer;
          writer = undefined;
          await open?.abort();
          return reply();
        }
      }
    };

    listen(thread, 'message', (message: FromWorker) => {
      if (settled) return;
      switch (message.op) {
        case 'done':
          return end(undefined, message.result, true);
        case 'failed':
          return end(revive(message.error), undefined, message.reusable);
        case 'progress':
          return options.onProgress?.(message.event);
        case 'warning':
          return options.onWarning?.(message.message);
        default:
          // A writer failure (a full disk) ends the conversion here, named as it is.
          writerCall(message).catch((error: unknown) => end(error));
      }
    });
    listen(thread, 'error', (error: Error) => end(error));
    listen(thread, 'exit', (code: number) => {
      if (!settled) end(new Error(`the HDF5 worker exited (code ${code}) without an answer`));
    });
    worker.postMessage({ op: 'task', task } satisfies ToWorker);
  });
}

/** The worker's writer: each call goes to the main thread, which owns the output. */
export function proxyWriter(
  post: (message: FromWorker, transfer?: ArrayBuffer[]) => void,
  call: () => Promise<unknown>,
): ArchiveWriterLike {
  return {
    // Chunks are copied (compactly: views into reused scratch space would carry all of it)
    // and the copies transferred, so the converter may reuse its buffers at once.
    reusesChunkBuffers: true,
    async appendRows(chunk) {
      const indptr = copyOf(chunk.indptr);
      const indices = copyOf(chunk.indices);
      const data = copyOf(chunk.data);
      post({ op: 'rows', chunk: { indptr, indices, data, maxIndex: chunk.maxIndex } }, [
        ...bufferOf(indptr),
        ...bufferOf(indices),
        ...bufferOf(data),
      ]);
      await call();
    },
    async finish(features) {
      post({ op: 'finish', features });
      return (await call()) as ScdlWriteResult;
    },
    async abort() {
      post({ op: 'abort' });
      await call();
    },
  };
}

function copyOf<T>(values: T): T {
  return (ArrayBuffer.isView(values) ? (values as unknown as Uint8Array).slice() : values) as T;
}

function bufferOf(values: unknown): ArrayBuffer[] {
  return ArrayBuffer.isView(values) ? [values.buffer as ArrayBuffer] : [];
}
