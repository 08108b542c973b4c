/**
 * A histogram of one numeric field in bounded memory (BINS bins), built in one pass.
 *
 * No reader gives min/max up front through the contract (footer statistics are a format's
 * own), so the bins come from the first SEED values, then grow: a value outside them doubles the bin width and re-anchors the origin until it fits,
 * merging old bins into new ones. Widths are powers of two and the origin a multiple of the
 * width, so every edge `origin + i * width` is an exact double, old bins fall wholly into one
 * new bin, and each count is exact for the edges shown: a value v is in bin i when
 * edge(i) <= v < edge(i + 1). Integers never get bins narrower than 1.
 */
import type { HistogramView, NumericView } from '../protocol';

/** Bins kept (the view trims empty bins at both ends). */
export const BINS = 64;
/** Values held back to place the first bins. */
const SEED = 256;
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

/** Min, max, mean and a histogram of a stream of numbers. */
export class NumberStats {
  private count = 0;
  private nonFinite = 0;
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;
  private sum = 0;
  private readonly histogram: Histogram;

  constructor(integer: boolean) {
    this.histogram = new Histogram(integer);
  }

  add(v: number): void {
    this.count++;
    if (!Number.isFinite(v)) {
      this.nonFinite++;
      return;
    }
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    this.sum += v;
    this.histogram.add(v);
  }

  view(): NumericView | undefined {
    const finite = this.count - this.nonFinite;
    if (finite === 0) return undefined;
    const { min, max, nonFinite } = this;
    return { min, max, mean: this.sum / finite, nonFinite, histogram: this.histogram.view() };
  }
}
