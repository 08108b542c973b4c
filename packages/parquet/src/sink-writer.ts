import type { ByteSink } from '@binscope/core/binary';
import { ByteWriter } from 'hyparquet-writer';

/** Bytes the encoder may hold before they are set aside for the sink (the buffer then restarts). */
const SPILL_AT = 1 << 20;
/** Chunks from this size on are handed to the sink as they are (see appendChunk). */
const HAND_OVER_AT = 16 << 10;

/**
 * hyparquet-writer's `Writer` over a core ByteSink. The encoder writes synchronously into a
 * small growing buffer; whenever that passes 1 MiB its bytes are set aside, and `flush()` (which
 * ParquetWriter calls after every row group, awaiting the promise before it encodes more) drains
 * them to the sink. Memory is then bounded by one encoded row group, whatever the file's size.
 * ParquetWriter only appends (the footer comes last), so the file streams to a pipe too.
 */
export class SinkWriter extends ByteWriter {
  private pending: Uint8Array[] = [];

  constructor(private readonly sink: ByteSink) {
    super(SPILL_AT);
  }

  override ensure(size: number): void {
    if (this.index > SPILL_AT) this.setAside();
    super.ensure(size);
  }

  /** Moves the buffered bytes out, so the buffer never grows past one spill plus one value. */
  private setAside(): void {
    if (this.index === 0) return;
    this.pending.push(new Uint8Array(this.buffer.slice(0, this.index)));
    this.index = 0;
  }

  /**
   * Appends bytes the caller hands over (a compressed page, never written to again): a large
   * chunk goes to the sink as it is, after the buffered bytes, instead of through the buffer.
   */
  appendChunk(bytes: Uint8Array): void {
    if (bytes.length < HAND_OVER_AT) {
      this.appendBytes(bytes);
      return;
    }
    this.setAside();
    this.pending.push(bytes);
    this.offset += bytes.length;
  }

  async flush(): Promise<void> {
    this.setAside();
    const chunks = this.pending;
    this.pending = [];
    for (const chunk of chunks) await this.sink.write(chunk);
  }

  override finish(): Promise<void> {
    return this.flush();
  }

  /** The whole file is never in memory: only the sink has it. */
  override getBuffer(): ArrayBuffer {
    throw new Error('SinkWriter streams to its sink; it holds no whole buffer');
  }

  override getBytes(): Uint8Array<ArrayBuffer> {
    throw new Error('SinkWriter streams to its sink; it holds no whole buffer');
  }
}
