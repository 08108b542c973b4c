import {
  type ByteSource,
  type ErrorFactory,
  FormatError,
  type FormatReader,
  formatErrors,
  isBinscopeError,
  type Problem,
  type ReadOptions,
  readExact,
  type Schema,
} from '@binscope/core';
import { toTypedArray } from '@binscope/core/binary';
import { inflateBlock } from '#zlib';
import { readExtensions, type ScbfExtensions } from './extensions.js';
import { FORMAT, type ScbfBlock, type ScbfColumn, type ScbfHeader, type ScbfLayout } from './layout.js';
import { type StrUncompMismatch, s4Warning, stringsCap, stringsEndError, strUncompMismatch } from './s4.js';
import { type BatchValues, columnDecoder, type WholeBlockReader } from './stream.js';
import { Utf8Column } from './utf8.js';

export type ColumnValues = Int32Array | Float64Array | Utf8Column;
export type CellValue = number | string;
/** A row as `rows()` yields it; a null cell (null bitmap extension) is `null` once cells are applied. */
export type Row = Record<string, CellValue | null>;

export interface RangeOptions extends ReadOptions {
  /** First row (default 0). */
  start?: number;
  /** Row after the last (default: all rows). */
  end?: number;
}

export interface RowOptions extends ReadOptions {
  /** Column names (or indexes) to read, in this order; default all. */
  columns?: readonly (string | number)[];
  /** First row (default 0). */
  offset?: number;
  /** How many rows at most. */
  limit?: number;
  /** Rows decoded per step (default 8192). */
  batchRows?: number;
}

export interface ScbfBatch {
  /** Row number of the batch's first row. */
  start: number;
  length: number;
  columns: ScbfColumn[];
  values: BatchValues[];
}

/** The extension footer as read when the file was opened: none, the footer, or why it does not parse. */
export interface FooterState {
  extensions?: ScbfExtensions;
  /** A footer that does not parse: what reads it (records with nulls or dictionaries, info) reports this. */
  error?: FormatError;
}

/** Reads the footer for a reader being opened; a footer that does not parse is kept as its error. */
export async function readFooterState(layout: ScbfLayout, options: ReadOptions = {}): Promise<FooterState> {
  try {
    return {
      extensions: await readExtensions(
        layout.source,
        layout.columns,
        layout.header.metaTableEnd,
        [],
        options,
      ),
    };
  } catch (error) {
    if (isBinscopeError(error, 'FormatError')) return { error };
    throw error;
  }
}

/**
 * The schema of an SCBF file's rows: int32, float64 and utf8 columns, nullable where the
 * footer has a null bitmap for them; a dictionary-coded column (int32 codes) is text. Field
 * metadata `type` is SCBF's own name for the column's type, as messages show it.
 */
export function scbfSchema(columns: readonly ScbfColumn[], footer: ScbfExtensions | undefined): Schema {
  return {
    fields: columns.map((column) => {
      if (footer?.dictionaries?.has(column.index))
        return { name: column.name, type: { kind: 'string' }, metadata: { type: 'dictionary-encoded text' } };
      const nullable = footer?.nulls?.has(column.index) === true;
      const type =
        column.type === 'int32'
          ? ({ kind: 'int', bits: 32, signed: true } as const)
          : column.type === 'float64'
            ? ({ kind: 'float', bits: 64 } as const)
            : ({ kind: 'string' } as const);
      return { name: column.name, type, ...(nullable ? { nullable } : {}), metadata: { type: column.type } };
    }),
  };
}

/**
 * An open SCBF file: header and metadata table parsed, the extension footer read (when the
 * reader was opened through the plugin), column data read per column on request. It closes its
 * source only when it opened it itself (`openScbfFile`): whoever opens a source closes it.
 */
export class ScbfReader implements FormatReader {
  readonly format = FORMAT;
  readonly source: ByteSource;
  readonly header: ScbfHeader;
  readonly columns: readonly ScbfColumn[];
  readonly schema: Schema;
  /** The extension footer read at open, or why it does not parse. */
  readonly footer: FooterState;
  /** utf8 columns read so far whose str_uncomp_size disagrees with their strings (S4). */
  private readonly mismatches: StrUncompMismatch[] = [];

  private readonly error: ErrorFactory;

  /** Whether close() closes the source: only when the reader's opener handed it over. */
  private ownsSource = false;

  constructor(layout: ScbfLayout, footer: FooterState = {}) {
    this.source = layout.source;
    this.error = formatErrors(FORMAT, layout.source.name);
    this.header = layout.header;
    this.columns = layout.columns;
    this.footer = footer;
    this.schema = scbfSchema(layout.columns, footer.extensions);
  }

  get rowCount(): number {
    return this.header.totalRows;
  }

  get columnNames(): string[] {
    return this.columns.map((c) => c.name);
  }

