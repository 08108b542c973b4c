import {
  FormatError,
  type TabularField,
  type TabularOptions,
  type Value,
  tabularValue,
} from '@binscope/core';
import type { Field as CoreField } from '@binscope/core';
import { makeData, RecordBatch, type Schema, Struct } from 'apache-arrow';
import { type ColumnFill, columnFill } from './columns.js';
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
    for (const column of this.columns) {
      const plain = tabularValue(values[column.source.name], column.source.type, this.options);
      if (plain === null && !column.field.nullable)
        throw new FormatError(
          'InvalidValue',
          `record ${index}: ${column.field.name} is null, but its schema says it is never null`,
        );
      column.fill.append(plain);
    }
    this.rows++;
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
