import type { JsonValue, NumericArray, ReadOptions } from '@binscope/core';
import type { VerifyOption } from './checksum.js';
import type { MldfLazyText } from './decode.js';
import type { NdDtype } from './layout.js';

export interface NdArray {
  dtype: NdDtype;
  shape: readonly number[];
  /** C-order elements; 64-bit dtypes as BigInt64Array/BigUint64Array. */
  data: NumericArray;
}

export interface ImageValue {
  height: number;
  width: number;
  channels: number;
  /** 0 = RAW, the only mode M5 defines. */
  mode: number;
  /** height·width·channels bytes, HWC order. */
  pixels: Uint8Array;
}

/**
 * A decoded value: INT → bigint (exact 64-bit), FLOAT → number, BYTES → Uint8Array,
 * NDARRAY → NdArray, JSON → the parsed value, IMAGE_RAW → ImageValue, TEXT_RAW → string.
 */
export type MldfValue =
  | bigint
  | number
  | string
  | Uint8Array
  | NdArray
  | ImageValue
  | JsonValue
  | MldfLazyText;

/** A sample: field name → value; `undefined` for a missing value (M6: ptr 0, size 0, no empty form). */
export type MldfSample = Record<string, MldfValue | undefined>;

/** Where a value lives and what its metadata struct says. */
export interface ValueInfo {
  field: string;
  /** Absolute offset of the value's metadata struct. */
  metadataOffset: number;
  ptr: number;
  size: number;
  height?: number;
  width?: number;
  channels?: number;
  mode?: number;
  numTokens?: number;
  encoding?: number;
}

export interface AllocEntry {
  ptr: number;
  size: number;
}

export interface MldfOpenOptions extends ReadOptions, VerifyOption {
  /** Bytes of metadata rows kept in memory (default 64 MiB); the table is read in 1 MiB pages on demand. */
  metadataCacheBytes?: number;
}

export interface SampleOptions extends ReadOptions {
  /** Read only these fields (default: all). */
  fields?: readonly string[];
  /**
   * Borrowed buffers (as FFCV does): byte values (BYTES, IMAGE_RAW pixels, NDARRAY data when
   * aligned) are views into memory this reader reuses, valid only until the next `reuse`
   * call (`sample`, `samples`) or, for `batches()`/`iterate()`, until the next batch is
   * requested. Saves allocating and first-touching fresh memory for every read; copy what
   * you keep. `sample`/`samples` borrow only from synchronous sources (memory, local files): a
   * read in flight could not share the buffer, so Blob and HTTP sources ignore it there. Default false.
   */
  reuse?: boolean;
  /**
   * `'eager'` (default): JSON values are parsed and TEXT_RAW values decoded to strings.
   * `'lazy'`: non-empty JSON and TEXT_RAW values are returned as {@link MldfLazyText}, which
   * holds the bytes and decodes (with the same checks) on `text()` / `value()`. Saves the
   * UTF-8 decode and `JSON.parse` for readers that skip those fields or decode them later.
   * Empty values come back as in eager mode (`undefined` for JSON, `''` for TEXT_RAW).
   */
  decode?: 'eager' | 'lazy';
}

export interface IterateOptions extends SampleOptions {
  /** First sample (default 0). */
  start?: number;
  /** One past the last sample (default num_samples). */
  end?: number;
  /**
   * Size of the sequential reads over the data region (default 4 MiB). The next window is read
   * while this one is decoded: local files on the thread pool, other sources as they answer.
   */
  windowSize?: number;
  /**
   * Samples per batch from `batches()` (default 256). With `reuse`, a batch also ends where
   * the window is refilled, so batches can be shorter.
   */
  batchSize?: number;
}
