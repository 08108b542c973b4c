import {
  type ColumnBatch,
  FormatError,
  type NumericArray,
  type TabularField,
  type TabularOptions,
  type Value,
  tabularValue,
} from '@binscope/core';
import type { Field as CoreField } from '@binscope/core';
import { makeData, RecordBatch, type Schema, Struct } from 'apache-arrow';
import { type ColumnFill, columnFill, FixedFill } from './columns.js';
import type { ExportSchema } from './schema-out.js';

/** Default most rows per record batch: large enough that per-batch costs vanish. */
export const DEFAULT_BATCH_ROWS = 65_536;
/**
 * A batch also ends once its values reach about this many bytes, so a table of large blobs
 * (images, tar members) holds one batch in memory, not 65,536 of its rows.
 */
export const DEFAULT_BATCH_BYTES = 64 * 1024 * 1024;

interface Column {
  readonly source: CoreField;
  readonly field: TabularField;
  readonly fill: ColumnFill;
}

/**
 * Records → RecordBatches of a bounded size: values go through core's tabularValue (the one
 * export mapping) into one column fill per column (Arrow buffers filled in place); `flush` hands
 * the rows so far over as a batch and starts afresh, so memory holds one batch whatever the
 * table's size.
 */
export class BatchBuilder {
  private readonly columns: Column[];
  private readonly arrow: Schema;
  rows = 0;

  constructor(
    schema: readonly CoreField[],
    out: ExportSchema,
    private readonly options: TabularOptions,
    private readonly limits = { rows: DEFAULT_BATCH_ROWS, bytes: DEFAULT_BATCH_BYTES },
  ) {
    this.arrow = out.arrow;
    this.columns = schema.map((source, i) => ({
      source,
      field: out.fields[i],
      fill: columnFill(out.arrow.fields[i].type),
    }));
  }

  /** Adds one record's values (a missing value is a null). */
  append(values: { readonly [field: string]: Value | undefined }, index: number): void {
    for (const column of this.columns) this.appendValue(column, values[column.source.name], index);
    this.rows++;
  }

  /**
   * Rows of a column run from `from` on, as many as fit this batch's bounds: how many were
   * added. When every column is a typed array of its Arrow type, they are copied whole, up to
   * the row where the records would have filled the batch; otherwise one row, value by value.
   */
  appendRun(run: ColumnBatch, from: number): number {
    const whole = this.wholeRows(run, from);
    if (whole === 0) {
      for (const column of this.columns)
        this.appendValue(column, run.columns[column.source.name]?.[from], run.offset + from);
      this.rows++;
      return 1;
    }
    for (const column of this.columns) {
      const values = run.columns[column.source.name] as NumericArray;
      (column.fill as FixedFill).appendArray(values.subarray(from, from + whole));
    }
    this.rows += whole;
    return whole;
  }

  /** How many rows of `run` from `from` on go in whole (0: not every column can). */
  private wholeRows(run: ColumnBatch, from: number): number {
    let rowBytes = 0;
    for (const column of this.columns) {
      const fill = column.fill;
      if (!(fill instanceof FixedFill) || !fill.takesWhole(run.columns[column.source.name])) return 0;
      rowBytes += fill.elementBytes;
    }
    // The records would end the batch at the first row that brings it to its byte bound.
    const byBytes = Math.max(1, Math.ceil((this.limits.bytes - this.bytes) / Math.max(1, rowBytes)));
    return Math.min(run.rows - from, this.limits.rows - this.rows, byBytes);
  }

  private appendValue(column: Column, raw: Value | undefined, index: number): void {
    const plain = tabularValue(raw, column.source.type, this.options);
    if (plain === null && !column.field.nullable)
      throw new FormatError(
        'InvalidValue',
        `record ${index}: ${column.field.name} is null, but its schema says it is never null`,
      );
    column.fill.append(plain);
  }

  /** Roughly the bytes of the batch so far. */
  get bytes(): number {
    let total = 0;
    for (const column of this.columns) total += column.fill.bytes;
    return total;
  }

  /** Whether the batch reached its row or byte bound. */
  get full(): boolean {
    return this.rows >= this.limits.rows || this.bytes >= this.limits.bytes;
  }

  /** The rows so far as one RecordBatch; the builder is then empty. */
  flush(): RecordBatch {
    const children = this.columns.map((c) => c.fill.finish());
    const data = makeData({ type: new Struct(this.arrow.fields), length: this.rows, nullCount: 0, children });
    const batch = new RecordBatch(this.arrow, data);
    this.rows = 0;
    return batch;
  }
}