  /** A column's metadata by name or index. */
  column(key: string | number): ScbfColumn {
    const column = typeof key === 'number' ? this.columns[key] : this.columns.find((c) => c.name === key);
    if (!column) {
      throw new RangeError(
        `no column ${JSON.stringify(key)} in ${this.source.name}; columns: ${this.columnNames.map((n) => JSON.stringify(n)).join(', ')}`,
      );
    }
    return column;
  }

  /**
   * One block, inflated, with its length checked against the declared size (S5). Reads only
   * that block's bytes.
   */
  async readBlock(block: ScbfBlock, column?: ScbfColumn, options: ReadOptions = {}): Promise<Uint8Array> {
    const what = `column${column ? ` "${column.name}"` : ''} ${block.role} block`;
    const compressed = await readExact(this.source, block.offset, block.compressedSize, {
      format: FORMAT,
      what,
      signal: options.signal,
    });
    const result = inflateBlock(compressed, block.uncompressedSize);
    if (!result.ok) {
      if (result.reason === 'too-long') {
        throw this.error(
          'CountMismatch',
          `${what} ${result.message}, more than its declared uncompressed size`,
          block.fieldOffset,
        );
      }
      throw this.error(
        'DecompressError',
        `${what} is not a valid zlib stream (${result.message})`,
        block.offset,
      );
    }
    if (result.bytes.byteLength !== block.uncompressedSize) {
      throw this.error(
        'CountMismatch',
        `${what} inflates to ${result.bytes.byteLength} bytes, but its declared uncompressed size is ${block.uncompressedSize}`,
        block.fieldOffset,
      );
    }
    return result.bytes;
  }

  /**
   * One block inflated without trusting its declared size (S4's strings block): its bytes when
   * it inflates to at most `limit` bytes, undefined when it is longer.
   */
  async readBlockUpTo(
    block: ScbfBlock,
    column: ScbfColumn,
    limit: number,
    options: ReadOptions = {},
  ): Promise<Uint8Array | undefined> {
    const what = `column "${column.name}" ${block.role} block`;
    const compressed = await readExact(this.source, block.offset, block.compressedSize, {
      format: FORMAT,
      what,
      signal: options.signal,
    });
    const result = inflateBlock(compressed, limit);
    if (result.ok) return result.bytes;
    if (result.reason === 'too-long') return undefined;
    throw this.error(
      'DecompressError',
      `${what} is not a valid zlib stream (${result.message})`,
      block.offset,
    );
  }

  /**
   * Warnings about what was read so far: S4 (str_uncomp_size disagreeing with the strings of
   * the columns read), one warning for the file. Validate finds them for every column.
   */
  get warnings(): Problem[] {
    const warning = s4Warning(this.mismatches, this.source.name);
    return warning ? [warning] : [];
  }

  private readonly noteMismatch = (mismatch: StrUncompMismatch): void => {
    if (!this.mismatches.some((m) => m.fieldOffset === mismatch.fieldOffset)) this.mismatches.push(mismatch);
  };

  /**
   * A column's values: `Int32Array`, `Float64Array`, or a `Utf8Column` that decodes strings
   * on demand. Reads only this column's blocks. `start`/`end` select a row range.
   */
  async readColumn(key: string | number, options: RangeOptions = {}): Promise<ColumnValues> {
    const column = this.column(key);
    const { start, end } = this.range(options);
    if (column.type === 'utf8') {
      const offsetsBytes = await this.readBlock(column.blocks[0], column, options);
      const offsets = toTypedArray(offsetsBytes, 'u32') as Uint32Array;
      const strings = await this.readStrings(column, offsets, options);
      return new Utf8Column(offsets, strings, {
        file: this.source.name,
        offset: column.blocks[1].offset,
        column: column.name,
      }).slice(start, end);
    }
    const bytes = await this.readBlock(column.blocks[0], column, options);
    const values = toTypedArray(bytes, column.type === 'int32' ? 'i32' : 'f64') as Int32Array | Float64Array;
    // A partial range is copied so the whole inflated block can be collected.
    return start === 0 && end === column.count ? values : values.slice(start, end);
  }

  /** Several columns (default all) as name → values. */
  async readColumns(
    keys?: readonly (string | number)[],
    options: RangeOptions = {},
  ): Promise<Record<string, ColumnValues>> {
    const out: Record<string, ColumnValues> = {};
    for (const column of keys ? keys.map((k) => this.column(k)) : this.columns) {
      out[column.name] = await this.readColumn(column.index, options);
    }
    return out;
  }

  /** One cell. Reads the column's blocks; decodes only this value. */
  async value(key: string | number, row: number, options: ReadOptions = {}): Promise<CellValue> {
    const values = await this.readColumn(key, { ...options, start: row, end: row + 1 });
    if (values.length !== 1) throw new RangeError(`row ${row} is outside 0..${this.rowCount - 1}`);
    return values instanceof Utf8Column ? values.get(0) : values[0];
  }

