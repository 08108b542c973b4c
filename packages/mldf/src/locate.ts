import type { ErrorFactory } from '@binscope/core';
import { readU64, readU64Exact } from '@binscope/core/binary';
import type { MldfField, MldfHeader, MldfLayout } from './layout.js';
import type { ValueInfo } from './values.js';

/** Where values may lie (M7) and how to report one that does not. */
export interface ValueBounds {
  metadataPtr: number;
  rowSize: number;
  dataPtr: number;
  dataEnd: number;
  error: ErrorFactory;
}

export function valueBounds(header: MldfHeader, layout: MldfLayout, error: ErrorFactory): ValueBounds {
  const { metadataPtr, dataPtr } = header;
  return { metadataPtr, rowSize: layout.rowSize, dataPtr, dataEnd: layout.dataEnd, error };
}

/** Two ranges closer than this are read as one: a few KiB of waste beats a second syscall or request. */
export const COALESCE_GAP = 64 << 10;

/** A sample's metadata row and the [ptr, size] of each selected field. */
export interface Located {
  index: number;
  view: DataView;
  pos: number;
  slots: Float64Array;
  lo: number;
  hi: number;
  total: number;
  lazy: boolean;
}

/** `scratch`: reuse this slots array (the caller decodes before the next locate). */
export function locate(
  bounds: ValueBounds,
  index: number,
  sel: readonly MldfField[],
  view: DataView,
  pos: number,
  scratch?: Float64Array,
  lazy = false,
  into?: Located,
): Located {
  const slots = scratch && scratch.length >= sel.length * 2 ? scratch : new Float64Array(sel.length * 2);
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  let total = 0;
  for (let k = 0; k < sel.length; k++) {
    const f = sel[k];
    if (f.type === 'INT' || f.type === 'FLOAT') {
      // checkValue fills every other slot; these carry no bytes (a reused array may hold old ones).
      slots[k * 2] = 0;
      slots[k * 2 + 1] = 0;
      continue;
    }
    checkValue(bounds, view, pos, f, index, slots, k * 2);
    const size = slots[k * 2 + 1];
    if (size === 0) continue;
    const ptr = slots[k * 2];
    if (ptr < lo) lo = ptr;
    if (ptr + size > hi) hi = ptr + size;
    total += size;
  }
  if (into === undefined) return { index, view, pos, slots, lo: hi === 0 ? 0 : lo, hi, total, lazy };
  // Sync callers that decode before the next locate: one object for every sample.
  into.index = index;
  into.view = view;
  into.pos = pos;
  into.slots = slots;
  into.lo = hi === 0 ? 0 : lo;
  into.hi = hi;
  into.total = total;
  into.lazy = lazy;
  return into;
}

/**
 * Reads a value's [ptr, size] into slots and checks its struct in A2 order: reserved
 * bytes, enums, the range against the data region (M7: before any table lookup), then
 * the size against the field's dtype/shape or the image geometry.
 */
