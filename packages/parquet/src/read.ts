import {
  type ByteSource,
  type DataRecord,
  type ErrorCode,
  FormatError,
  type FormatReader,
  isBinscopeError,
  type Problem,
  type ReadOptions,
  type RecordOptions,
  type Schema,
  throwIfAborted,
  type Value,
} from '@binscope/core';
import type { AsyncBuffer, Compressors, FileMetaData } from 'hyparquet';
import { parquetReadObjects } from 'hyparquet';
import { chunkRange, type ParquetLayout } from './footer.js';
import { checkPages, chunksOf } from './pages.js';
import type { ColumnPlan } from './read-schema.js';

/**
 * hyparquet's view of the file: reads go to the ByteSource, a range at a time, so only the
 * footer and the row groups asked for are ever read (never the whole file).
 */
export function asyncBuffer(
  source: ByteSource,
  options: ReadOptions = {},
  check?: (bytes: Uint8Array, start: number) => void,
): AsyncBuffer {
  return {
    byteLength: source.size,
    async slice(start, end = source.size) {
      throwIfAborted(options.signal);
      const bytes = await source.read(start, end - start, { signal: options.signal });
      // hyparquet keeps what it is given, and a source's view may alias its own buffer (a Node
      // Buffer's `slice` too): copy into an ArrayBuffer of exactly these bytes.
      const copy = new Uint8Array(bytes.byteLength);
      copy.set(bytes);
      check?.(copy, start);
      return copy.buffer;
    },
  };
}

/**
 * Keeps hyparquet from turning dates and timestamps into Date objects: they stay the integers
 * Parquet stores (days, or units since the epoch), as the field's type and its metadata `type`
 * (`INT64 TIMESTAMP(MICROS)`) say.
 */
const RAW_PARSERS = {
  timestampFromMilliseconds: (v: bigint) => v,
  timestampFromMicroseconds: (v: bigint) => v,
  timestampFromNanoseconds: (v: bigint) => v,
  dateFromDays: (v: number) => v,
};

/** The error class of a failure inside hyparquet's decoding, by what its message says. */
function decodeCode(message: string): ErrorCode {
  return /compress|snappy|gzip|zstd|brotli|lz4|inflate|huffman/i.test(message)
    ? 'DecompressError'
    : 'InvalidValue';
}

/** A failure while decoding a row group, as a typed error at the group's first byte. */
export function decodeError(error: unknown, layout: ParquetLayout, group: number): unknown {
  if (isBinscopeError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const first = layout.metadata?.row_groups[group]?.columns[0]?.meta_data;
  return new FormatError(
    decodeCode(message),
    `row group ${group} does not decode: ${message}`,
    { offset: first ? chunkRange(first).start : undefined, file: layout.source.name, format: 'parquet' },
    { cause: error },
  );
}

export class ParquetReader implements FormatReader {
  readonly format = 'parquet';
  readonly schema: Schema;
  readonly warnings: Problem[] = [];
  readonly columns: readonly ColumnPlan[];
  private readonly chunks: ReturnType<typeof chunksOf>;
  /** The first row of each row group, and past the last the row count. */
  readonly groupStarts: number[];

  constructor(
    readonly layout: ParquetLayout & {
      metadata: FileMetaData;
      columns: NonNullable<ParquetLayout['columns']>;
    },
    private readonly compressors: Compressors | undefined,
  ) {
    const { schema, columns } = layout.columns;
    this.chunks = chunksOf(layout.metadata);
    this.schema = schema;
    this.columns = columns;
    this.groupStarts = [0];
    for (const g of layout.metadata.row_groups)
      this.groupStarts.push(this.groupStarts[this.groupStarts.length - 1] + Number(g.num_rows));
  }

  get source(): ByteSource {
    return this.layout.source;
  }

  get metadata(): FileMetaData {
    return this.layout.metadata;
  }

  get rows(): number {
    return this.groupStarts[this.groupStarts.length - 1];
  }

  /** The row group holding row `index` (the last group when it is past the end). */
  groupOf(index: number): number {
    let lo = 0;
    let hi = this.groupStarts.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.groupStarts[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Rows [start, end) of one row group, as hyparquet assembles them (objects by top-level column). */
  async readRows(
    group: number,
    start: number,
    end: number,
    columns: readonly string[] | undefined,
    options: ReadOptions,
  ): Promise<Record<string, unknown>[]> {
    try {
      return await parquetReadObjects({
        file: asyncBuffer(this.source, options, (bytes, at) =>
          checkPages(this.chunks, bytes, at, this.source.name),
        ),
        metadata: this.metadata,
        rowStart: start,
        rowEnd: end,
        columns: columns ? [...columns] : undefined,
        compressors: this.compressors,
        utf8: false,
        parsers: RAW_PARSERS,
      });
    } catch (error) {
      throw decodeError(error, this.layout, group);
    }
  }
}

/**
 * The records, a row group at a time (only the columns asked for are read): `offset` and
 * `limit` pick the row groups to read, so `head` of a large file reads its first group only.
 */
export async function* parquetRecords(
  reader: ParquetReader,
  options: RecordOptions = {},
): AsyncGenerator<DataRecord> {
  if (options.table !== undefined)
    throw new FormatError(
      'InvalidValue',
      `a Parquet file has one table, not ${JSON.stringify(options.table)}`,
      {
        file: reader.source.name,
        format: 'parquet',
      },
    );
  const plans = pickColumns(reader, options.columns);
  const names = plans.map((p) => p.field.name);
  const first = Math.max(0, options.offset ?? 0);
  const end = Math.min(
    reader.rows,
    options.limit === undefined ? Infinity : first + Math.max(0, options.limit),
  );
  for (let at = first; at < end; ) {
    const group = reader.groupOf(at);
    const groupEnd = Math.min(end, reader.groupStarts[group + 1]);
    const rows = await reader.readRows(group, at, groupEnd, names, options);
    for (let i = 0; i < rows.length; i++) {
      const values: Record<string, Value> = {};
      for (const plan of plans) values[plan.field.name] = convertValue(plan, rows[i], reader, group);
      yield { index: at + i, values };
    }
    at = groupEnd;
  }
}

function convertValue(
  plan: ColumnPlan,
  row: Record<string, unknown>,
  reader: ParquetReader,
  group: number,
): Value {
  try {
    return plan.convert(row[plan.field.name]);
  } catch (error) {
    throw decodeError(error, reader.layout, group);
  }
}

function pickColumns(reader: ParquetReader, columns: readonly string[] | undefined): readonly ColumnPlan[] {
  if (!columns) return reader.columns;
  return columns.map((name) => {
    const plan = reader.columns.find((c) => c.field.name === name);
    if (!plan)
      throw new FormatError('InvalidValue', `no column ${JSON.stringify(name)}`, {
        file: reader.source.name,
        format: 'parquet',
      });
    return plan;
  });
}
