import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { CliError, EXIT, systemErrorText } from './errors.js';
import { printable } from './printable.js';

/** Where a command writes: data to `stdout`, messages and progress to `stderr`. */
export interface CliStreams {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
}

const FLUSH_AT = 64 * 1024;

/**
 * Buffered stdout with backpressure: waits for 'drain' so a slow reader bounds memory, and
 * notices a closed pipe (`binscope cat big | head`) so the producer can stop reading.
 */
export class Output {
  private pending: string[] = [];
  private pendingLength = 0;
  /** The reader went away (EPIPE) or writing failed: stop producing. */
  closed = false;
  /** A write error other than a closed pipe, reported once the command ends. */
  error: NodeJS.ErrnoException | undefined;
  /** Something was written: a --json error must then go inside that document, not after it. */
  started = false;
  private failureThrown = false;

  constructor(readonly stream: CliStreams['stdout']) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      this.closed = true;
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') this.error ??= error;
    });
  }

  get isTTY(): boolean {
    return Boolean(this.stream.isTTY);
  }

  /**
   * The one-line error for a stdout that failed (a full disk, an I/O error). A reader that went
   * away (EPIPE: `| head`) is not one: the output stops quietly, as `cat`'s does.
   */
  failure(): CliError | undefined {
    if (!this.error || this.failureThrown) return undefined;
    return new CliError(`cannot write to stdout: ${systemErrorText(this.error)}`, EXIT.usage, {
      cause: this.error,
    });
  }

  /** Throws `failure()`, once: the command's error handler then reports it. */
  throwIfFailed(): void {
    const failure = this.failure();
    this.failureThrown ||= failure !== undefined;
    if (failure) throw failure;
  }

  get columns(): number {
    return this.stream.columns ?? 120;
  }

  /**
   * Writes a document as it is (JSON, JSONL, CSV: data whose own syntax escapes or quotes what
   * it holds). Text for people goes through `line`.
   */
  async write(text: string): Promise<void> {
    this.started = true;
    if (this.closed) return;
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= FLUSH_AT) await this.flush();
  }

  /** One line of text for people: control characters in it are shown escaped (printable.ts). */
  async line(text = ''): Promise<void> {
    await this.write(`${printable(text)}\n`);
  }

  /** Several lines (`text` split at its newlines), each as `line` prints it. */
  async lines(text: string): Promise<void> {
    for (const l of text.split('\n')) await this.line(l);
  }

  /**
   * A line whose parts from files were escaped by the caller (`printable`) and which carries
   * the CLI's own ANSI styles (the coloured marks of `inspect` on a terminal).
   */
  async styledLine(text: string): Promise<void> {
    await this.write(`${text}\n`);
  }

  async bytes(data: Uint8Array): Promise<void> {
    this.started = true;
    await this.flush();
    if (this.closed) return;
    await this.send(data);
  }

  async flush(): Promise<void> {
    if (this.pendingLength === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    if (!this.closed) await this.send(text);
  }

  private async send(chunk: string | Uint8Array): Promise<void> {
    if (this.stream.write(chunk)) return;
    // Wait for the reader; an 'error' (broken pipe) rejects `once` and ends the wait too.
    const stop = new AbortController();
    try {
      await Promise.race([
        once(this.stream, 'drain', { signal: stop.signal }),
        once(this.stream, 'close', { signal: stop.signal }),
      ]);
    } catch {
      this.closed = true;
    } finally {
      stop.abort();
    }
  }
}

/** Messages for a person: stderr, one line each. */
export class Messages {
  constructor(readonly stream: CliStreams['stderr']) {
    // A closed or failed stderr has no one left to tell: never crash over it.
    stream.on('error', () => {});
  }

  get isTTY(): boolean {
    return Boolean(this.stream.isTTY);
  }

  /** One line: control characters in it (from a file's names or bytes) are shown escaped. */
  line(text: string): void {
    this.stream.write(`${printable(text)}\n`);
  }

  /** Several lines (a --debug stack trace), each escaped as `line` does. */
  lines(text: string): void {
    for (const l of text.split('\n')) this.line(l);
  }
}
