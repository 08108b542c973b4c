import {
  type ColumnBatch,
  type DataRecord,
  type FormatReader,
  Phase,
  type Problem,
  type ProblemList,
  type ReadOptions,
  type RecordOptions,
  readExact,
  type Schema,
  throwIfAborted,
  type Value,
} from '@binscope/core';
import { concatBytes } from '@binscope/core/binary';
import { Message, type RecordBatch, RecordBatchReader, type Schema as ArrowSchema } from 'apache-arrow';
import type { ArrowLayout, Block } from './layout.js';
import { asFormatError, checkBody, frame, type MessageBlock, readMessage } from './message.js';
import { coreSchema } from './schema-in.js';
import { ColumnReader } from './values.js';

/** The end-of-stream marker that closes the in-memory stream a batch is decoded from. */
const EOS = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0);

/**
 * An opened Arrow IPC file or stream: the schema and the blocks, nothing else read. A batch is
 * read when asked: its bytes (and the dictionaries it refers to) are read through the source,
 * checked, and decoded by apache-arrow from an in-memory stream of just those messages, so
 * memory holds one batch whatever the file's size.
 */
export class ArrowReader implements FormatReader {
  readonly schema: Schema;
  readonly arrowSchema: ArrowSchema;
  readonly warnings: Problem[] = [];
  private readonly columns: ColumnReader[];
  private schemaBytes: Uint8Array | undefined;
  private readonly dictionaryBytes = new Map<number, Uint8Array>();

  constructor(
    readonly format: string,
    readonly layout: ArrowLayout,
    private readonly problems: ProblemList,
  ) {
    this.arrowSchema = layout.schema as ArrowSchema;
    this.schema = coreSchema(this.arrowSchema);
    this.columns = this.arrowSchema.fields.map((f) => new ColumnReader(f));
  }

  get name(): string {
    return this.layout.source.name;
  }

  get batchCount(): number {
    return this.layout.batches.length;
  }

  /** The message of batch `index`, checked against its block (a file's footer must agree with it). */
  async batchMessage(index: number, problems = this.problems): Promise<MessageBlock> {
    const block = this.layout.batches[index];
    const message = await this.message(block, 'record batch', index, problems);
    this.layout.rows[index] = message.rows;
    return message;
  }

  private async message(
    block: Block,
    what: string,
    index: number,
    problems: ProblemList,
  ): Promise<MessageBlock> {
    const end = block.offset + block.metaLength + block.bodyLength;
    const message = await readMessage(this.layout.source, block.offset, end, problems);
    if (!message)
      throw problems.error('InvalidValue', `${what} ${index} is an end-of-stream marker`, {
        offset: block.offset,
        phase: Phase.reference,
      });
    if (message.metaLength !== block.metaLength || message.bodyLength !== block.bodyLength)
      throw problems.error(
        'CountMismatch',
        `${what} ${index}: the footer says ${block.metaLength} + ${block.bodyLength} bytes, the message ${message.metaLength} + ${message.bodyLength}`,
        { offset: block.offset, phase: Phase.reference },
      );
    checkBody(message, problems);
    return message;
  }

  /** Rows of batch `index` (a file's batches are counted from their messages, once). */
  async batchRows(index: number, options: ReadOptions = {}): Promise<number> {
    throwIfAborted(options.signal);
    return this.layout.rows[index] ?? (await this.batchMessage(index)).rows;
  }

  async rowCount(options: ReadOptions = {}): Promise<number> {
    let total = 0;
    for (let i = 0; i < this.batchCount; i++) total += await this.batchRows(i, options);
    return total;
  }

  /** Batch `index` decoded. */
  async batch(index: number, problems = this.problems): Promise<RecordBatch> {
    const block = this.layout.batches[index];
    await this.batchMessage(index, problems);
    const body = await readExact(this.layout.source, block.offset, block.metaLength + block.bodyLength, {
      format: problems.format,
      what: `record batch ${index}`,
    });
    const dictionaries = await this.dictionariesBefore(block.offset, problems);
    try {
      const reader = RecordBatchReader.from(concatBytes([this.schemaMessage(), ...dictionaries, body, EOS]));
      for (const batch of reader) return batch;
    } catch (error) {
      throw asFormatError(error, `record batch ${index} cannot be decoded`, block.offset, problems);
    }
    throw problems.error('InvalidValue', `record batch ${index} decodes to nothing`, {
      offset: block.offset,
      phase: Phase.payload,
    });
  }

