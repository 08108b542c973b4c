import {
  type ColumnBatch,
  type ConvertOptions,
  type DataRecord,
  type ErrorCode,
  type Field,
  FormatError,
  isBinscopeError,
  type NumericArray,
  type RecordsInput,
  type Schema,
  type TabularField,
  type TabularOptions,
  type TabularValue,
  tabularField,
  tabularValue,
  throwIfAborted,
  type Value,
} from '@binscope/core';
import type { ByteSink } from '@binscope/core/binary';
import { gzipSync } from 'fflate';
import { type ColumnSource, ParquetWriter } from 'hyparquet-writer';
import { type ChunkOptions, writeChunk } from './column-chunk.js';
import { type FastColumn, fastColumn, isOwnTabularValue } from './fast-column.js';
import { ValueError } from './leaves.js';
import { SinkWriter } from './sink-writer.js';
import { snappyCompress } from './snappy.js';
import { approximateSize, columnValue } from './write-values.js';
import { keyValueMetadata, writeSchema } from './write-schema.js';

/**
 * A row group closes when its values pass this many bytes (or `--row-group-size` rows), each
 * row's value of a column counted as its bytes plus VALUE_OVERHEAD. That is about what
 * hyparquet-writer holds for a value of the columns it writes (levels, a dictionary, converted
 * copies), and what a reader that turns a row group into records holds for it: binscope's own
 * reads a group of this size fastest (a 200,000-row group of the SCBF bench table reads ~15%
 * slower than six). The column writer's typed arrays hold far less, so the export itself stays
 * well within this.
 */
export const ROW_GROUP_BYTES = 16 << 20;
/** What a row's value takes besides its bytes, in hyparquet-writer and in a reader, roughly. */
const VALUE_OVERHEAD = 64;
/** And at this many rows when no size is given: past it, readers gain little from larger groups. */
export const ROW_GROUP_ROWS = 1_000_000;

export interface ExportedTable {
  rows: number;
  columns: number;
  rowGroups: number;
  /** The file's path in a folder export. */
  path?: string;
}

type CompressionCodec = NonNullable<ConstructorParameters<typeof ParquetWriter>[0]['codec']>;
type Compressors = NonNullable<ConstructorParameters<typeof ParquetWriter>[0]['compressors']>;

const CODECS: Record<string, CompressionCodec> = { snappy: 'SNAPPY', gzip: 'GZIP', none: 'UNCOMPRESSED' };

function codecOf(options: ConvertOptions): CompressionCodec {
  const name = options.values?.compression ?? 'snappy';
  const codec = CODECS[String(name)];
  if (!codec)
    throw new FormatError('InvalidValue', `--compression ${name}: one of ${Object.keys(CODECS).join(', ')}`);
  return codec;
}

function rowLimit(options: ConvertOptions): number {
  const size = options.values?.rowGroupSize;
  if (size === undefined) return ROW_GROUP_ROWS;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1)
    throw new FormatError('InvalidValue', `--row-group-size ${size}: a whole number of rows, at least 1`);
  return size;
}

/**
 * Writes the records of `chosen` (the main records or one table of `input`) to `sink` as one
 * Parquet file, a row group at a time: values are gathered column by column until the group
 * is full, encoded, and drained to the sink before more records are read, so memory holds one
 * row group whatever the table's size. Every value is core's tabularValue of the record's, the
 * one mapping every columnar export shares (numbers, bools, strings, bytes and lists of them
 * are their own, so those skip the call).
 */
