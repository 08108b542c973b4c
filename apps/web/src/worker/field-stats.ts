/**
 * Streaming statistics of one record field, in bounded memory whatever the number of records:
 * a fixed number of histogram bins and a capped table of value counts. Pure (no worker or DOM
 * API), so the same code can be checked against values computed elsewhere.
 */
import type { Field, LogicalType } from '@binscope/core';
import type { FieldStatsView, TopValue } from '../protocol';
import { NumberStats } from './histogram';
import { RecordTotals } from './record-totals';

/** Distinct values counted exactly per field; beyond it the table is pruned (see ValueCounts). */
export const DISTINCT_CAP = 4096;
/** A longer text is counted by its first characters (the key says so with a trailing "…"). */
const KEY_CHARS = 120;
/** Top values sent to the page. */
const TOP = 12;

/**
 * How often each value occurs, exactly up to DISTINCT_CAP distinct values. Past the cap the
 * rarest entries are dropped (every count at or below a rising threshold, as lossy counting
 * does) so the table stays bounded; the counts kept are then lower bounds and the distinct
 * count only "more than the cap".
 */
export class ValueCounts {
  private readonly counts = new Map<string, number>();
  private floor = 0;
  pruned = false;

  add(key: string): void {
    const known = this.counts.get(key);
    if (known !== undefined) {
      this.counts.set(key, known + 1);
      return;
    }
    if (this.counts.size >= DISTINCT_CAP) this.prune();
    this.counts.set(key, 1);
  }

  private prune(): void {
    this.pruned = true;
    while (this.counts.size >= DISTINCT_CAP / 2) {
      this.floor++;
      for (const [key, count] of this.counts) if (count <= this.floor) this.counts.delete(key);
    }
  }

  get distinct(): { count: number; exact: boolean } {
    return { count: this.pruned ? DISTINCT_CAP : this.counts.size, exact: !this.pruned };
  }

  /** The most frequent values, most frequent first (ties by value, so the order is stable). */
  top(n = TOP): TopValue[] {
    return [...this.counts]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, n)
      .map(([value, count]) => ({ value, count }));
  }
}

export type StatsKind = 'numeric' | 'text' | 'other';

/** What a field's statistics are, from its logical type alone. */
export function statsKind(type: LogicalType): StatsKind {
  switch (type.kind) {
    case 'int':
    case 'float':
    case 'ndarray':
      return 'numeric';
    case 'list':
      return type.items.kind === 'int' || type.items.kind === 'float' ? 'numeric' : 'other';
    case 'string':
    case 'bool':
      return 'text';
    default:
      return 'other';
  }
}

const textKey = (s: string) => (s.length > KEY_CHARS ? `${s.slice(0, KEY_CHARS)}…` : s);

/** Statistics of one field, fed its values record by record. */
export class FieldStats {
  readonly kind: StatsKind;
  private present = 0;
  private nulls = 0;
  private count = 0;
  private readonly numbers?: NumberStats;
  /** Numbers of an integer field double as categories (labels, classes); text always. */
  private readonly values?: ValueCounts;
  /** A list or array field: per-record sums and counts, and per-column totals (metadata-driven). */
  readonly totals?: RecordTotals;

  constructor(readonly field: Field) {
    this.kind = statsKind(field.type);
    const type = field.type;
    const element = type.kind === 'list' ? type.items : type;
    if (this.kind === 'numeric') {
      const integer =
        element.kind === 'int' || (element.kind === 'ndarray' && !element.dtype.startsWith('f'));
      this.numbers = new NumberStats(integer);
      if (element.kind === 'int') this.values = new ValueCounts();
      if (type.kind === 'list' || type.kind === 'ndarray') this.totals = new RecordTotals(field, integer);
    } else if (this.kind === 'text') this.values = new ValueCounts();
  }

  /** One record's value; `record` (all its values read) lets a field find its `indices` field. */
  add(value: unknown, record: Readonly<Record<string, unknown>> = {}): void {
    if (value === undefined) return;
    this.present++;
    if (value === null) {
      this.nulls++;
      return;
    }
    if (this.kind === 'numeric') {
      this.addNumeric(value);
      this.totals?.add(value, record);
    } else if (this.kind === 'text') {
      this.count++;
      this.values?.add(typeof value === 'string' ? textKey(value) : String(value));
    } else this.count++;
  }

  private addNumeric(value: unknown): void {
    if (typeof value === 'number' || typeof value === 'bigint') {
      this.addNumber(value);
      return;
    }
    // A list of numbers, or an ndarray's elements: each element is a value.
    const items = Array.isArray(value) ? value : (value as { data?: ArrayLike<number | bigint> }).data;
    if (!items) return;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (typeof item === 'number' || typeof item === 'bigint') this.addNumber(item);
    }
  }

  private addNumber(value: number | bigint): void {
    this.count++;
    this.values?.add(String(value));
    this.numbers?.add(Number(value));
  }

  view(): FieldStatsView {
    const { field } = this;
    const view: FieldStatsView = {
      name: field.name,
      kind: this.kind,
      present: this.present,
      nulls: this.nulls,
      count: this.count,
    };
    const numeric = this.numbers?.view();
    if (numeric) view.numeric = numeric;
    if (this.values) {
      view.distinct = this.values.distinct;
      view.top = this.values.top();
    }
    if (this.totals) Object.assign(view, this.totals.view());
    return view;
  }
}
