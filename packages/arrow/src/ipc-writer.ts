import type { ByteSink } from '@binscope/core';
import { concatBytes } from '@binscope/core/binary';
import {
  Message,
  type RecordBatch,
  RecordBatchFileWriter,
  RecordBatchStreamWriter,
  type RecordBatchWriter,
  type Schema,
} from 'apache-arrow';

/**
 * apache-arrow's file writer starts the file with the magic alone and keeps the schema for the
 * footer. The format's text puts a whole stream (schema message first) between the magic and
 * the footer, and readers that scan the file as a stream expect it there: write it.
 */
class ConformingFileWriter extends RecordBatchFileWriter {
  protected override _writeSchema(schema: Schema): this {
    this._writeMagic()._writePadding(2);
    return this._writeMessage(Message.from(schema));
  }
}

const IDLE = Symbol('idle');
const idle = Promise.resolve(IDLE);

/**
 * An IPC writer whose bytes go to a ByteSink as they are made. apache-arrow queues what
 * `write` produces in the writer itself (read back through its async iterator); after each
 * batch this takes what is queued and writes it out, so the queue never holds more than one
 * batch. The queue's `next()` answers with an already-settled promise while it holds bytes:
 * raced against a settled `idle`, it wins exactly when bytes are waiting, and a pending one
 * is kept for the next drain (it receives the first chunk written after it).
 */
export class SinkWriter {
  private readonly writer: RecordBatchWriter;
  private readonly chunks: AsyncIterator<Uint8Array>;
  private pending: Promise<IteratorResult<Uint8Array>> | undefined;
  /** Bytes handed to the sink. */
  written = 0;

  constructor(
    kind: 'file' | 'stream',
    schema: Schema,
    private readonly sink: ByteSink,
  ) {
    this.writer = kind === 'file' ? new ConformingFileWriter() : new RecordBatchStreamWriter();
    this.chunks = this.writer[Symbol.asyncIterator]();
    // Starts the output with the schema, so a table of no rows is still a whole file.
    this.writer.reset(undefined, schema);
  }

  async write(batch: RecordBatch): Promise<void> {
    this.writer.write(batch);
    await this.drain(false);
  }

  /** Ends the output (the stream's end marker; the file's footer and closing magic) and writes it. */
  async close(): Promise<void> {
    this.writer.finish();
    await this.drain(true);
  }

  /** Writes the queued bytes as one piece; with `all`, until the writer's queue is closed. */
  private async drain(all: boolean): Promise<void> {
    const parts: Uint8Array[] = [];
    for (;;) {
      const next = this.pending ?? this.chunks.next();
      this.pending = undefined;
      const result = all ? await next : await Promise.race([next, idle]);
      if (result === IDLE) {
        this.pending = next;
        break;
      }
      if (result.done) break;
      parts.push(result.value);
    }
    if (parts.length === 0) return;
    const bytes = parts.length === 1 ? parts[0] : concatBytes(parts);
    await this.sink.write(bytes);
    this.written += bytes.byteLength;
  }
}