export async function writeParquet(
  input: RecordsInput,
  chosen: { table?: string; schema: Schema; count?: number },
  sink: ByteSink,
  options: ConvertOptions,
  tabular: TabularOptions,
): Promise<ExportedTable> {
  const fields = chosen.schema.fields;
  const columns = fields.map((f) => tabularField(f, tabular));
  const codec = codecOf(options);
  const compressors: Compressors = { SNAPPY: snappyCompress, GZIP: (bytes) => gzipSync(bytes) };
  const out = new SinkWriter(sink);
  const writer = new ParquetWriter({
    writer: out,
    schema: writeSchema(columns),
    codec,
    compressors,
    kvMetadata: keyValueMetadata(columns, { format: input.format, table: chosen.table }),
    createdBy: 'binscope (hyparquet-writer)',
  });
  const chunkOptions: ChunkOptions = { writer: out, codec, compress: compressors[codec] };
  const limit = rowLimit(options);
  const where = { file: input.name, format: input.format };
  const group = new RowGroup(fields, columns, tabular, where);
  let rows = 0;
  let rowGroups = 0;
  const flush = async () => {
    if (group.rows === 0) return;
    throwIfAborted(options.signal);
    await encoding(where, () => group.write(writer, chunkOptions));
    rowGroups++;
    options.onProgress?.({ phase: 'export', done: rows, total: chosen.count, unit: 'items' });
  };
  const runs = await input.columns?.({ table: chosen.table, signal: options.signal });
  if (runs) {
    for await (const batch of runs) {
      for (let at = 0; at < batch.rows; ) {
        const added = group.addRun(batch, at, limit);
        at += added;
        rows += added;
        if (group.full(limit)) await flush();
      }
    }
  } else {
    for await (const record of input.records({ table: chosen.table, signal: options.signal })) {
      group.add(record);
      rows++;
      if (group.full(limit)) await flush();
    }
  }
  await flush();
  await encoding(where, () => writer.finish());
  return { rows, columns: columns.length, rowGroups };
}

/** The encoder's own errors (a value it cannot write) as a typed error naming the input. */
async function encoding(
  where: { file: string; format: string },
  run: () => void | Promise<void>,
): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (isBinscopeError(error)) throw error;
    throw new FormatError('InvalidValue', `Parquet cannot hold a value: ${(error as Error).message}`, where, {
      cause: error,
    });
  }
}

type RowGroupMeta = ParquetWriter['row_groups'][number];

/** "record 7", or "one of records 0–63" for a run. */
function rowsNamed(first: number, count: number): string {
  return count === 1 ? `record ${first}` : `one of records ${first}–${first + count - 1}`;
}

function isTypedArray(values: ArrayLike<Value | undefined> | undefined): values is NumericArray {
  return ArrayBuffer.isView(values) && !(values instanceof DataView);
}

/**
 * The values of one row group, column by column. A column of numbers, bools, strings or bytes,
 * or a list of them, gathers into typed arrays (FastColumn) and is written by column-chunk.ts;
 * any other (structs, lists of lists, float16) gathers as hyparquet-writer takes values and is
 * written by it, into the same row group.
 */
class RowGroup {
  rows = 0;
  /** Bytes of the values gathered for hyparquet-writer (the fast columns count their own). */
  private slowBytes = 0;
  /** The row count at which `full` next adds up the bytes. */
  private nextCheck = 1;
  private readonly fast: (FastColumn | undefined)[];
  /** Whether a fast column's values are their own tabular values (no tabularValue call needed). */
  private readonly own: boolean[];
  private slow: unknown[][];

  constructor(
    private readonly fields: readonly Field[],
    private readonly columns: readonly TabularField[],
    private readonly tabular: TabularOptions,
    private readonly where: { file: string; format: string },
  ) {
    this.fast = columns.map((c) => fastColumn(c.type, c.nullable));
    this.own = fields.map((f, i) => this.fast[i] !== undefined && isOwnTabularValue(f.type));
    this.slow = fields.map(() => []);
  }

  add(record: DataRecord): void {
    // A record standing in for one the reader could not read carries the reader's own error.
    if (record.problem)
      throw new FormatError(record.problem.code as ErrorCode, record.problem.message, record.problem);
    for (let i = 0; i < this.fields.length; i++)
      this.addValue(i, record.values[this.fields[i].name], record.index);
    this.rows++;
  }

  /**
   * Rows of a column batch from `from` on, up to the next byte check (so row groups end where
   * the same records would end them) and the row limit: how many were added. A typed array of
   * a column the column writer takes is copied in one call; other columns go value by value.
   */
  addRun(batch: ColumnBatch, from: number, limit: number): number {
    const n = Math.min(batch.rows - from, Math.max(1, this.nextCheck - this.rows), limit - this.rows);
    for (let i = 0; i < this.fields.length; i++) {
      const values = batch.columns[this.fields[i].name];
      const fast = this.fast[i];
      if (fast && this.own[i] && isTypedArray(values)) {
        this.addFastRun(fast, values.subarray(from, from + n), batch.offset + from, i);
        continue;
      }
      for (let k = from; k < from + n; k++) this.addValue(i, values?.[k], batch.offset + k);
    }
    this.rows += n;
    return n;
  }

