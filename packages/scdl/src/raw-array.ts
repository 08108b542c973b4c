import {
  type Awaitable,
  type ByteSource,
  formatErrors,
  type NumericArray,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { toTypedArray } from '@binscope/core/binary';
import { type ArrayDescriptor, CORE_DTYPE, FORMAT, ITEM_SIZE, type ScdlNumericDType } from './header.js';

const fail = formatErrors(FORMAT);

export const TYPED: Record<ScdlNumericDType, new (n: number) => NumericArray> = {
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
  uint64: BigUint64Array,
  float16: Uint16Array,
  float32: Float32Array,
  float64: Float64Array,
};

const SLAB_BYTES = 1 << 20;
const SLAB_MAX_REQUEST = 64 * 1024;

/**
 * Hands out 8-aligned regions of shared 1 MiB buffers for small row reads: a fresh
 * ArrayBuffer per row costs more than the read itself. A slab lives as long as any row
 * viewing it, so memory stays a small multiple of what the caller keeps.
 */
export class Slab {
  /** The buffer the last `take` carved from (read it right after `take`). */
  buffer = new ArrayBuffer(SLAB_BYTES);
  private used = 0;
  /** Offset of `bytes` fresh bytes in `this.buffer` (no object per call: this is the row hot path). */
  take(bytes: number): number {
    if (bytes > SLAB_MAX_REQUEST) {
      this.buffer = new ArrayBuffer(bytes);
      this.used = SLAB_BYTES; // the next small request starts a new slab
      return 0;
    }
    let offset = (this.used + 7) & ~7;
    if (offset + bytes > SLAB_BYTES) {
      this.buffer = new ArrayBuffer(SLAB_BYTES);
      offset = 0;
    }
    this.used = offset + bytes;
    return offset;
  }
}

/** A buffer that reusing reads fill and grow. */
export interface ReuseBuffer {
  buffer: ArrayBuffer;
}

type ViewCtor = new (buffer: ArrayBuffer, offset: number, length: number) => NumericArray;

/** One raw little-endian array file (C4), read positionally. */
export class RawArray {
  readonly itemSize: number;
  private readonly View: ViewCtor;
  private readonly f16: boolean;
  constructor(
    readonly descriptor: ArrayDescriptor,
    readonly dtype: ScdlNumericDType,
    readonly file: string,
    readonly source: ByteSource,
    private readonly slab: Slab = new Slab(),
  ) {
    this.itemSize = ITEM_SIZE[dtype];
    this.View = TYPED[dtype] as unknown as ViewCtor;
    this.f16 = dtype === 'float16';
  }
  get length(): number {
    return this.descriptor.length;
  }

  private checkSlice(start: number, end: number): void {
    if (!(start >= 0 && end >= start && end <= this.length)) {
      throw fail(
        'OutOfBounds',
        `${this.file}: elements [${start}, ${end}) lie outside its ${this.length} entries`,
        start * this.itemSize,
        this.file,
      );
    }
  }

  /**
   * Elements [start, end) as a typed array of the dtype (f16 → Float32Array), range checked
   * first (A4). The bytes land in memory of ours (a slab region, or `into` when reusing), so
   * the result never aliases a source's cache. Synchronous when the source is (local files,
   * memory): the row hot path then makes no promise at all.
   */
  slice(start: number, end: number, options?: ReadOptions, into?: ReuseBuffer): Awaitable<NumericArray> {
    if (!(start >= 0 && end >= start && end <= this.descriptor.length)) this.checkSlice(start, end);
    const n = end - start;
    const bytes = n * this.itemSize;
    let buffer: ArrayBuffer;
    let at = 0;
    if (into) {
      if (into.buffer.byteLength < bytes)
        into.buffer = new ArrayBuffer(Math.max(bytes, into.buffer.byteLength * 2));
      buffer = into.buffer;
    } else {
      at = this.slab.take(bytes);
      buffer = this.slab.buffer;
    }
    const offset = start * this.itemSize;
    // The constructor, not `subarray`: subarray looks up a species constructor on every call
    // (several hundred instructions, two calls per row(i): cachegrind, bench archive).
    const region = new Uint8Array(buffer, at, bytes);
    // Inside the file (the usual case) straight to the source, with a literal request (a spread
    // one makes this hot path several times slower); otherwise readExact throws the range error.
    const got =
      bytes === 0
        ? region
        : offset + bytes <= this.source.size
          ? this.source.read(offset, bytes, { signal: options?.signal, into: region })
          : readExact(this.source, offset, bytes, { format: FORMAT, what: this.file });
    if (got instanceof Promise)
      return got.then((raw) => {
        if (raw !== region) this.copyIn(raw, region, offset);
        return this.typed(buffer, at, n);
      });
    // A source answers `into` itself; one that hands back other bytes is checked and copied in.
    if (got !== region) this.copyIn(got, region, offset);
    return this.typed(buffer, at, n);
  }

  private copyIn(raw: Uint8Array, region: Uint8Array, offset: number): void {
    if (raw.byteLength !== region.byteLength) {
      // A source that returned fewer bytes than its size promised (a file that shrank).
      throw fail(
        'Truncated',
        `${this.file} ends early: got ${raw.byteLength} of ${region.byteLength} bytes`,
        offset,
        this.file,
      );
    }
    region.set(raw);
  }

  /** The elements read into `buffer` at `at`: a view, or f16 decoded to a Float32Array. */
  private typed(buffer: ArrayBuffer, at: number, n: number): NumericArray {
    if (!this.f16) return new this.View(buffer, at, n);
    return toTypedArray(new Uint8Array(buffer, at, n * 2), CORE_DTYPE.float16, true);
  }
}
