import { type ByteSource, FormatError, formatErrors, readExact } from '@binscope/core';
import { toTypedArray } from '@binscope/core/binary';
import { Inflate } from 'pako';
import { FORMAT, type ScbfBlock, type ScbfColumn, TYPE_WIDTH } from './layout.js';
import { type MismatchSink, stringsCap, stringsEndError, strUncompMismatch } from './s4.js';
import { Utf8Column } from './utf8.js';

/**
 * Streaming decode of columns, a batch of rows at a time, in bounded memory: what `records`,
 * SCBF → CSV and `validate` use, so a 10 GB file never needs a whole column in memory and
 * `head` stops after the first compressed chunk.
 */

/** Blocks up to this size are read and inflated whole (node:zlib in Node). */
const WHOLE_BLOCK_LIMIT = 4 << 20;
/** Compressed bytes read from the source at a time. */
const READ_CHUNK = 1 << 20;
/** Compressed bytes handed to the inflater at a time: bounds the output one push can make. */
const PUSH_CHUNK = 64 << 10;
const Z_SYNC_FLUSH = 2;
/** Thrown from onData to stop pako mid-push once a block runs past its declared size. */
const RUNS_LONG = Symbol('runs-long');

/**
 * Inflates one block whole. Without `upTo` its length must equal the declared size; with it,
 * the declared size is not trusted (S4) and a block longer than `upTo` comes back undefined.
 */
export type WholeBlockReader = (
  block: ScbfBlock,
  column: ScbfColumn,
  upTo?: number,
) => Promise<Uint8Array | undefined>;

const blockError = formatErrors(FORMAT);

/**
 * One block's inflated bytes, handed out in exact amounts. With `limit` the declared size is
 * only a hint (S4's strings block): output may be any length up to `limit`, and the caller
 * checks the total (`drain`).
 */
export class BlockStream {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Inflated bytes produced so far. */
  private produced = 0;
  private inflater: Inflate | undefined;
  private input: Uint8Array = new Uint8Array(0);
  private inputPos = 0;
  private compressedPos = 0;
  private ended = false;
  private started = false;

  constructor(
    private readonly source: ByteSource,
    readonly column: ScbfColumn,
    readonly block: ScbfBlock,
    private readonly readWhole: WholeBlockReader,
    private readonly signal?: AbortSignal,
    private readonly limit?: number,
  ) {}

  /** The most bytes this block may inflate to. */
  private get cap(): number {
    return this.limit ?? this.block.uncompressedSize;
  }

  /** The inflated length once the whole block has been inflated, else undefined. */
  get knownLength(): number | undefined {
    return this.ended ? this.produced : undefined;
  }

  /** Starts inflating (a small block is then inflated whole, so its length is known). */
  async begin(): Promise<void> {
    if (!this.started) await this.pull();
  }

  private what(): string {
    return `column "${this.column.name}" ${this.block.role} block`;
  }

