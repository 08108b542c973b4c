/**
 * A bitmap filled one bit at a time (LSB first, as Arrow lays out validity and Bool data).
 * As validity it is made only when the first null comes, so a column without nulls has none.
 */
export class Bitmap {
  private bits: Uint8Array | undefined;
  /** How many bits are 0 (the nulls, for validity). */
  private zeros = 0;

  /** `eager`: always kept (Bool values), not only once a 0 bit comes. */
  constructor(private readonly eager = false) {
    if (eager) this.bits = new Uint8Array(128);
  }

  mark(i: number, on: boolean): void {
    if (!on) this.zeros++;
    let bits = this.bits;
    if (bits === undefined) {
      if (on) return;
      // The first null: every bit before it is a valid slot.
      bits = this.bits = new Uint8Array(Math.max(128, (i >> 2) + 1));
      bits.fill(0xff, 0, i >> 3);
      bits[i >> 3] = (1 << (i & 7)) - 1;
    } else if (i >> 3 >= bits.length) bits = this.bits = grow(bits, Uint8Array, (i >> 3) + 1);
    if (on) bits[i >> 3] |= 1 << (i & 7);
  }

  /** Marks `count` bits from `start` set. */
  markRange(start: number, count: number): void {
    if (this.bits === undefined) return;
    for (let i = start; i < start + count; i++) this.mark(i, true);
  }

  /** As validity of `length` slots: the null count and, when there are nulls, the bitmap. Then empty. */
  take(length: number): { nullCount: number; nullBitmap?: Uint8Array } {
    const nullCount = this.zeros;
    const nullBitmap = this.bits === undefined ? undefined : this.bits.slice(0, (length + 7) >> 3);
    this.reset();
    return nullCount === 0 ? { nullCount } : { nullCount, nullBitmap };
  }

  /** The bits of `length` slots (Bool values). Then empty. */
  all(length: number): Uint8Array {
    const out = (this.bits as Uint8Array).slice(0, (length + 7) >> 3);
    this.reset();
    return out;
  }

  private reset(): void {
    this.zeros = 0;
    if (this.eager) (this.bits as Uint8Array).fill(0);
    else this.bits = undefined;
  }
}

type Growable = Uint8Array | Int32Array | Float64Array | BigInt64Array | BigUint64Array;

/** A copy of `array` with room for at least `need` items: twice the size, so appends stay amortised O(1). */
export function grow<T extends Growable>(array: T, ctor: new (length: number) => Growable, need: number): T {
  const out = new ctor(Math.max(need, array.length * 2)) as T;
  (out as Uint8Array).set(array as Uint8Array);
  return out;
}
