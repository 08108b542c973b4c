import type {
  ByteStats,
  Envelope,
  WorkProgress,
  Reply,
  Request,
  ResponseMap,
  SerializedError,
} from './protocol';

export class WorkerError extends Error {
  readonly code?: string;
  readonly offset?: number;
  readonly file?: string;
  constructor(readonly detail: SerializedError) {
    super(detail.message);
    this.name = detail.name;
    this.code = detail.code;
    this.offset = detail.offset;
    this.file = detail.file;
  }
}

type Progress = WorkProgress;

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  onProgress?: (progress: Progress) => void;
}

/** The page's side of the worker protocol: one promise per request, byte counters pushed out. */
export class ParserClient {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  onStats?: (stats: ByteStats) => void;
  /** The last counters the worker sent, so a view shown again starts from them. */
  lastStats: ByteStats | null = null;

  constructor() {
    this.worker = new Worker(new URL('./worker/worker.ts', import.meta.url), {
      type: 'module',
      name: 'binscope-parser',
    });
    this.worker.onmessage = (event: MessageEvent<Reply>) => this.receive(event.data);
    this.worker.onerror = (event) => {
      const error = new Error(`parser worker failed: ${event.message}`);
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
  }

  /** Ends the worker and everything it holds (a closed tab): pending requests are rejected. */
  terminate(): void {
    this.worker.terminate();
    const error = new DOMException('the file was closed', 'AbortError');
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
    this.onStats = undefined;
  }

  private stats(stats: ByteStats | undefined): void {
    if (!stats) return;
    this.lastStats = stats;
    this.onStats?.(stats);
  }

  private receive(reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    if ('progress' in reply) {
      this.stats(reply.stats);
      waiting.onProgress?.(reply.progress);
      return;
    }
    this.pending.delete(reply.id);
    this.stats(reply.stats);
    if (reply.ok) waiting.resolve(reply.result);
    else waiting.reject(new WorkerError(reply.error));
  }

  request<T extends Request>(
    request: T,
    options: { signal?: AbortSignal; onProgress?: (progress: Progress) => void } = {},
  ): Promise<ResponseMap[T['type']]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) return reject(options.signal.reason);
      this.pending.set(id, {
        resolve: resolve as (v: unknown) => void,
        reject,
        onProgress: options.onProgress,
      });
      options.signal?.addEventListener(
        'abort',
        () => {
          this.worker.postMessage({ id: this.nextId++, type: 'cancel', target: id } satisfies Envelope);
          this.pending.delete(id);
          reject(options.signal!.reason);
        },
        { once: true },
      );
      this.worker.postMessage({ id, ...request } as Envelope);
    });
  }
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}
