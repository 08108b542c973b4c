import { SourceError, type SourceErrorReason } from './errors.js';

/**
 * One HTTP exchange as HttpSource and the folder listings need it, with everything a real
 * server can do wrong turned into a typed SourceError that names the URL, the range and the
 * status: an idle timeout (a stalled server never hangs a read), an overall deadline (nor does
 * one that trickles), a body read in bounded pieces (an endless reply never fills memory), and
 * bounded retries with exponential backoff and jitter for 429/5xx replies and dropped
 * connections. Browser-safe: fetch, AbortController and timers only.
 */

export interface RequestPolicy {
  fetch: typeof fetch;
  headers: Readonly<Record<string, string>>;
  /** Milliseconds without a byte (or without response headers) before the request fails. */
  idleTimeout: number;
  /**
   * Milliseconds one exchange may take in all, retries and their backoff included, however
   * steadily bytes arrive (Infinity: none).
   */
  deadline: number;
  /** Further attempts after a retryable failure. */
  retries: number;
  /** First backoff delay in ms; doubled per attempt, jittered, capped at MAX_BACKOFF. */
  retryDelay: number;
  /** The source-wide signal (HttpSourceOptions.signal). */
  signal?: AbortSignal;
}

/** The settings an exchange is made with, as HttpSourceOptions and listings take them. */
export interface RequestOptions {
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  idleTimeout?: number;
  deadline?: number;
  retries?: number;
  retryDelay?: number;
  signal?: AbortSignal;
}

/** Defaults of RequestOptions, documented on HttpSourceOptions and in SECURITY.md. */
const REQUEST_DEFAULTS = { idleTimeout: 30_000, deadline: 120_000, retries: 3, retryDelay: 250 };

export function requestPolicy(options: RequestOptions): RequestPolicy {
  return {
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    headers: options.headers ?? {},
    idleTimeout: options.idleTimeout ?? REQUEST_DEFAULTS.idleTimeout,
    deadline: options.deadline ?? REQUEST_DEFAULTS.deadline,
    retries: options.retries ?? REQUEST_DEFAULTS.retries,
    retryDelay: options.retryDelay ?? REQUEST_DEFAULTS.retryDelay,
    signal: options.signal,
  };
}

export interface RangeRequest {
  url: string;
  /** How messages (and the error's path) name the request when not by its URL: an s3:// name. */
  name?: string;
  /** What the request is for, shown after the name when there is no range ("listing page 3"). */
  purpose?: string;
  /** "bytes=a-b", or undefined for a plain GET. */
  range?: string;
  headers?: Readonly<Record<string, string>>;
  /** The caller's signal for this read (ReadOptions.signal); the policy's applies too. */
  signal?: AbortSignal;
  /** Counts payload bytes as they arrive (HttpSource.bytesFetched) and requests made. */
  counters: { bytesFetched: number; requests: number };
}

/** The body of one reply, read chunk by chunk under the idle timeout. */
export interface BodyReader {
  /** Exactly `length` bytes; more is a bad response, fewer a dropped connection. */
  exact(length: number): Promise<Uint8Array>;
  /** The whole body if it is at most `limit` bytes; `tooLarge()` is thrown past that. */
  upTo(limit: number, tooLarge: () => SourceError): Promise<Uint8Array>;
  /** Stops the transfer (the reply is not wanted). */
  discard(): Promise<void>;
}

export type Handler<T> = (response: Response, body: BodyReader, fail: Fail) => Promise<T>;
export type Fail = (reason: SourceErrorReason, message: string, status?: number) => SourceError;

/** Statuses worth another try: the server said "later" or broke, not "no". */
const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);
const MAX_BACKOFF = 5000;
/** Retry-After in seconds from the server, honoured up to the same cap. */
const retryAfter = new WeakMap<SourceError, number>();

/**
 * Runs `handle` on the reply, retrying retryable failures with backoff, all within the
 * policy's deadline: a retry that could not start before it is not made.
 */
export async function exchange<T>(
  policy: RequestPolicy,
  request: RangeRequest,
  handle: Handler<T>,
): Promise<T> {
  const deadlineAt = Date.now() + policy.deadline;
  for (let attempt = 0; ; attempt++) {
    try {
      return await attemptOnce(policy, request, handle, deadlineAt);
    } catch (error) {
      if (!(error instanceof SourceError) || !isRetryable(error) || attempt >= policy.retries) throw error;
      const base = Math.min(MAX_BACKOFF, policy.retryDelay * 2 ** attempt);
      // Full jitter over the upper half: clients retrying together spread out.
      const delay = Math.min(
        MAX_BACKOFF,
        Math.max(retryAfter.get(error) ?? 0, base * (0.5 + Math.random() / 2)),
      );
      if (Date.now() + delay >= deadlineAt) throw error;
      await sleep(delay, request, policy);
    }
  }
}

function isRetryable(error: SourceError): boolean {
  return error.reason === 'dropped' || (error.reason === 'http' && RETRYABLE_STATUS.has(error.status ?? 0));
}

function failFor(request: RangeRequest): Fail {
  const name = request.name ?? request.url;
  const what = request.range ?? request.purpose;
  const where = what ? ` (${what})` : '';
  return (reason, message, status) =>
    new SourceError(`${name}${where}: ${message}`, name, { reason, status, range: request.range });
}