export function checkValue(
  bounds: ValueBounds,
  view: DataView,
  pos: number,
  f: MldfField,
  index: number,
  slots: Float64Array,
  at: number,
): void {
  const p = pos + f.metadataOffset;
  const abs = bounds.metadataPtr + index * bounds.rowSize + f.metadataOffset;
  const ptr = readU64(view, p);
  const size = view.getUint32(p + 8, true);
  if (f.type === 'IMAGE_RAW') {
    if (view.getUint16(p + 22, true) !== 0)
      throw bounds.error(
        'ReservedNonZero',
        `${whereOf(index, f)}: image metadata padding must be 0`,
        abs + 22,
      );
    const mode = view.getUint8(p + 17);
    if (mode === 1 || mode === 2) {
      throw bounds.error(
        'UnsupportedFeature',
        `${whereOf(index, f)}: image mode ${mode} (${mode === 1 ? 'JPEG' : 'PNG'}) is not supported`,
        abs + 17,
      );
    }
    if (mode !== 0)
      throw bounds.error('InvalidValue', `${whereOf(index, f)}: unknown image mode ${mode}`, abs + 17);
  } else if (f.type === 'TEXT_RAW') {
    if (view.getUint8(p + 15) !== 0)
      throw bounds.error(
        'ReservedNonZero',
        `${whereOf(index, f)}: text metadata padding must be 0`,
        abs + 15,
      );
    const encoding = view.getUint8(p + 14);
    if (encoding === 1 || encoding === 2) {
      throw bounds.error(
        'UnsupportedFeature',
        `${whereOf(index, f)}: text encoding ${encoding} (token ids) is not supported`,
        abs + 14,
      );
    }
    if (encoding !== 0)
      throw bounds.error('InvalidValue', `${whereOf(index, f)}: unknown text encoding ${encoding}`, abs + 14);
  } else if (view.getUint32(p + 12, true) !== 0) {
    throw bounds.error('ReservedNonZero', `${whereOf(index, f)}: metadata padding must be 0`, abs + 12);
  }
  if (size === 0) {
    if (ptr !== 0)
      throw bounds.error(
        'InvalidValue',
        `${whereOf(index, f)}: empty value must have ptr 0, has ${readU64Exact(view, p)}`,
        abs,
      );
  } else if (ptr < bounds.dataPtr || ptr + size > bounds.dataEnd) {
    throw bounds.error(
      'OutOfBounds',
      `${whereOf(index, f)}: value [${valueRange(view, p, size)}) lies outside the data region [${bounds.dataPtr}, ${bounds.dataEnd})`,
      abs,
    );
  }
  if (f.type === 'NDARRAY') {
    const nd = f.ndarray!;
    if (size !== 0 && size !== nd.byteLength) {
      throw bounds.error(
        'CountMismatch',
        `${whereOf(index, f)}: ${size} bytes, but ${nd.dtype} [${nd.shape.join(', ')}] needs ${nd.byteLength}`,
        abs + 8,
      );
    }
  } else if (f.type === 'IMAGE_RAW') {
    const pixels = view.getUint16(p + 12, true) * view.getUint16(p + 14, true) * view.getUint8(p + 16);
    if (size !== pixels && size !== 0) {
      throw bounds.error(
        'CountMismatch',
        `${whereOf(index, f)}: ${size} bytes, but height·width·channels is ${pixels}`,
        abs + 8,
      );
    }
    if (size === 0 && pixels !== 0) {
      throw bounds.error(
        'CountMismatch',
        `${whereOf(index, f)}: empty pixel data for a ${pixels}-byte image`,
        abs + 8,
      );
    }
  }
  slots[at] = ptr;
  slots[at + 1] = size;
}

/** Adjacent values (what M6 writers produce): one read covers the sample. */
export function isCompact(loc: Located): boolean {
  return loc.hi - loc.lo <= loc.total + COALESCE_GAP;
}

function whereOf(index: number, f: MldfField): string {
  return `sample ${index} field '${f.name}'`;
}

const DATA_BEARING = new Set(['BYTES', 'NDARRAY', 'JSON', 'IMAGE_RAW', 'TEXT_RAW']);

/** A value's location and metadata struct, checked like a read (M5–M7) but not read. */
export function describeValue(
  bounds: ValueBounds,
  view: DataView,
  pos: number,
  f: MldfField,
  index: number,
): ValueInfo {
  const p = pos + f.metadataOffset;
  const metadataOffset = bounds.metadataPtr + index * bounds.rowSize + f.metadataOffset;
  if (!DATA_BEARING.has(f.type)) return { field: f.name, metadataOffset, ptr: 0, size: 0 };
  const slot = new Float64Array(2);
  checkValue(bounds, view, pos, f, index, slot, 0);
  const info: ValueInfo = { field: f.name, metadataOffset, ptr: slot[0], size: slot[1] };
  if (f.type === 'IMAGE_RAW') {
    info.height = view.getUint16(p + 12, true);
    info.width = view.getUint16(p + 14, true);
    info.channels = view.getUint8(p + 16);
    info.mode = view.getUint8(p + 17);
  } else if (f.type === 'TEXT_RAW') {
    info.numTokens = view.getUint16(p + 12, true);
    info.encoding = view.getUint8(p + 14);
  }
  return info;
}

/** "ptr, ptr + size" for a message, exact however large ptr is. */
export function valueRange(view: DataView, pos: number, size: number): string {
  const ptr = readU64Exact(view, pos);
  return typeof ptr === 'bigint' ? `${ptr}, ${ptr + BigInt(size)}` : `${ptr}, ${BigInt(ptr) + BigInt(size)}`;
}