  /** Column `i`'s value of record `index` (`raw` as the record holds it). */
  private addValue(i: number, raw: Value | undefined, index: number): void {
    const field = this.fields[i];
    const value = this.own[i] ? (raw ?? null) : tabularValue(raw, field.type, this.tabular);
    if (value === null && !this.columns[i].nullable)
      throw new FormatError(
        'InvalidValue',
        `record ${index}: ${field.name} is null, but its schema says it is never null`,
        this.where,
      );
    const fast = this.fast[i];
    if (fast) this.addFast(fast, value, index, field.name);
    else {
      this.slow[i].push(columnValue(value as TabularValue, this.columns[i].type));
      this.slowBytes += approximateSize(value as TabularValue) + VALUE_OVERHEAD;
    }
  }

  private addFastRun(column: FastColumn, values: NumericArray, first: number, i: number): void {
    try {
      column.addRun(values);
    } catch (error) {
      this.refused(error, rowsNamed(first, values.length), this.fields[i].name);
    }
  }

  /** The column writer's ValueError as a typed error naming the record(s) and field; others as they are. */
  private refused(error: unknown, rows: string, name: string): never {
    if (!(error instanceof ValueError)) throw error;
    throw new FormatError(
      'InvalidValue',
      `Parquet cannot hold a value: ${rows}: ${name}: ${error.message}`,
      this.where,
    );
  }

  /**
   * Whether the group has `limit` rows or ROW_GROUP_BYTES of values. The bytes are added up
   * only every so many rows: next when the rows so far, at their average size, could have
   * taken half the budget left, and at least every 64 rows.
   */
  full(limit: number): boolean {
    if (this.rows >= limit) return true;
    if (this.rows < this.nextCheck) return false;
    let bytes = this.slowBytes;
    for (const column of this.fast) if (column) bytes += column.memory() + column.rows * VALUE_OVERHEAD;
    if (bytes >= ROW_GROUP_BYTES) return true;
    const perRow = Math.max(1, bytes / this.rows);
    this.nextCheck =
      this.rows + Math.max(1, Math.min(64, Math.floor((ROW_GROUP_BYTES - bytes) / 2 / perRow)));
    return false;
  }

  private addFast(column: FastColumn, value: unknown, index: number, name: string): void {
    try {
      column.add(value);
    } catch (error) {
      this.refused(error, `record ${index}`, name);
    }
  }

  /**
   * Writes the group's columns in order (a run of hyparquet-writer's columns through its
   * `write`, whose row group is then taken apart into this one), adds the row group to the
   * writer's footer and drains the bytes to the sink; the group starts over empty.
   */
  async write(writer: ParquetWriter, options: ChunkOptions): Promise<void> {
    const start = options.writer.offset;
    const chunks: RowGroupMeta['columns'] = [];
    for (let i = 0; i < this.columns.length; ) {
      const fast = this.fast[i];
      if (fast) {
        const name = this.columns[i].name;
        const written = writeChunk(fast, fast.maxRep > 0 ? [name, 'list', 'element'] : [name], options);
        writer.pendingIndexes.push(written);
        chunks.push(written.chunk);
        i++;
        continue;
      }
      let end = i + 1;
      while (end < this.columns.length && !this.fast[end]) end++;
      chunks.push(...(await this.writeSlow(writer, i, end)));
      i = end;
    }
    if (chunks.length > 0) {
      let size = 0n;
      for (const c of chunks) size += c.meta_data?.total_uncompressed_size ?? 0n;
      writer.row_groups.push({
        columns: chunks,
        total_byte_size: size,
        num_rows: BigInt(this.rows),
        total_compressed_size: BigInt(options.writer.offset - start),
      });
      writer.num_rows += BigInt(this.rows);
    }
    this.clear();
    await options.writer.flush();
  }

  /** Columns [from, to) through hyparquet-writer: their chunks, out of the row group it made. */
  private async writeSlow(writer: ParquetWriter, from: number, to: number): Promise<RowGroupMeta['columns']> {
    const rows = writer.num_rows;
    const columnData: ColumnSource[] = [];
    for (let i = from; i < to; i++) columnData.push({ name: this.columns[i].name, data: this.slow[i] });
    await writer.write({ columnData, rowGroupSize: Number.MAX_SAFE_INTEGER });
    const group = writer.row_groups.pop();
    writer.num_rows = rows;
    return group?.columns ?? [];
  }

  private clear(): void {
    for (const column of this.fast) column?.clear();
    this.slow = this.fields.map(() => []);
    this.rows = 0;
    this.slowBytes = 0;
    this.nextCheck = 1;
  }
}