  /**
   * Rows in batches, decoded as a stream: memory stays bounded by the batch size, whatever
   * the file size, and reading stops as soon as the caller does.
   */
  async *batches(options: RowOptions = {}): AsyncGenerator<ScbfBatch> {
    const columns = options.columns ? options.columns.map((k) => this.column(k)) : [...this.columns];
    const first = Math.min(Math.max(0, options.offset ?? 0), this.rowCount);
    const end = Math.min(this.rowCount, first + Math.max(0, options.limit ?? Number.POSITIVE_INFINITY));
    const batchRows = Math.max(1, options.batchRows ?? 8192);
    const readWhole = this.wholeBlockReader(options);
    const decoders = columns.map((c) =>
      columnDecoder(this.source, c, readWhole, options.signal, this.noteMismatch),
    );
    if (first > 0 && first < end) for (const d of decoders) await d.skip(first);
    for (let start = first; start < end; start += batchRows) {
      const length = Math.min(batchRows, end - start);
      const values: BatchValues[] = [];
      for (const d of decoders) values.push(await d.next(length));
      yield { start, length, columns, values };
    }
  }

  /** Row objects `{column: value}`, streamed. */
  async *rows(options: RowOptions = {}): AsyncGenerator<Row> {
    for await (const batch of this.batches(options)) {
      const names = batch.columns.map((c) => c.name);
      const arrays = batch.values.map((v) => (v instanceof Utf8Column ? v.toArray() : v));
      for (let i = 0; i < batch.length; i++) {
        const row: Row = {};
        for (let c = 0; c < names.length; c++) row[names[c]] = arrays[c][i];
        yield row;
      }
    }
  }

  /**
   * Makes close() close the source too: for an opener that opens the source itself and hands
   * the reader on (`openScbfFile`), so whoever opened the source still closes it.
   */
  ownSource(): this {
    this.ownsSource = true;
    return this;
  }

  /** Closes the source only if the reader owns it (`ownSource`). */
  async close(): Promise<void> {
    if (this.ownsSource) await this.source.close?.();
  }

  /**
   * A utf8 column's strings block, sized by where its offsets end rather than by
   * str_uncomp_size (S4), with every offset check; a disagreeing str_uncomp_size is a warning.
   */
  private async readStrings(
    column: ScbfColumn,
    offsets: Uint32Array,
    options: ReadOptions,
  ): Promise<Uint8Array> {
    const file = this.source.name;
    const block = column.blocks[1];
    const last = offsets[offsets.length - 1];
    const strings =
      last <= stringsCap(block) ? await this.readBlockUpTo(block, column, last, options) : undefined;
    if (!strings) {
      // Offset defects (a bad start, a decrease) are reported before the size they lead to.
      checkOffsets(offsets, last, column, file);
      throw stringsEndError(column, last, `more than ${last}`, file);
    }
    checkOffsets(offsets, strings.byteLength, column, file);
    const mismatch = strUncompMismatch(column, strings.byteLength);
    if (mismatch) this.noteMismatch(mismatch);
    return strings;
  }

  /** Inflates blocks for the streaming decoders: exact sizes, or up to a limit (S4). */
  wholeBlockReader(options: ReadOptions = {}): WholeBlockReader {
    return (block, column, upTo) =>
      upTo === undefined
        ? this.readBlock(block, column, options)
        : this.readBlockUpTo(block, column, upTo, options);
  }

  private range(options: RangeOptions): { start: number; end: number } {
    const start = Math.min(Math.max(0, options.start ?? 0), this.rowCount);
    const end = Math.max(start, Math.min(this.rowCount, options.end ?? this.rowCount));
    return { start, end };
  }
}

/** S4 over a whole offsets array: starts at 0, never decreases, ends at the inflated strings' size. */
export function checkOffsets(
  offsets: Uint32Array,
  stringsSize: number,
  column: ScbfColumn,
  file: string,
): void {
  const at = { offset: column.blocks[0].offset, file, format: FORMAT };
  if (offsets[0] !== 0) {
    throw new FormatError(
      'InvalidValue',
      `column "${column.name}" offsets start at ${offsets[0]}, not 0 (S4)`,
      at,
    );
  }
  const n = offsets.length - 1;
  let prev = 0;
  for (let i = 1; i <= n; i++) {
    const value = offsets[i];
    if (value > stringsSize && i < n) {
      throw new FormatError(
        'OutOfBounds',
        `column "${column.name}" offset ${value} at row ${i} is past the strings block (${stringsSize} bytes)`,
        at,
      );
    }
    if (value < prev) {
      throw new FormatError(
        'InvalidValue',
        `column "${column.name}" offsets decrease at row ${i} (${prev} → ${value}) (S4)`,
        at,
      );
    }
    prev = value;
  }
  if (prev !== stringsSize) throw stringsEndError(column, prev, stringsSize, file);
}
