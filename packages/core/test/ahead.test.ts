import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  type Awaitable,
  type ByteSource,
  isBinscopeError,
  MemorySource,
  type ReadRequest,
} from '../src/index.js';
import { ReadAhead } from '../src/binary.js';

/**
 * A memory source whose deferred reads (`defer: true`, what ReadAhead asks for) finish a few
 * microtask turns later, as a thread-pool read does, and which counts them.
 */
class SlowMemory implements ByteSource {
  reads: Array<[position: number, length: number]> = [];
  /** The buffers deferred reads were asked to fill. */
  targets = new Set<ArrayBufferLike>();
  inFlight = 0;
  private readonly memory: MemorySource;
  constructor(bytes: Uint8Array, name?: string) {
    this.memory = new MemorySource(bytes, name);
  }
  get size(): number {
    return this.memory.size;
  }
  get name(): string {
    return this.memory.name;
  }
  read(offset: number, length: number, request?: ReadRequest): Awaitable<Uint8Array> {
    if (!request?.defer) return this.memory.read(offset, length, request);
    return this.later(offset, length, request);
  }
  private async later(position: number, length: number, request: ReadRequest): Promise<Uint8Array> {
    this.reads.push([position, length]);
    if (request.into) this.targets.add(request.into.buffer);
    this.inFlight++;
    for (let i = 0; i < 3; i++) await Promise.resolve();
    this.inFlight--;
    return this.memory.read(position, length, request);
  }
}

const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 31 + (i >> 9)) & 0xff);

/** Records [lo, hi) back to back from `start`, as a sequential reader meets them. */
function records(lengths: number[], start = 0): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let at = start;
  for (const length of lengths) {
    out.push([at, at + length]);
    at += length;
  }
  return out;
}

/** Records with a gap before each, as one field of several is met in a file. */
function sparse(lengths: number[], gaps: number[], start = 0): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let at = start;
  for (const [i, length] of lengths.entries()) {
    at += gaps[i % gaps.length];
    out.push([at, at + length]);
    at += length;
  }
  return out;
}

/** Walks records the way MLDF's batches() does, checking every record's bytes. */
async function walk(
  source: SlowMemory,
  ranges: Array<[number, number]>,
  chunk: number,
  recycle: boolean,
  depth = 1,
) {
  const ahead = new ReadAhead(source, { chunk, recycle, depth });
  let advances = 0;
  for (const [lo, hi] of ranges) {
    if (!(advances > 0 && lo >= ahead.lo && hi <= ahead.hi)) {
      await ahead.advance(lo, hi);
      ahead.prefetch();
      expect(source.inFlight).toBeLessThanOrEqual(depth);
      advances++;
    }
    const got = ahead.bytes.subarray(lo - ahead.lo, hi - ahead.lo);
    // A byte loop: toEqual on thousands of typed-array elements is slow enough to time out.
    const same = got.byteLength === hi - lo && got.every((b, i) => b === bytes[lo + i]);
    if (!same) expect.fail(`record [${lo}, ${hi}) differs (chunk ${chunk}, recycle ${recycle})`);
  }
  await ahead.settle();
  return advances;
}