  /** The schema as a stream's first message: a file's footer schema, encoded once. */
  private schemaMessage(): Uint8Array {
    this.schemaBytes ??= frame(Message.encode(Message.from(this.arrowSchema)));
    return this.schemaBytes;
  }

  /**
   * The dictionary messages a batch at `offset` may refer to: all of a file's (the file format
   * allows no replacement), those before it in a stream. Read once and kept: dictionaries are
   * what every batch shares.
   */
  private async dictionariesBefore(offset: number, problems: ProblemList): Promise<Uint8Array[]> {
    const out: Uint8Array[] = [];
    for (const [i, block] of this.layout.dictionaries.entries()) {
      if (this.layout.kind === 'stream' && block.offset > offset) break;
      let bytes = this.dictionaryBytes.get(i);
      if (!bytes) {
        await this.message(block, 'dictionary batch', i, problems);
        const read = await readExact(this.layout.source, block.offset, block.metaLength + block.bodyLength, {
          format: problems.format,
          what: `dictionary batch ${i}`,
        });
        bytes = read.slice();
        this.dictionaryBytes.set(i, bytes);
      }
      out.push(bytes);
    }
    return out;
  }

  /** Records from `offset`, batch by batch; `columns` picks and orders the fields. */
  async *records(options: RecordOptions = {}): AsyncGenerator<DataRecord> {
    const wanted = this.wanted(options.columns);
    for await (const { batch, first, from, to } of this.batchWindows(options)) {
      const vectors = wanted.map((i) => batch.getChildAt(i));
      for (let r = from; r < to; r++) {
        const values: Record<string, Value> = {};
        for (const [k, i] of wanted.entries()) {
          const vector = vectors[k];
          values[this.schema.fields[i].name] = vector ? this.columns[i].value(vector, r) : null;
        }
        yield { index: first + r, values };
      }
    }
  }

  /**
   * The same records as column runs, one a record batch: a column of plain numbers without
   * nulls is the batch's own typed array (no copy), any other each value as records() gives it.
   */
  async *columnRuns(options: RecordOptions = {}): AsyncGenerator<ColumnBatch> {
    const wanted = this.wanted(options.columns);
    for await (const { batch, first, from, to } of this.batchWindows(options)) {
      const columns: Record<string, ArrayLike<Value>> = {};
      for (const i of wanted)
        columns[this.schema.fields[i].name] = this.columns[i].values(batch.getChildAt(i), from, to);
      yield { offset: first + from, rows: to - from, columns };
    }
  }

  /** Field indexes of `columns` (default: all), refusing a name the schema lacks. */
  private wanted(columns: readonly string[] | undefined): number[] {
    return (columns ?? this.schema.fields.map((f) => f.name)).map((name) => {
      const index = this.schema.fields.findIndex((f) => f.name === name);
      if (index < 0)
        throw new RangeError(
          `${this.name}: no field ${JSON.stringify(name)}; fields: ${this.schema.fields.map((f) => f.name).join(', ')}`,
        );
      return index;
    });
  }

  /** Each batch holding records of the window `offset`/`limit`, with its rows [from, to) in it. */
  private async *batchWindows(
    options: RecordOptions,
  ): AsyncGenerator<{ batch: RecordBatch; first: number; from: number; to: number }> {
    let skip = Math.max(0, options.offset ?? 0);
    let left = options.limit ?? Number.POSITIVE_INFINITY;
    let first = 0;
    for (let b = 0; b < this.batchCount && left > 0; b++) {
      const rows = await this.batchRows(b, options);
      if (skip >= rows) {
        skip -= rows;
        first += rows;
        continue;
      }
      const batch = await this.batch(b);
      const to = Math.min(batch.numRows, skip + left);
      if (to > skip) yield { batch, first, from: skip, to };
      left -= Math.max(0, to - skip);
      skip = 0;
      first += rows;
      throwIfAborted(options.signal);
    }
  }

  /** Where record `index` is: its batch's bytes. */
  async locate(index: number, options: ReadOptions = {}): Promise<(Block & { batch: number }) | undefined> {
    let first = 0;
    for (let b = 0; b < this.batchCount; b++) {
      const rows = await this.batchRows(b, options);
      if (index < first + rows) return { ...this.layout.batches[b], batch: b };
      first += rows;
    }
    return undefined;
  }
}
