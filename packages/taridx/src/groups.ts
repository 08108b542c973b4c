import { R, ROW_SIZE } from './layout.js';

/**
 * Rows grouped into samples by (keyhash, crashid), in order of first appearance, with an
 * open-addressing hash table over the key so a sample is found in O(1). Rows are read in
 * place from the packed 32-byte records; nothing per row is allocated.
 */
export interface RowGroups {
  /** Number of samples (distinct (keyhash, crashid) pairs). */
  readonly count: number;
  /** Runs of equal (keyhash, crashid) in row order; equals `count` when rows are contiguous. */
  readonly runs: number;
  /** First row of each sample. */
  readonly first: Int32Array;
  /** Members per sample. */
  readonly sizes: Int32Array;
  /** Next row of the same sample, -1 after the last. */
  readonly next: Int32Array;
  /** The sample with this key, or -1. */
  find(lo: number, hi: number, crashid: number): number;
}

function slotOf(lo: number, hi: number, crashid: number, mask: number): number {
  return (lo ^ Math.imul(hi, 0x9e3779b1) ^ Math.imul(crashid, 0x85ebca6b)) & mask;
}

export function groupRows(rows: Uint8Array, rowCount: number): RowGroups {
  const view = new DataView(rows.buffer, rows.byteOffset, rows.byteLength);
  let capacity = 16;
  while (capacity < rowCount * 2) capacity *= 2;
  const mask = capacity - 1;
  const slots = new Int32Array(capacity).fill(-1);
  const first = new Int32Array(rowCount);
  const tail = new Int32Array(rowCount);
  const sizes = new Int32Array(rowCount);
  const next = new Int32Array(rowCount).fill(-1);
  let count = 0;
  let runs = 0;
  let prevLo = 0;
  let prevHi = 0;
  let prevCrash = -1;

  const keyAt = (row: number) => row * ROW_SIZE;
  const same = (row: number, lo: number, hi: number, crashid: number) => {
    const at = keyAt(row);
    return (
      view.getUint32(at + R.keyhash, true) === lo &&
      view.getUint32(at + R.keyhash + 4, true) === hi &&
      view.getUint32(at + R.crashid, true) === crashid
    );
  };

  for (let row = 0; row < rowCount; row++) {
    const at = keyAt(row);
    const lo = view.getUint32(at + R.keyhash, true);
    const hi = view.getUint32(at + R.keyhash + 4, true);
    const crashid = view.getUint32(at + R.crashid, true);
    if (lo !== prevLo || hi !== prevHi || crashid !== prevCrash) {
      runs++;
      prevLo = lo;
      prevHi = hi;
      prevCrash = crashid;
    }
    let slot = slotOf(lo, hi, crashid, mask);
    let group = -1;
    for (;;) {
      const g = slots[slot];
      if (g < 0) break;
      if (same(first[g], lo, hi, crashid)) {
        group = g;
        break;
      }
      slot = (slot + 1) & mask;
    }
    if (group < 0) {
      group = count++;
      slots[slot] = group;
      first[group] = row;
    } else {
      next[tail[group]] = row;
    }
    tail[group] = row;
    sizes[group]++;
  }

  return {
    count,
    runs,
    first: first.subarray(0, count),
    sizes: sizes.subarray(0, count),
    next,
    find(lo, hi, crashid) {
      let slot = slotOf(lo, hi, crashid, mask);
      for (;;) {
        const g = slots[slot];
        if (g < 0) return -1;
        if (same(first[g], lo, hi, crashid)) return g;
        slot = (slot + 1) & mask;
      }
    },
  };
}