async function attemptOnce<T>(
  policy: RequestPolicy,
  request: RangeRequest,
  handle: Handler<T>,
  deadlineAt: number,
): Promise<T> {
  const signals = [request.signal, policy.signal].filter((s): s is AbortSignal => s !== undefined);
  const fail = failFor(request);
  const callerAborted = () => signals.some((s) => s.aborted);
  if (callerAborted()) throw fail('aborted', 'read aborted');

  const controller = new AbortController();
  let timedOut = false;
  let pastDeadline = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // setTimeout takes at most 2^31-1 ms; a longer (or no) deadline needs no timer.
  const untilDeadline = deadlineAt - Date.now();
  const deadlineTimer =
    untilDeadline < 2 ** 31
      ? setTimeout(
          () => {
            pastDeadline = true;
            controller.abort();
          },
          Math.max(0, untilDeadline),
        )
      : undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, policy.idleTimeout);
  };
  const onAbort = () => controller.abort();
  for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
  // What a rejection from fetch or from the body stream means, decided by who stopped it.
  const failure = (cause: unknown): SourceError => {
    if (cause instanceof SourceError) return cause;
    let error: SourceError;
    if (callerAborted()) error = fail('aborted', 'read aborted');
    else if (pastDeadline)
      error = fail('timeout', `no complete reply within ${policy.deadline / 1000} s (deadline)`);
    else if (timedOut)
      error = fail('timeout', `no data from the server for ${policy.idleTimeout / 1000} s (idleTimeout)`);
    else error = fail('dropped', `connection failed or dropped: ${describe(cause)}`);
    (error as { cause?: unknown }).cause = cause;
    return error;
  };

  try {
    arm();
    request.counters.requests++;
    let response: Response;
    try {
      response = await policy.fetch(request.url, {
        headers: {
          ...policy.headers,
          ...request.headers,
          ...(request.range ? { Range: request.range } : {}),
        },
        signal: controller.signal,
      });
    } catch (cause) {
      throw failure(cause);
    }
    arm();
    const body = bodyReader(response, arm, fail, failure, request.counters);
    if (RETRYABLE_STATUS.has(response.status)) {
      await body.discard();
      const error = fail('http', `HTTP ${response.status} ${response.statusText}`.trim(), response.status);
      const after = Number(response.headers.get('retry-after'));
      if (Number.isFinite(after) && after >= 0) retryAfter.set(error, after * 1000);
      throw error;
    }
    return await handle(response, body, fail);
  } finally {
    clearTimeout(timer);
    clearTimeout(deadlineTimer);
    for (const s of signals) s.removeEventListener('abort', onAbort);
    // Ends whatever is still flowing (a discarded or refused body); a no-op after a full read.
    controller.abort();
  }
}

function bodyReader(
  response: Response,
  arm: () => void,
  fail: Fail,
  failure: (cause: unknown) => SourceError,
  counters: RangeRequest['counters'],
): BodyReader {
  const status = response.status;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const next = async (): Promise<Uint8Array | undefined> => {
    reader ??= response.body?.getReader();
    if (!reader) return undefined;
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (cause) {
      throw failure(cause);
    }
    if (chunk.done) return undefined;
    arm();
    counters.bytesFetched += chunk.value.byteLength;
    return chunk.value;
  };
  const discard = async () => {
    await (reader ?? response.body)?.cancel().catch(() => {});
  };
  return {
    discard,
    async exact(length) {
      const out = new Uint8Array(length);
      let filled = 0;
      for (let chunk = await next(); chunk; chunk = await next()) {
        if (filled + chunk.byteLength > length) {
          await discard();
          throw fail('bad-response', `server sent more than the ${length} bytes asked for`, status);
        }
        out.set(chunk, filled);
        filled += chunk.byteLength;
      }
      if (filled < length)
        throw fail('dropped', `connection closed after ${filled} of ${length} bytes`, status);
      return out;
    },
    async upTo(limit, tooLarge) {
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (let chunk = await next(); chunk; chunk = await next()) {
        total += chunk.byteLength;
        if (total > limit) {
          await discard();
          throw tooLarge();
        }
        chunks.push(chunk);
      }
      const out = new Uint8Array(total);
      let pos = 0;
      for (const chunk of chunks) {
        out.set(chunk, pos);
        pos += chunk.byteLength;
      }
      return out;
    },
  };
}

function sleep(ms: number, request: RangeRequest, policy: RequestPolicy): Promise<void> {
  const signals = [request.signal, policy.signal].filter((s): s is AbortSignal => s !== undefined);
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      for (const s of signals) s.removeEventListener('abort', stop);
    };
    const stop = () => {
      done();
      reject(failFor(request)('aborted', 'read aborted'));
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    for (const s of signals) {
      if (s.aborted) return stop();
      s.addEventListener('abort', stop, { once: true });
    }
  });
}

function describe(cause: unknown): string {
  const error = cause as { message?: string; cause?: { message?: string; code?: string } };
  const inner = error?.cause?.code ?? error?.cause?.message;
  return `${error?.message ?? String(cause)}${inner ? ` (${inner})` : ''}`;
}
