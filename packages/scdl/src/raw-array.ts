import {
  type ByteSource,
  checkRange,
  formatErrors,
  type NumericArray,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { answersSynchronously, toTypedArray } from '@binscope/core/binary';
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
  /** A byte view of `buffer`, kept so reads need no view object of their own. */
  bytes = new Uint8Array(this.buffer);
  private used = 0;
  /** Offset of `bytes` fresh bytes in `this.buffer` (no object per call: this is the row hot path). */
  take(bytes: number): number {
    if (bytes > SLAB_MAX_REQUEST) {
      this.buffer = new ArrayBuffer(bytes);
      this.bytes = new Uint8Array(this.buffer);
      this.used = SLAB_BYTES; // the next small request starts a new slab
      return 0;
    }
    let offset = (this.used + 7) & ~7;
    if (offset + bytes > SLAB_BYTES) {
      this.buffer = new ArrayBuffer(SLAB_BYTES);
      this.bytes = new Uint8Array(this.buffer);
      offset = 0;
    }
    this.used = offset + bytes;
    return offset;
  }
}

/** A buffer that reusing reads fill and grow; `bytes` caches its byte view. */
export interface ReuseBuffer {
  buffer: ArrayBuffer;
  bytes?: Uint8Array;
}

type ViewCtor = new (buffer: ArrayBuffer, offset: number, length: number) => NumericArray;

/** One raw little-endian array file (C4), read positionally. */
export class RawArray {
  readonly itemSize: number;
  /** Whether the source answers synchronously (memory, local files): `sliceSync` reads through it. */
  private readonly sync: boolean;
  /** Reads into our own memory, when the source answers synchronously and no f16 decoding is needed. */
  private readonly positional: ByteSource | undefined;
  private readonly View: ViewCtor;
  constructor(
    readonly descriptor: ArrayDescriptor,
    readonly dtype: ScdlNumericDType,
    readonly file: string,
    readonly source: ByteSource,
    private readonly slab: Slab = new Slab(),
  ) {
    this.itemSize = ITEM_SIZE[dtype];
    this.sync = answersSynchronously(source);
    this.positional = dtype !== 'float16' && this.sync ? source : undefined;
    this.View = TYPED[dtype] as unknown as ViewCtor;
  }
  get length(): number {
    return this.descriptor.length;
  }
  /** Whether `sliceSync` can read (the source answers synchronously). */
  get canReadSync(): boolean {
    return this.sync;
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
   * The synchronous path, shared by `slice`: straight into our memory for positional
   * sources (Node files), else through `readSync` (memory sources, f16), with the same
   * checks and errors as the awaited read. Undefined when the source has no sync read.
   */
  sliceSync(start: number, end: number, into?: ReuseBuffer): NumericArray | undefined {
    const source = this.positional;
    if (source === undefined) return this.readSyncSlice(start, end);
    if (!(start >= 0 && end >= start && end <= this.descriptor.length)) this.checkSlice(start, end);
    const n = end - start;
    const offset = start * this.itemSize;
    const bytes = n * this.itemSize;
    if (offset + bytes > this.source.size) {
      throw fail(
        'Truncated',
        `${this.file} ends at ${this.source.size}, ${bytes} bytes at ${offset} needed`,
        offset,
        this.file,
      );
    }
    let buffer: ArrayBuffer;
    let view: Uint8Array;
    let at = 0;
    if (into) {
      if (into.buffer.byteLength < bytes)
        into.buffer = new ArrayBuffer(Math.max(bytes, into.buffer.byteLength * 2));
      buffer = into.buffer;
      if (into.bytes?.buffer !== buffer) into.bytes = new Uint8Array(buffer);
      view = into.bytes;
    } else {
      at = this.slab.take(bytes);
      buffer = this.slab.buffer;
      view = this.slab.bytes;
    }
    const got = bytes > 0 ? source.read(offset, bytes, { into: view.subarray(at, at + bytes) }) : undefined;
    if (got !== undefined && (got instanceof Promise || got.byteLength !== bytes)) {
      throw fail(
        'Truncated',
        `${this.file} ended while reading ${bytes} bytes at ${offset}`,
        offset,
        this.file,
      );
    }
    return new this.View(buffer, at, n);
  }

  /** sliceSync for f16 arrays of synchronous sources: the checks and copy of `slice`. */
  private readSyncSlice(start: number, end: number): NumericArray | undefined {
    if (!this.sync) return undefined;
    this.checkSlice(start, end);
    const offset = start * this.itemSize;
    const bytes = (end - start) * this.itemSize;
    checkRange(this.source, offset, bytes, { format: FORMAT, what: this.file });
    const read = bytes === 0 ? new Uint8Array(0) : this.source.read(offset, bytes);
    if (read instanceof Promise)
      throw new TypeError(`${this.file}: a synchronous source answered with a promise`);
    const raw = read;
    if (raw.byteLength !== bytes) {
      // readExact's message, so sync and async reads fail alike.
      throw fail(
        'Truncated',
        `${this.file} ends early: got ${raw.byteLength} of ${bytes} bytes`,
        offset,
        this.source.name,
      );
    }
    // Copy: a source may hand out views of its own cache.
    return toTypedArray(new Uint8Array(raw), CORE_DTYPE[this.dtype], true);
  }

  /** Elements [start, end) as a typed array of the dtype (f16 → Float32Array). Range checked first (A4). */
  async slice(start: number, end: number, options?: ReadOptions): Promise<NumericArray> {
    const fast = this.sliceSync(start, end);
    if (fast) return fast;
    this.checkSlice(start, end);
    const n = end - start;
    const offset = start * this.itemSize;
    const bytes = n * this.itemSize;
    const raw = await readExact(this.source, offset, bytes, { ...options, format: FORMAT, what: this.file });
    // Copy: a source may hand out views of its own cache.
    return toTypedArray(new Uint8Array(raw), CORE_DTYPE[this.dtype], true);
  }

  /** Like slice, but into `into` (grown when too small) on positional sources: the reusing sequential pass. */
  async sliceInto(
    start: number,
    end: number,
    into: ReuseBuffer,
    options?: ReadOptions,
  ): Promise<NumericArray> {
    if (this.positional) return this.sliceSync(start, end, into) as NumericArray;
    return this.slice(start, end, options);
  }
}