describe('ReadAhead', () => {
  it('reads ahead through any source, one that answers synchronously too', async () => {
    const source = new MemorySource(bytes, 'mem.bin');
    const ahead = new ReadAhead(source, { chunk: 4096, recycle: true });
    for (const [lo, hi] of records(Array.from({ length: 100 }, () => 999))) {
      if (!(lo >= ahead.lo && hi <= ahead.hi && ahead.hi > 0)) {
        await ahead.advance(lo, hi);
        ahead.prefetch();
      }
      const got = ahead.bytes.subarray(lo - ahead.lo, hi - ahead.lo);
      if (!got.every((b, i) => b === bytes[lo + i])) expect.fail(`record [${lo}, ${hi}) differs`);
    }
    await ahead.settle();
  });

  it('reads each chunk once, ahead of use, carrying records that straddle chunks', async () => {
    const source = new SlowMemory(bytes, 'slow.bin');
    const ranges = records(Array.from({ length: 300 }, (_, i) => 300 + ((i * 37) % 500)));
    await walk(source, ranges, 4096, true);
    const chunks = source.reads.map(([position]) => position);
    // After the first direct read, every read continues where the previous chunk ended.
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]).toBe(chunks[i - 1] + source.reads[i - 1][1]);
    expect(chunks[chunks.length - 1] + source.reads[source.reads.length - 1][1]).toBeGreaterThanOrEqual(
      ranges[ranges.length - 1][1],
    );
  });

  it('uses the chunk read ahead when the next record starts past the window, inside that chunk', async () => {
    // One field of several: records with gaps between them, so windows skip bytes at chunk ends.
    const source = new SlowMemory(bytes, 'sparse.bin');
    const ranges = sparse(
      Array.from({ length: 200 }, (_, i) => 20 + ((i * 13) % 90)),
      Array.from({ length: 200 }, (_, i) => 300 + ((i * 53) % 700)),
    );
    await walk(source, ranges, 4096, true);
    // Every chunk after the first continues where the one before ended: none is read twice.
    for (let i = 1; i < source.reads.length; i++)
      expect(source.reads[i][0]).toBe(source.reads[i - 1][0] + source.reads[i - 1][1]);
    expect(source.reads.length).toBeLessThanOrEqual(Math.ceil(ranges[ranges.length - 1][1] / 4096) + 1);
  });

  it('hands out fresh windows whose whole buffer holds only bytes read or zeros, never old memory', async () => {
    // Fresh windows come from Node's uninitialised memory; here it is full of 0xAA, so any
    // byte of a window's buffer that was neither read nor cleared would show.
    const unsafe = vi
      .spyOn(Buffer, 'allocUnsafeSlow')
      .mockImplementation((size: number) => Buffer.alloc(size, 0xaa));
    try {
      const window = 64 * 1024;
      const source = new MemorySource(new Uint8Array(5 * window - 877), 'zeros.bin');
      const ahead = new ReadAhead(source, { chunk: window });
      for (let at = 0; at < source.size; ) {
        const hi = Math.min(source.size, at + 40_000);
        await ahead.advance(at, hi);
        ahead.prefetch();
        const whole = new Uint8Array(ahead.bytes.buffer);
        if (whole.some((b) => b !== 0)) expect.fail(`the window at ${at} shows bytes nobody read`);
        at = hi;
      }
      await ahead.settle();
      expect(unsafe).toHaveBeenCalled();
    } finally {
      unsafe.mockRestore();
    }
  });

  it('clears what a short read left unfilled', async () => {
    const unsafe = vi
      .spyOn(Buffer, 'allocUnsafeSlow')
      .mockImplementation((size: number) => Buffer.alloc(size, 0xaa));
    // A source that says it holds 3,000 bytes and then delivers 1,000 (a file cut while read).
    const short: ByteSource = {
      name: 'short.bin',
      size: 3000,
      read: (_offset, _length, request) => {
        request?.into?.fill(0, 0, 1000);
        return request?.into ? request.into.subarray(0, 1000) : new Uint8Array(1000);
      },
    };
    try {
      const ahead = new ReadAhead(short, { chunk: 1024 });
      await ahead.advance(0, 500);
      expect(ahead.hi).toBe(1000);
      expect(new Uint8Array(ahead.bytes.buffer).every((b) => b === 0)).toBe(true);
    } finally {
      unsafe.mockRestore();
    }
  });

  it('reads records larger than a chunk directly', async () => {
    const source = new SlowMemory(bytes);
    await walk(source, records([100, 10_000, 50, 20_000, 30]), 1024, true);
  });

  it('matches the file for any record sizes, chunk size and buffer policy', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 64, max: 8192 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 0, max: 6000 }), { minLength: 1, maxLength: 8 }),
        async (lengths, start, chunk, recycle, depth, gaps) => {
          await walk(new SlowMemory(bytes), records(lengths, start), chunk, recycle, depth);
          await walk(new SlowMemory(bytes), sparse(lengths, gaps, start), chunk, recycle, depth);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('checks a record against the source before sizing a buffer by it', async () => {
    const source = new SlowMemory(bytes.subarray(0, 1000), 'short.bin');
    const ahead = new ReadAhead(source, { chunk: 256, end: 2000 });
    await ahead.advance(0, 100);
    const out = await ahead.advance(900, 1000).then(
      () => undefined,
      (e) => e,
    );
    expect(out).toBeUndefined();
    const huge = await ahead.advance(950, 2 ** 40).catch((e) => e);
    expect(isBinscopeError(huge, 'Truncated')).toBe(true);
    expect(huge.file).toBe('short.bin');
    expect(huge.offset).toBe(950);
    const past = await ahead.advance(5000, 5010).catch((e) => e);
    expect(isBinscopeError(past, 'OutOfBounds')).toBe(true);
  });

  it('keeps up to `depth` chunks in flight, in file order, in depth + 1 recycled buffers', async () => {
    const source = new SlowMemory(bytes);
    const { targets } = source;
    const ahead = new ReadAhead(source, { chunk: 1000, depth: 3, recycle: true });
    await ahead.advance(0, 10);
    ahead.prefetch();
    expect(source.inFlight).toBe(3);
    expect(source.reads.map(([position]) => position)).toEqual([0, 1000, 2000, 3000]);
    for (let at = 1000; at < 20_000; at += 1000) {
      await ahead.advance(at, at + 10);
      ahead.prefetch();
      expect(ahead.bytes[0]).toBe(bytes[at]);
    }
    expect(targets.size).toBe(4);
    await ahead.settle();
    expect(source.inFlight).toBe(0);
  });

  it('drops the chunks read ahead when the window jumps elsewhere', async () => {
    const source = new SlowMemory(bytes);
    const ahead = new ReadAhead(source, { chunk: 1000, depth: 2 });
    await ahead.advance(0, 10);
    ahead.prefetch();
    await ahead.advance(50_000, 50_100);
    expect(source.inFlight).toBe(0);
    expect(ahead.lo).toBe(50_000);
    expect(ahead.bytes.subarray(0, 100)).toEqual(bytes.subarray(50_000, 50_100));
    ahead.prefetch();
    await ahead.advance(51_000, 51_010);
    expect(ahead.bytes[0]).toBe(bytes[51_000]);
    await ahead.settle();
  });

  it('settle waits for the read in flight', async () => {
    const source = new SlowMemory(bytes);
    const ahead = new ReadAhead(source, { chunk: 1000 });
    await ahead.advance(0, 10);
    ahead.prefetch();
    expect(source.inFlight).toBe(1);
    await ahead.settle();
    expect(source.inFlight).toBe(0);
  });
});
