import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ByteSource, CountingSource, MemorySource, type ReadOptions } from '../src/index.js';
import { CoalescingSource, RequestPool } from '../src/http.js';

const payload = Uint8Array.from({ length: 1_000_000 }, (_, i) => (i * 131 + (i >> 9)) & 0xff);

/** A source whose reads take a while, recording how many were in flight at once. */
class SlowSource implements ByteSource {
  inFlight = 0;
  peak = 0;
  reads = 0;
  constructor(private readonly inner: ByteSource) {}
  get size() {
    return this.inner.size;
  }
  get name() {
    return this.inner.name;
  }
  async read(offset: number, length: number, options?: ReadOptions): Promise<Uint8Array> {
    this.reads++;
    this.inFlight++;
    this.peak = Math.max(this.peak, this.inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.inFlight--;
    return this.inner.read(offset, length, options);
  }
}

describe('CoalescingSource', () => {
  it("lets one pass's signal cancel a request merged from its reads, and no other's", async () => {
    const signals: Array<AbortSignal | undefined> = [];
    const inner: ByteSource = {
      size: payload.byteLength,
      name: 'signals',
      read: (offset, length, request) => {
        signals.push(request?.signal);
        return new MemorySource(payload).read(offset, length);
      },
    };
    const source = new CoalescingSource(inner, { gap: 0 });
    const pass = new AbortController();
    const other = new AbortController();
    await Promise.all([0, 1000, 2000].map((at) => source.read(at, 1000, { signal: pass.signal })));
    await Promise.all([
      source.read(10_000, 1000, { signal: pass.signal }),
      source.read(11_000, 1000, { signal: other.signal }),
    ]);
    expect(signals).toEqual([pass.signal, undefined]);
  });

  it('fetches reads issued together that lie side by side as one request', async () => {
    const inner = new CountingSource(new MemorySource(payload));
    const source = new CoalescingSource(inner, { gap: 0 });
    // Forty 1000-byte records read at once, as a batch of adjacent samples is.
    const parts = await Promise.all(
      Array.from({ length: 40 }, (_, i) => source.read(50_000 + i * 1000, 1000)),
    );
    expect(inner.reads).toBe(1);
    expect(inner.bytesRead).toBe(40_000);
    parts.forEach((part, i) => {
      const at = 50_000 + i * 1000;
      expect(Buffer.from(part).equals(Buffer.from(payload.subarray(at, at + 1000)))).toBe(true);
    });
  });

  it('merges reads within the gap but not farther apart, and a lone read stays one request', async () => {
    const inner = new CountingSource(new MemorySource(payload));
    const source = new CoalescingSource(inner, { gap: 4096 });
    await Promise.all([source.read(0, 100), source.read(4000, 100), source.read(500_000, 100)]);
    expect(inner.reads).toBe(2);
    expect(inner.bytesRead).toBe(4100 + 100);
    await source.read(900_000, 10);
    expect(inner.reads).toBe(3);
  });

  it('keeps at most the pool limit of requests in flight, shared across sources', async () => {
    const pool = new RequestPool(3);
    const slowA = new SlowSource(new MemorySource(payload));
    const slowB = new SlowSource(new MemorySource(payload));
    const a = new CoalescingSource(slowA, { pool, gap: 0 });
    const b = new CoalescingSource(slowB, { pool, gap: 0 });
    // Far apart: nothing merges, so 2 × 20 requests queue for 3 slots.
    const far = (i: number) => i * 40_000;
    await Promise.all(Array.from({ length: 20 }, (_, i) => [a.read(far(i), 10), b.read(far(i), 10)]).flat());
    expect(slowA.reads + slowB.reads).toBe(40);
    expect(pool.peak).toBe(3);
    expect(Math.max(slowA.peak, slowB.peak)).toBeLessThanOrEqual(3);
  });

  it('gives each caller exactly its bytes for any batch of reads', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: -5, max: 1_010_000 }), fc.integer({ min: 0, max: 70_000 })), {
          maxLength: 30,
        }),
        fc.integer({ min: 0, max: 100_000 }),
        async (reads, gap) => {
          const source = new CoalescingSource(new MemorySource(payload), { gap, maxSpan: 200_000 });
          const got = await Promise.all(reads.map(([offset, length]) => source.read(offset, length)));
          reads.forEach(([offset, length], i) => {
            const start = Math.min(Math.max(0, offset), payload.byteLength);
            const want = payload.subarray(start, Math.min(payload.byteLength, start + length));
            expect(Buffer.from(got[i]).equals(Buffer.from(want))).toBe(true);
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('hands an inner failure to every read of the merged request', async () => {
    const failing: ByteSource = {
      size: 1000,
      name: 'broken',
      read: () => Promise.reject(new Error('gone')),
    };
    const source = new CoalescingSource(failing);
    const results = await Promise.allSettled([source.read(0, 10), source.read(10, 10)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