  /** Exactly `n` more bytes (a fresh or aligned-safe view; copy to keep). */
  async take(n: number): Promise<Uint8Array> {
    if (n === 0) return new Uint8Array(0);
    while (this.pendingBytes < n && !this.ended) await this.pull();
    if (this.pendingBytes < n) {
      if (this.limit !== undefined) {
        throw blockError(
          'CountMismatch',
          `column "${this.column.name}" offsets run past the end of its strings block, which inflates to ${this.produced} bytes (S4)`,
          this.block.fieldOffset,
          this.source.name,
        );
      }
      throw blockError(
        'CountMismatch',
        `${this.what()} inflates to ${this.produced} bytes, but uncomp_size declares ${this.block.uncompressedSize}`,
        this.block.fieldOffset,
        this.source.name,
      );
    }
    if (this.pending[0].byteLength >= n) {
      const head = this.pending[0];
      const out = head.subarray(0, n);
      if (head.byteLength === n) this.pending.shift();
      else this.pending[0] = head.subarray(n);
      this.pendingBytes -= n;
      return out;
    }
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const head = this.pending[0];
      const k = Math.min(head.byteLength, n - filled);
      out.set(head.subarray(0, k), filled);
      filled += k;
      if (k === head.byteLength) this.pending.shift();
      else this.pending[0] = head.subarray(k);
    }
    this.pendingBytes -= n;
    return out;
  }

  /** Inflates to the end, dropping what was not taken; returns the inflated length. */
  async drain(): Promise<number> {
    while (!this.ended) {
      await this.pull();
      this.pending = [];
      this.pendingBytes = 0;
    }
    return this.produced;
  }

  /** Inflates to the end and checks the total against uncomp_size (S5). */
  async finish(): Promise<void> {
    await this.drain();
    if (this.produced !== this.block.uncompressedSize) {
      throw blockError(
        'CountMismatch',
        `${this.what()} inflates to ${this.produced} bytes, but uncomp_size declares ${this.block.uncompressedSize}`,
        this.block.fieldOffset,
        this.source.name,
      );
    }
  }

  private async pull(): Promise<void> {
    this.signal?.throwIfAborted();
    if (!this.started) {
      this.started = true;
      if (this.block.uncompressedSize <= WHOLE_BLOCK_LIMIT) {
        // readWhole checks the inflated length itself. A block not held to its declared size
        // that turns out longer than that is streamed instead, so memory stays bounded.
        const upTo = this.limit === undefined ? undefined : Math.min(this.limit, this.block.uncompressedSize);
        const bytes = await this.readWhole(this.block, this.column, upTo);
        if (bytes) {
          this.produced = bytes.byteLength;
          if (bytes.byteLength) this.pending.push(bytes);
          this.pendingBytes = bytes.byteLength;
          this.ended = true;
          return;
        }
      }
      this.inflater = new Inflate({ windowBits: 15, chunkSize: 256 << 10 });
      this.inflater.onData = (chunk: Uint8Array) => {
        this.produced += chunk.byteLength;
        // Past the cap: stop inside this push (a bomb's next chunks are never made).
        if (this.produced > this.cap) throw RUNS_LONG;
        this.pending.push(chunk);
        this.pendingBytes += chunk.byteLength;
      };
      this.inflater.onEnd = () => {};
    }
    await this.step();
  }

  /** Feeds the inflater one slice of compressed input. */
  private async step(): Promise<void> {
    const inflater = this.inflater!;
    if (this.inputPos >= this.input.byteLength) {
      const left = this.block.compressedSize - this.compressedPos;
      if (left === 0) {
        // All compressed bytes given and the stream has not ended: it is cut short.
        this.push(new Uint8Array(0), true);
        this.ended = true;
        return;
      }
      const n = Math.min(READ_CHUNK, left);
      this.input = await readExact(this.source, this.block.offset + this.compressedPos, n, {
        format: FORMAT,
        what: this.what(),
        signal: this.signal,
      });
      this.compressedPos += n;
      this.inputPos = 0;
    }
    const slice = this.input.subarray(this.inputPos, this.inputPos + PUSH_CHUNK);
    this.inputPos += slice.byteLength;
    this.push(slice, false);
    if (inflater.ended) this.ended = true;
  }

  private push(bytes: Uint8Array, final: boolean): void {
    const inflater = this.inflater!;
    try {
      inflater.push(bytes, final ? true : Z_SYNC_FLUSH);
    } catch (error) {
      if (error !== RUNS_LONG) throw error;
      // As inflateBlock: the first defect in stream order wins, and output past uncomp_size
      // comes before anything later in the stream.
      throw blockError(
        'CountMismatch',
        this.limit === undefined
          ? `${this.what()} inflates to more than the ${this.block.uncompressedSize} bytes uncomp_size declares`
          : `${this.what()} inflates to more than ${this.limit} bytes, more than u32 offsets can address`,
        this.block.fieldOffset,
        this.source.name,
      );
    }
    if (inflater.err) {
      throw blockError(
        'DecompressError',
        `${this.what()} is not a valid zlib stream (${inflater.msg || `zlib error ${inflater.err}`})`,
        this.block.offset,
        this.source.name,
      );
    }
  }
}

export type BatchValues = Int32Array | Float64Array | Utf8Column;

/** Decodes a column's values in order, a batch at a time, checking S4 as it goes. */
export interface ColumnDecoder {
  readonly column: ScbfColumn;
  next(rows: number): Promise<BatchValues>;
  skip(rows: number): Promise<void>;
  /** Reads to the end of every block and checks the totals (for validate). */
  finish(): Promise<void>;
}

export function columnDecoder(
  source: ByteSource,
  column: ScbfColumn,
  readWhole: WholeBlockReader,
  signal?: AbortSignal,
  onMismatch?: MismatchSink,
): ColumnDecoder {
  if (column.type === 'utf8') return new Utf8Decoder(source, column, readWhole, signal, onMismatch);
  return new NumericDecoder(source, column, readWhole, signal);
}

/** Rows skipped per step, so skipping a million rows never holds them all. */
const SKIP_STEP = 65536;

