/**
 * Streaming statistics of one record field, in bounded memory whatever the number of records:
 * a fixed number of histogram bins and a capped table of value counts. Pure (no worker or DOM
 * API), so the same code can be checked against values computed elsewhere.
 *
 * The histogram is built in one pass. No reader gives min/max up front through the contract
 * (footer statistics are a format's own), so the bins come from the first SEED values, then
 * grow: a value outside them doubles the bin width and re-anchors the origin until it fits,
 * merging old bins into new ones. Widths are powers of two and the origin a multiple of the
 * width, so every edge `origin + i * width` is an exact double, old bins fall wholly into one
 * new bin, and each count is exact for the edges shown: a value v is in bin i when
 * edge(i) <= v < edge(i + 1). Integers never get bins narrower than 1.
 */
import type { Field, LogicalType } from '@binscope/core';
import type { FieldStatsView, HistogramView, TopValue } from '../protocol';
import { RecordTotals } from './record-totals';

/** Bins kept (the view trims empty bins at both ends). */
export const BINS = 64;
/** Values held back to place the first bins. */
const SEED = 256;
/** Distinct values counted exactly per field; beyond it the table is pruned (see ValueCounts). */
export const DISTINCT_CAP = 4096;
/** A longer text is counted by its first characters (the key says so with a trailing "…"). */
const KEY_CHARS = 120;
/** Top values sent to the page. */
const TOP = 12;
/** Keeps origin / width below 2^52, where adding bin indices is still exact. */
const PRECISION_BITS = 46;

const pow2 = (e: number) => 2 ** Math.max(-1074, Math.min(1023, e));

export class Histogram {
  private counts = new Float64Array(BINS);
  private origin = 0;
  /** 0 until the first bins are placed. */
  private width = 0;
  private seed: number[] = [];

  constructor(private readonly integer: boolean) {}

  add(v: number): void {
    if (this.width === 0) {
      this.seed.push(v);
      if (this.seed.length >= SEED) this.start();
      return;
    }
    if (v < this.origin || v >= this.edge(BINS)) this.grow(v);
    this.counts[this.bin(v)]++;
  }

  private edge(i: number): number {
    return this.origin + i * this.width;
  }

  /** The bin of v, by the very edges the view shows (a division may round the other way). */
  private bin(v: number): number {
    let i = Math.max(0, Math.min(BINS - 1, Math.floor((v - this.origin) / this.width)));
    while (i > 0 && v < this.edge(i)) i--;
    while (i < BINS - 1 && v >= this.edge(i + 1)) i++;
    return i;
  }

  private start(): void {
    const seed = this.seed;
    this.seed = [];
    if (seed.length === 0) return;
    let min = seed[0];
    let max = seed[0];
    for (const v of seed) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
    const span = max - min || Math.abs(min) || 1;
    const magnitude = Math.max(Math.abs(min), Math.abs(max));
    let exponent = Math.ceil(Math.log2(span / BINS));
    if (magnitude > 0) exponent = Math.max(exponent, Math.ceil(Math.log2(magnitude)) - PRECISION_BITS);
    if (this.integer) exponent = Math.max(exponent, 0);
    this.width = pow2(exponent);
    this.origin = Math.floor(min / this.width) * this.width;
    for (const v of seed) this.add(v);
  }

  /** Doubles the width (re-anchoring the origin) until v and every old bin fit; merges the bins. */
  private grow(v: number): void {
    const top = this.edge(BINS);
    const low = Math.min(v, this.origin);
    let width = this.width;
    let origin = this.origin;
    do {
      width *= 2;
      origin = Math.floor(low / width) * width;
    } while ((v >= origin + BINS * width || origin + BINS * width < top) && width < pow2(1017));
    const ratio = width / this.width;
    const shift = (this.origin - origin) / this.width;
    const merged = new Float64Array(BINS);
    for (let j = 0; j < BINS; j++)
      if (this.counts[j]) merged[Math.min(BINS - 1, Math.floor((shift + j) / ratio))] += this.counts[j];
    this.counts = merged;
    this.width = width;
    this.origin = origin;
  }

  /** The bins holding values, edges included (`edges.length === counts.length + 1`). */
  view(): HistogramView {
    if (this.width === 0) this.start();
    if (this.width === 0) return { edges: [], counts: [] };
    let first = 0;
    let last = BINS - 1;
    while (first < last && this.counts[first] === 0) first++;
    while (last > first && this.counts[last] === 0) last--;
    const counts = Array.from(this.counts.subarray(first, last + 1));
    const edges = counts.map((_, i) => this.edge(first + i));
    edges.push(this.edge(last + 1));
    return { edges, counts };
  }
}

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
  private nonFinite = 0;
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;
  private sum = 0;
  private readonly histogram?: Histogram;
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
      this.histogram = new Histogram(integer);
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
    const v = Number(value);
    if (!Number.isFinite(v)) {
      this.nonFinite++;
      return;
    }
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    this.sum += v;
    this.histogram?.add(v);
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
    const finite = this.count - this.nonFinite;
    if (this.histogram && finite > 0)
      view.numeric = {
        min: this.min,
        max: this.max,
        mean: this.sum / finite,
        nonFinite: this.nonFinite,
        histogram: this.histogram.view(),
      };
    if (this.values) {
      view.distinct = this.values.distinct;
      view.top = this.values.top();
    }
    if (this.totals) Object.assign(view, this.totals.view());
    return view;
  }
}
