import * as os from 'node:os';
import { describe, expect, it } from 'vitest';
import { Bench, heapAllocated } from '../src/harness.js';

const ITEMS = 100_000;

/** Builds ITEMS small arrays and keeps none: ~150 B of JS heap each, all garbage by the end. */
function allocateEach(): number {
  let sum = 0;
  for (let i = 0; i < ITEMS; i++) {
    const scratch = new Array<number>(16).fill(i);
    sum += scratch[15];
  }
  return sum;
}

function allocateNothing(): number {
  let sum = 0;
  for (let i = 0; i < ITEMS; i++) sum += i & 7;
  return sum;
}

describe('the JS heap a hot loop allocates per item', () => {
  it('counts memory a GC already freed, and not what was never allocated', async () => {
    const garbage = await heapAllocated(allocateEach);
    expect(garbage.bytes / ITEMS).toBeGreaterThan(100);
    // 15 MB of short-lived arrays cannot pass without a scavenge: the figure includes what it freed.
    expect(garbage.gcs).toBeGreaterThan(0);
    const none = await heapAllocated(allocateNothing);
    expect(none.bytes / ITEMS).toBeLessThan(8);
  });

  it("is a row's figure when the operation asks for it", async () => {
    const bench = new Bench(0.01, os.tmpdir());
    const row = await bench.compare(
      { format: 'test', operation: 'arrays', items: ITEMS, allocation: { count: ITEMS, unit: 'item' } },
      allocateEach,
    );
    expect(row.heapBytesPer?.unit).toBe('item');
    expect(row.heapBytesPer!.bytes).toBeGreaterThan(100);
    expect(row.figure).toMatch(/^[\d,]+ B of JS heap per item$/);
    const plain = await bench.compare(
      { format: 'test', operation: 'no figure', items: ITEMS },
      allocateNothing,
    );
    expect(plain.figure).toBeUndefined();
  });
});
