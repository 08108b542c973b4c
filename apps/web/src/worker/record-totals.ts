/**
 * Derived statistics of a list or array field, driven by its schema metadata alone: each
 * record's sum and count of elements, sparsity when the dense width (`columns`) is known, and,
 * when the field names the field holding each value's column (`indices`), a total per column
 * kept in one Float64Array of that width (only up to MAX_COLUMNS, so memory stays bounded).
 */
import type { Field } from '@binscope/core';
import type { FieldStatsView } from '../protocol';
import { NumberStats } from './histogram';

/** Widest column space totalled (32 MB of totals). */
export const MAX_COLUMNS = 4_000_000;
/** Columns listed by total. */
export const TOP_COLUMNS = 10;

type Items = ArrayLike<unknown>;

/** The elements of a list value or an ndarray value's data; undefined for anything else. */
export function itemsOf(value: unknown): Items | undefined {
  if (Array.isArray(value)) return value;
  const data = (value as { data?: Items } | null)?.data;
  return data && typeof data.length === 'number' ? data : undefined;
}

const numberOf = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined);

/** A metadata integer, or undefined when absent or not a non-negative integer. */
function widthOf(field: Field): number | undefined {
  const text = field.metadata?.columns;
  const n = text === undefined ? Number.NaN : Number(text);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

export class RecordTotals {
  readonly indices?: string;
  private readonly columns?: number;
  private readonly sums: NumberStats;
  private readonly counts = new NumberStats(true);
  private records = 0;
  private countSum = 0;
  private readonly totals?: Float64Array;
  private outside = 0;

  constructor(field: Field, integer: boolean) {
    this.sums = new NumberStats(integer);
    this.columns = widthOf(field);
    const indices = field.metadata?.indices;
    if (indices && this.columns !== undefined && this.columns <= MAX_COLUMNS) {
      this.indices = indices;
      this.totals = new Float64Array(this.columns);
    }
  }

  /** One record's value of the field, with the record's other values (for its indices). */
  add(value: unknown, record: Readonly<Record<string, unknown>>): void {
    const items = itemsOf(value);
    if (!items) return;
    let sum = 0;
    let count = 0;
    const positions = this.indices === undefined ? undefined : itemsOf(record[this.indices]);
    const totals = this.totals;
    for (let i = 0; i < items.length; i++) {
      const v = numberOf(items[i]);
      if (v === undefined) continue;
      sum += v;
      count++;
      if (!totals || !positions) continue;
      const c = numberOf(positions[i]);
      if (c !== undefined && Number.isInteger(c) && c >= 0 && c < totals.length) totals[c] += v;
      else this.outside++;
    }
    this.records++;
    this.countSum += count;
    this.sums.add(sum);
    this.counts.add(count);
  }

  /** What the view adds to the field's statistics. */
  view(): Pick<FieldStatsView, 'perRecord' | 'columnTotals'> {
    const sum = this.sums.view();
    const count = this.counts.view();
    const out: Pick<FieldStatsView, 'perRecord' | 'columnTotals'> = {};
    if (!sum || !count) return out;
    out.perRecord = { sum, count };
    if (this.columns) out.perRecord.sparsity = 1 - this.countSum / this.records / this.columns;
    const totals = this.totals;
    if (totals && totals.length > 0) {
      const all = new NumberStats(false);
      const top: Array<{ column: number; total: number }> = [];
      for (let c = 0; c < totals.length; c++) {
        const total = totals[c];
        all.add(total);
        // Kept sorted, largest first; a column replaces the last only when strictly larger.
        if (top.length === TOP_COLUMNS && !(total > top[TOP_COLUMNS - 1].total)) continue;
        let at = top.length;
        while (at > 0 && total > top[at - 1].total) at--;
        top.splice(at, 0, { column: c, total });
        if (top.length > TOP_COLUMNS) top.pop();
      }
      const numeric = all.view();
      if (numeric) out.columnTotals = { columns: totals.length, numeric, top, outside: this.outside };
    }
    return out;
  }
}
