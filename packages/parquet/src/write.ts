import {
  type ConvertOptions,
  type DataRecord,
  type ErrorCode,
  type Field,
  FormatError,
  isBinscopeError,
  type RecordsInput,
  type Schema,
  type TabularField,
  type TabularOptions,
  tabularField,
  tabularValue,
  throwIfAborted,
} from '@binscope/core';
import type { ByteSink } from '@binscope/core/binary';
import { gzipSync } from 'fflate';
import { type ColumnSource, ParquetWriter } from 'hyparquet-writer';
import { SinkWriter } from './sink-writer.js';
import { approximateSize, columnValue } from './write-values.js';
import { keyValueMetadata, writeSchema } from './write-schema.js';

/** A row group closes when its values pass this many bytes in memory (or `--row-group-size` rows). */
export const ROW_GROUP_BYTES = 32 << 20;
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
 * row group whatever the table's size. Every value goes through core's tabularValue, the one
 * mapping every columnar export shares.
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
  const writer = new ParquetWriter({
    writer: new SinkWriter(sink),
    schema: writeSchema(columns),
    codec: codecOf(options),
    compressors: { GZIP: (bytes) => gzipSync(bytes) },
    kvMetadata: keyValueMetadata(columns, { format: input.format, table: chosen.table }),
    createdBy: 'binscope (hyparquet-writer)',
  });
  const limit = rowLimit(options);
  const group = new RowGroup(fields, columns, tabular);
  const where = { file: input.name, format: input.format };
  let rows = 0;
  let rowGroups = 0;
  const flush = async () => {
    if (group.rows === 0) return;
    throwIfAborted(options.signal);
    await encoding(where, () =>
      writer.write({ columnData: group.take(), rowGroupSize: Number.MAX_SAFE_INTEGER }),
    );
    rowGroups++;
    options.onProgress?.({ phase: 'export', done: rows, total: chosen.count, unit: 'items' });
  };
  for await (const record of input.records({ table: chosen.table, signal: options.signal })) {
    group.add(record, where);
    rows++;
    if (group.rows >= limit || group.bytes >= ROW_GROUP_BYTES) await flush();
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

/** The values of one row group, column by column, as the writer takes them. */
class RowGroup {
  rows = 0;
  bytes = 0;
  private data: unknown[][];

  constructor(
    private readonly fields: readonly Field[],
    private readonly columns: readonly TabularField[],
    private readonly tabular: TabularOptions,
  ) {
    this.data = fields.map(() => []);
  }

  add(record: DataRecord, where: { file: string; format: string }): void {
    // A record standing in for one the reader could not read carries the reader's own error.
    if (record.problem)
      throw new FormatError(record.problem.code as ErrorCode, record.problem.message, record.problem);
    for (let i = 0; i < this.fields.length; i++) {
      const field = this.fields[i];
      const value = tabularValue(record.values[field.name], field.type, this.tabular);
      if (value === null && !this.columns[i].nullable)
        throw new FormatError(
          'InvalidValue',
          `record ${record.index}: ${field.name} is null, but its schema says it is never null`,
          where,
        );
      this.data[i].push(columnValue(value, this.columns[i].type));
      this.bytes += approximateSize(value);
    }
    this.rows++;
  }

  /** The group's columns for the writer; the group starts over empty. */
  take(): ColumnSource[] {
    const out = this.columns.map((c, i) => ({ name: c.name, data: this.data[i] }) as ColumnSource);
    this.data = this.fields.map(() => []);
    this.rows = 0;
    this.bytes = 0;
    return out;
  }
}
