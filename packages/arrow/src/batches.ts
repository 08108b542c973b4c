import {
  FormatError,
  type TabularField,
  type TabularOptions,
  type TabularType,
  type TabularValue,
  type Value,
  tabularValue,
} from '@binscope/core';
import type { Field as CoreField } from '@binscope/core';
import { type Builder, makeBuilder, makeData, RecordBatch, type Schema, Struct } from 'apache-arrow';
import type { ExportSchema } from './schema-out.js';

/** Default most rows per record batch: large enough that per-batch costs vanish. */
export const DEFAULT_BATCH_ROWS = 65_536;
/**
 * A batch also ends once its values reach about this many bytes, so a table of large blobs
 * (images, tar members) holds one batch in memory, not 65,536 of its rows.
 */
export const DEFAULT_BATCH_BYTES = 64 * 1024 * 1024;

/** Whether a column of this type holds 64-bit integers somewhere (which Arrow wants as bigint). */
function needsBigint(type: TabularType): boolean {
  if (type.kind === 'int') return type.bits === 64;
  if (type.kind === 'list') return needsBigint(type.items.type);
  if (type.kind === 'struct') return type.fields.some((f) => needsBigint(f.type));
  return false;
}

/**
 * A value as Arrow's builders take it: 64-bit integers as bigint (a record may hold a safe
 * number; BigInt of it is exact, so nothing passes through a double's rounding).
 */
function arrowValue(value: TabularValue, type: TabularType): unknown {
  if (value === null) return null;
  if (type.kind === 'int' && type.bits === 64)
    return typeof value === 'bigint' ? value : BigInt(value as number);
  if (type.kind === 'list' && Array.isArray(value) && needsBigint(type.items.type))
    return (value as readonly TabularValue[]).map((v) => arrowValue(v, type.items.type));
  if (type.kind === 'struct' && needsBigint(type)) {
    const object = value as { readonly [key: string]: TabularValue };
    const out: Record<string, unknown> = {};
    for (const f of type.fields) out[f.name] = arrowValue(object[f.name] ?? null, f.type);
    return out;
  }
  return value;
}

/** Roughly how many bytes a value adds to a batch, for the batch's byte bound. */
function sizeOf(value: unknown): number {
  if (value === null || value === undefined) return 1;
  if (typeof value === 'string') return value.length + 4;
  if (ArrayBuffer.isView(value)) return value.byteLength + 4;
  if (Array.isArray(value)) {
    let total = 4;
    for (const item of value) total += sizeOf(item);
    return total;
  }
  if (typeof value === 'object') {
    let total = 0;
    for (const item of Object.values(value)) total += sizeOf(item);
    return total;
  }
  return 8;
}

interface Column {
  readonly source: CoreField;
  readonly field: TabularField;
  readonly bigint: boolean;
  readonly builder: Builder;
}

/**
 * Records → RecordBatches of a bounded size: values go through core's tabularValue (the one
 * export mapping) into one apache-arrow builder per column; `flush` hands the rows so far over
 * as a batch and starts afresh, so memory holds one batch whatever the table's size.
 */
export class BatchBuilder {
  private readonly columns: Column[];
  private readonly arrow: Schema;
  rows = 0;
  bytes = 0;

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
      bigint: needsBigint(out.fields[i].type),
      builder: makeBuilder({ type: out.arrow.fields[i].type, nullValues: [null, undefined] }),
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
      const value = column.bigint ? arrowValue(plain, column.field.type) : plain;
      column.builder.append(value);
      this.bytes += sizeOf(value);
    }
    this.rows++;
  }

  /** Whether the batch reached its row or byte bound. */
  get full(): boolean {
    return this.rows >= this.limits.rows || this.bytes >= this.limits.bytes;
  }

  /** The rows so far as one RecordBatch; the builder is then empty. */
  flush(): RecordBatch {
    const children = this.columns.map((c) => c.builder.flush());
    const data = makeData({ type: new Struct(this.arrow.fields), length: this.rows, nullCount: 0, children });
    const batch = new RecordBatch(this.arrow, data);
    this.rows = 0;
    this.bytes = 0;
    return batch;
  }
}