class NumericDecoder implements ColumnDecoder {
  private readonly stream: BlockStream;
  private readonly width: number;
  constructor(
    source: ByteSource,
    readonly column: ScbfColumn,
    readWhole: WholeBlockReader,
    signal?: AbortSignal,
  ) {
    this.stream = new BlockStream(source, column, column.blocks[0], readWhole, signal);
    this.width = TYPE_WIDTH[column.type as 'int32' | 'float64'];
  }
  async next(rows: number): Promise<BatchValues> {
    const bytes = await this.stream.take(rows * this.width);
    return toTypedArray(bytes, this.column.type === 'int32' ? 'i32' : 'f64') as Int32Array | Float64Array;
  }
  async skip(rows: number): Promise<void> {
    for (let left = rows; left > 0; left -= SKIP_STEP)
      await this.stream.take(Math.min(left, SKIP_STEP) * this.width);
  }
  finish(): Promise<void> {
    return this.stream.finish();
  }
}

class Utf8Decoder implements ColumnDecoder {
  private readonly offsets: BlockStream;
  private readonly strings: BlockStream;
  /** The offset where the next row starts (offsets[row]), once the first was read. */
  private previous = -1;
  private row = 0;
  constructor(
    private readonly source: ByteSource,
    readonly column: ScbfColumn,
    readWhole: WholeBlockReader,
    signal?: AbortSignal,
    private readonly onMismatch?: MismatchSink,
  ) {
    this.offsets = new BlockStream(source, column, column.blocks[0], readWhole, signal);
    // S4: str_uncomp_size is not trusted; the offsets say how long the strings are.
    const strings = column.blocks[1];
    this.strings = new BlockStream(source, column, strings, readWhole, signal, stringsCap(strings));
  }

  private async start(): Promise<void> {
    if (this.previous >= 0) return;
    const first = new DataView((await this.offsets.take(4)).slice().buffer).getUint32(0, true);
    if (first !== 0) {
      throw new FormatError(
        'InvalidValue',
        `column "${this.column.name}" offsets start at ${first}, not 0 (S4)`,
        {
          offset: this.column.blocks[0].offset,
          file: this.source.name,
          format: FORMAT,
        },
      );
    }
    this.previous = 0;
  }

  async next(rows: number): Promise<BatchValues> {
    await this.start();
    const raw = toTypedArray(await this.offsets.take(rows * 4), 'u32') as Uint32Array;
    const offsets = new Uint32Array(rows + 1);
    const base = this.previous;
    offsets[0] = 0;
    let prev = base;
    // A small strings block is inflated whole at once, so offsets past it are caught here;
    // a streamed one reports them when its bytes run out (take).
    await this.strings.begin();
    const stringsSize = this.strings.knownLength ?? Number.POSITIVE_INFINITY;
    for (let i = 0; i < rows; i++) {
      const value = raw[i];
      if (value > stringsSize && this.row + i + 1 < this.column.count) {
        throw new FormatError(
          'OutOfBounds',
          `column "${this.column.name}" offset ${value} at row ${this.row + i + 1} is past the strings block (${stringsSize} bytes)`,
          { offset: this.column.blocks[0].offset, file: this.source.name, format: FORMAT },
        );
      }
      if (value < prev) {
        throw new FormatError(
          'InvalidValue',
          `column "${this.column.name}" offsets decrease at row ${this.row + i + 1} (${prev} → ${value}) (S4)`,
          { offset: this.column.blocks[0].offset, file: this.source.name, format: FORMAT },
        );
      }
      offsets[i + 1] = value - base;
      prev = value;
    }
    const strings = this.column.blocks[1];
    const firstRow = this.row;
    this.row += rows;
    const bytes = await this.strings.take(prev - base);
    this.previous = prev;
    if (this.row === this.column.count) await this.checkEnd(prev);
    return new Utf8Column(offsets, bytes, {
      file: this.source.name,
      offset: strings.offset,
      column: this.column.name,
      firstRow,
    });
  }

  async skip(rows: number): Promise<void> {
    for (let left = rows; left > 0; left -= SKIP_STEP) await this.next(Math.min(left, SKIP_STEP));
  }

  /**
   * S4: the last offset is the strings block's inflated size; a str_uncomp_size that says
   * otherwise is the upstream writer's bug, a warning.
   */
  private async checkEnd(last: number): Promise<void> {
    const inflated = await this.strings.drain();
    if (last !== inflated) throw stringsEndError(this.column, last, inflated, this.source.name);
    const mismatch = strUncompMismatch(this.column, inflated);
    if (mismatch) this.onMismatch?.(mismatch);
  }

  async finish(): Promise<void> {
    await this.start();
    while (this.row < this.column.count) {
      const batch = (await this.next(Math.min(SKIP_STEP, this.column.count - this.row))) as Utf8Column;
      batch.validate();
    }
    if (this.column.count === 0) await this.checkEnd(0);
    await this.offsets.finish();
  }
}
