import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ByteSource,
  CountingSource,
  isBinscopeError,
  MemorySource,
  type ReadRequest,
} from '../src/index.js';
import { ForwardReadSource } from '../src/binary.js';

const payload = Uint8Array.from({ length: 3_000_000 }, (_, i) => (i * 37 + (i >> 11)) & 0xff);

describe('ForwardReadSource', () => {
  it('serves a forward walk of small reads with few reads of the source', async () => {
    const inner = new CountingSource(new MemorySource(payload));
    const source = new ForwardReadSource(inner, { minWindow: 64 * 1024, maxWindow: 1 << 20 });
    // A tar-like walk: a 512-byte header, then a skip over a payload.
    let reads = 0;
    for (let at = 0; at + 512 <= payload.byteLength; at += 512 + 4096) {
      expect(Array.from(await source.read(at, 512))).toEqual(Array.from(payload.subarray(at, at + 512)));
      reads++;
    }
    expect(reads).toBeGreaterThan(600);
    expect(inner.reads).toBeLessThan(15);
  });

  it('passes random reads straight through, one read each', async () => {
    const inner = new CountingSource(new MemorySource(payload));
    const source = new ForwardReadSource(inner);
    const picks = [2_500_000, 10, 1_900_000, 700_000, 40_000, 2_990_000, 5];
    for (const at of picks) await source.read(at, 100);
    expect(inner.reads).toBe(picks.length);
    expect(inner.bytesRead).toBe(picks.length * 100);
  });

  it('fetches the next window while the caller works on this one, once the pass is sequential', async () => {
    const asked: Array<[number, number]> = [];
    const inner: ByteSource = {
      size: payload.byteLength,
      name: 'recorded',
      read: (offset, length) => {
        asked.push([offset, offset + length]);
        return new MemorySource(payload).read(offset, length);
      },
    };
    const source = new ForwardReadSource(inner, {
      minWindow: 64 * 1024,
      maxWindow: 1 << 20,
      prefetchFrom: 256 * 1024,
    });
    let ahead = Number.POSITIVE_INFINITY;
    for (let at = 0; at + 100_000 <= payload.byteLength; at += 100_000) {
      await source.read(at, 100_000);
      const askedTo = Math.max(...asked.map(([, askedEnd]) => askedEnd));
      // Past the ramp-up and before the end of the file.
      if (at >= 1_200_000 && at <= 2_200_000) ahead = Math.min(ahead, askedTo - (at + 100_000));
    }
    // Once the run has read a window's worth, 400 KB or more beyond what it has read is asked for
    // (without prefetching, the caller gets within 150 KB of the end of what was asked).
    expect(ahead).toBeGreaterThanOrEqual(400_000);
    expect(asked.length).toBeLessThan(10);
  });

  it('fetches nothing ahead for a short forward run (a head of a few records)', async () => {
    const inner = new CountingSource(new MemorySource(payload));
    const source = new ForwardReadSource(inner, {
      minWindow: 64 * 1024,
      maxWindow: 1 << 20,
      prefetchFrom: 256 * 1024,
    });
    await source.read(0, 1000);
    // One big chunk read by the caller itself, then a few records inside it.
    await source.read(1000, 600_000);
    for (let at = 1000; at < 200_000; at += 20_000) await source.read(at, 1000);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(inner.reads).toBe(2);
    expect(inner.bytesRead).toBe(601_000);
  });

  it("with a pass's signal, aborting it cancels the window fetched ahead and makes no more reads", async () => {
    let reading = 0;
    const asked: Array<{ offset: number; signal?: AbortSignal; outcome?: Promise<unknown> }> = [];
    // Reads of what the caller asks for answer at once; a window fetched ahead of the caller
    // stays on its way until its signal aborts it (a request held by a slow server).
    const inner: ByteSource = {
      size: payload.byteLength,
      name: 'held',
      read: (offset: number, length: number, request?: ReadRequest) => {
        const entry: (typeof asked)[number] = { offset, signal: request?.signal };
        asked.push(entry);
        // As fetch does: an aborted signal fails the request before it goes out.
        if (request?.signal?.aborted) return Promise.reject(request.signal.reason);
        if (offset < reading) return new MemorySource(payload).read(offset, length);
        const held = new Promise<Uint8Array>((_, reject) =>
          request?.signal?.addEventListener('abort', () => reject(request.signal?.reason), { once: true }),
        );
        entry.outcome = held.catch((error) => error);
        return held;
      },
    };
    const pass = new AbortController();
    const source = new ForwardReadSource(inner, {
      minWindow: 64 * 1024,
      maxWindow: 1 << 20,
      prefetchFrom: 256 * 1024,
      signal: pass.signal,
    });
    let at = 0;
    while (!asked.some((entry) => entry.outcome)) {
      reading = at + 100_000;
      await source.read(at, 100_000);
      await Promise.resolve();
      at += 100_000;
      expect(at).toBeLessThan(payload.byteLength);
    }
    const ahead = asked.find((entry) => entry.outcome)!;
    expect(ahead.signal?.aborted).toBe(false);
    const before = asked.length;
    pass.abort();
    expect(ahead.signal?.aborted).toBe(true);
    expect(await ahead.outcome).toBeDefined();
    // Inside the current window or not, nothing more is read once the pass is over.
    for (const offset of [at, at - 50_000, 2_000_000]) {
      const refused = await source.read(offset, 1000).catch((error: unknown) => error);
      expect(isBinscopeError(refused, 'SourceError')).toBe(true);
    }
    expect(asked.length).toBe(before);
  });

  it('returns exactly the bytes the source holds, for any sequence of reads', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: -10, max: 3_100_000 }), fc.integer({ min: 0, max: 300_000 })), {
          maxLength: 40,
        }),
        async (reads) => {
          const source = new ForwardReadSource(new MemorySource(payload), {
            minWindow: 4096,
            maxWindow: 1 << 18,
            prefetchFrom: 16_384,
            headWindow: 1000,
          });
          for (const [offset, length] of reads) {
            const start = Math.min(Math.max(0, offset), payload.byteLength);
            const want = payload.subarray(start, Math.min(payload.byteLength, start + length));
            expect(Buffer.from(await source.read(offset, length)).equals(Buffer.from(want))).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
