import { type ByteSource, type FormatError, formatErrors, type ReadOptions, readExact } from '@binscope/core';
import { readU64 } from '@binscope/core/binary';
import { ALLOC_ENTRY_SIZE, FORMAT_ID, type MldfHeader, type MldfLayout } from './layout.js';
import { valueRange } from './locate.js';
import type { AllocEntry } from './values.js';

const ALLOC_CHUNK_BYTES = 1 << 20;

/** One (ptr, size) per non-empty value, and where its metadata struct is (for errors). */
export interface ValueRanges {
  ptrs: Float64Array;
  sizes: Float64Array;
  owners: Float64Array;
  count: number;
}

export interface RawAllocEntry {
  ptr: number;
  size: number;
}

/**
 * M7's order of checks: each entry is first matched to the value it belongs to (by ptr) and
 * its size compared with that value's, then every value must have found its entry, and only
 * then are the entries checked against each other (sorted, not overlapping). A wrong size that
 * also makes an entry overlap its neighbour is so reported as the `CountMismatch` it is, not as
 * an `InvalidValue` overlap. Entries arrive as a stream; the values are held in memory.
 */
export async function matchAllocations(
  values: ValueRanges,
  entries: AsyncIterable<RawAllocEntry[]>,
  allocTablePtr: number,
  file: string,
): Promise<void> {
  const error = formatErrors(FORMAT_ID, file);
  const { ptrs, sizes, owners, count } = values;
  const order = sortedOrder(ptrs, count);
  const matched = new Uint8Array(count);
  let orderDefect: FormatError | undefined;
  let prevPtr = -1;
  let prevEnd = -1;
  let entryIndex = 0;
  let expected = 0;
  for await (const chunk of entries) {
    for (const entry of chunk) {
      const at = allocTablePtr + entryIndex * ALLOC_ENTRY_SIZE;
      // Entries usually come in value order: try the next value before searching.
      const rank =
        expected < count && ptrs[order[expected]] === entry.ptr
          ? expected
          : findPtr(ptrs, order, count, entry.ptr);
      if (rank < 0) {
        throw error(
          'CountMismatch',
          `allocation entry ${entryIndex} (ptr ${entry.ptr}) belongs to no value`,
          at,
        );
      }
      const v = order[rank];
      if (sizes[v] !== entry.size) {
        throw error(
          'CountMismatch',
          `allocation entry ${entryIndex} says ${entry.size} bytes, the value's metadata says ${sizes[v]}`,
          at + 8,
        );
      }
      if (!orderDefect) {
        if (entry.ptr <= prevPtr || matched[rank]) {
          orderDefect = error(
            'InvalidValue',
            `allocation table is not sorted by ptr at entry ${entryIndex}`,
            at,
          );
        } else if (entry.ptr < prevEnd) {
          orderDefect = error('InvalidValue', `allocation entry ${entryIndex} overlaps the previous one`, at);
        }
      }
      matched[rank] = 1;
      expected = rank + 1;
      prevPtr = entry.ptr;
      prevEnd = entry.ptr + entry.size;
      entryIndex++;
    }
  }
  const missing = matched.indexOf(0);
  if (missing >= 0) {
    const v = order[missing];
    throw error(
      'CountMismatch',
      `value at ${ptrs[v]} (${sizes[v]} bytes) has no allocation entry`,
      owners[v],
    );
  }
  if (orderDefect) throw orderDefect;
}

/** Value indexes by ascending ptr (values are written in ptr order, so usually the identity). */
function sortedOrder(ptrs: Float64Array, count: number): Uint32Array {
  const order = new Uint32Array(count);
  let sorted = true;
  for (let k = 0; k < count; k++) {
    order[k] = k;
    if (k > 0 && ptrs[k] <= ptrs[k - 1]) sorted = false;
  }
  if (!sorted) order.sort((a, b) => ptrs[a] - ptrs[b]);
  return order;
}

/** The rank (position in `order`) of the value starting at `ptr`, or -1. */
function findPtr(ptrs: Float64Array, order: Uint32Array, count: number, ptr: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const p = ptrs[order[mid]];
    if (p === ptr) return mid;
    if (p < ptr) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * The allocation table (M7), streamed in 1 MiB pieces and checked as it goes: zero
 * padding, each entry non-empty and inside the data region, entries sorted by ptr and
 * not overlapping (unless `checkOrder` is false: checkAllocations orders its checks itself).
 */
export async function* readAllocationEntries(
  source: ByteSource,
  header: MldfHeader,
  layout: MldfLayout,
  options: ReadOptions,
  checkOrder: boolean,
): AsyncGenerator<AllocEntry[]> {
  const error = formatErrors(FORMAT_ID, source.name);
  const count = layout.allocCount;
  const perChunk = ALLOC_CHUNK_BYTES / ALLOC_ENTRY_SIZE;
  const { dataPtr, allocTablePtr } = header;
  let prevEnd = -1;
  let prevPtr = -1;
  for (let first = 0; first < count; first += perChunk) {
    const n = Math.min(perChunk, count - first);
    const base = allocTablePtr + first * ALLOC_ENTRY_SIZE;
    const bytes = await readExact(source, base, n * ALLOC_ENTRY_SIZE, {
      format: FORMAT_ID,
      what: 'allocation table',
      signal: options.signal,
    });
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out: AllocEntry[] = new Array(n);
    for (let k = 0; k < n; k++) {
      const at = base + k * ALLOC_ENTRY_SIZE;
      const ptr = readU64(view, k * ALLOC_ENTRY_SIZE);
      const size = view.getUint32(k * ALLOC_ENTRY_SIZE + 8, true);
      if (view.getUint32(k * ALLOC_ENTRY_SIZE + 12, true) !== 0) {
        throw error('ReservedNonZero', `allocation entry ${first + k}: padding must be 0`, at + 12);
      }
      if (size === 0)
        throw error(
          'InvalidValue',
          `allocation entry ${first + k} has size 0 (empty values get no entry)`,
          at + 8,
        );
      if (ptr < dataPtr || ptr + size > allocTablePtr) {
        throw error(
          'OutOfBounds',
          `allocation entry ${first + k} [${valueRange(view, k * ALLOC_ENTRY_SIZE, size)}) lies outside the data region [${dataPtr}, ${allocTablePtr})`,
          at,
        );
      }
      if (checkOrder && ptr <= prevPtr)
        throw error('InvalidValue', `allocation table is not sorted by ptr at entry ${first + k}`, at);
      if (checkOrder && ptr < prevEnd)
        throw error('InvalidValue', `allocation entry ${first + k} overlaps the previous one`, at);
      prevPtr = ptr;
      prevEnd = ptr + size;
      out[k] = { ptr, size };
    }
    yield out;
  }
}
