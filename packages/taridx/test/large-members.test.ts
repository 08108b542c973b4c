import type { ByteSource } from '@binscope/core';
import { isBinscopeError, MemorySource, readExact } from '@binscope/core';
import { tarHeader } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { indexShards, MAX_MEMBER_BYTES, openTaridx, taridxPlugin } from '../src/index.js';

const GiB = 2 ** 30;
const enc = new TextEncoder();

/**
 * A tar shard that exists only as its headers and labels: every other byte reads as zero, so
 * a 5 GiB member costs nothing. Records the largest single read, to show reads stay bounded.
 */
class SparseTar implements ByteSource {
  readonly name = 'big_0.tar';
  size = 0;
  largestRead = 0;
  private readonly parts: { at: number; bytes: Uint8Array }[] = [];

  add(name: string, size: number, payload?: Uint8Array): number {
    const at = this.size;
    this.parts.push({ at, bytes: tarHeader({ name, size }) });
    if (payload) this.parts.push({ at: at + 512, bytes: payload });
    this.size = at + 512 + Math.ceil(size / 512) * 512;
    return at;
  }

  end(): this {
    this.size += 1024;
    return this;
  }

  /** Bytes at `at` (anywhere: a payload's last bytes). */
  put(at: number, bytes: Uint8Array): void {
    this.parts.push({ at, bytes });
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    this.largestRead = Math.max(this.largestRead, length);
    const out = new Uint8Array(Math.max(0, Math.min(length, this.size - offset)));
    for (const { at, bytes } of this.parts) {
      const from = Math.max(at, offset);
      const to = Math.min(at + bytes.byteLength, offset + out.byteLength);
      if (from < to) out.set(bytes.subarray(from - at, to - at), from - offset);
    }
    return out;
  }
}

async function shardWithHugeMember() {
  const shard = new SparseTar();
  shard.add('a.cls', 1, enc.encode('1'));
  const big = shard.add('a.bin', 5 * GiB);
  // The member's last four bytes, 5 GiB in.
  shard.put(big + 512 + 5 * GiB - 4, enc.encode('tail'));
  shard.add('b.cls', 1, enc.encode('2'));
  shard.end();
  const { bytes } = await indexShards([shard]);
  // The indexer reads ahead in 64 KiB windows; count from here on.
  shard.largestRead = 0;
  const reader = await openTaridx(new MemorySource(bytes, 'big.taridx'), { shards: [shard] });
  return { shard, reader };
}

describe('members over 4 GiB', () => {
  it('lists keys and member headers without reading the 5 GiB payload', async () => {
    const { shard, reader } = await shardWithHugeMember();
    const keys: (string | undefined)[] = [];
    for await (const sample of reader.samples()) keys.push(await reader.key(sample));
    expect(keys).toEqual(['a', 'b']);
    const info = await reader.memberHeader(2);
    expect(info.path).toBe('b.cls');
    expect(shard.largestRead).toBe(512);
  });

  it('refuses to return a member over MAX_MEMBER_BYTES whole, naming the streaming API', async () => {
    const { reader } = await shardWithHugeMember();
    const sample = (await reader.find('a'))!;
    const big = reader.members(sample, 'bin')[0];
    expect(big.size).toBe(5 * GiB);
    for (const attempt of [
      () => reader.readSample(sample),
      () => reader.readMember(big),
      () => reader.get('a', { ext: 'bin' }),
    ]) {
      const error = await (async () => attempt())().catch((e: unknown) => e);
      expect(isBinscopeError(error, 'UnsupportedFeature'), String(error)).toBe(true);
      expect(String(error)).toMatch(/streamMember/);
    }
    // Answered at once (the shard is given as a source): the same error, thrown.
    expect(() => reader.readSample(sample)).toThrow(/streamMember/);
    // The small member of the same sample still reads.
    expect((await reader.readSample(sample, { ext: 'cls' }))[0].data).toEqual(enc.encode('1'));
    expect(MAX_MEMBER_BYTES).toBeLessThan(4 * GiB);
  });

  it('streams a 5 GiB member in bounded chunks, header checked against the key first', async () => {
    const { shard, reader } = await shardWithHugeMember();
    const sample = (await reader.find('a'))!;
    const big = reader.members(sample, 'bin')[0];
    let total = 0;
    let chunks = 0;
    // The first chunks and then stop: reading all 5 GiB of zeros would only test the clock.
    for await (const chunk of reader.streamMember(big, { sample, chunkSize: 1 << 20 })) {
      total += chunk.byteLength;
      if (++chunks === 8) break;
    }
    expect(total).toBe(8 << 20);
    expect(shard.largestRead).toBe(1 << 20);
    // Verification: the same member under another sample's key is refused before any payload.
    const other = (await reader.find('b'))!;
    const wrong = reader.streamMember(big, { sample: other })[Symbol.asyncIterator]();
    const error = await wrong.next().catch((e: unknown) => e);
    expect(isBinscopeError(error, 'InvalidValue'), String(error)).toBe(true);
  });

  it('valueSource gives the 5 GiB member as a source: any range read where it is, nothing held', async () => {
    const { shard, reader } = await shardWithHugeMember();
    const samples = { table: 'samples' };
    const index = (await taridxPlugin.capabilities!.lookup!(reader, 'a', samples))!;
    const value = (await taridxPlugin.capabilities!.valueSource!(reader, index, 'bin', samples))!;
    expect(value.size).toBe(5 * GiB);
    expect(new TextDecoder().decode(await readExact(value, 5 * GiB - 4, 4))).toBe('tail');
    expect(await readExact(value, 0, 4)).toEqual(new Uint8Array(4));
    // Past its end a read gets what is there, never the next member's header.
    expect((await value.read(5 * GiB - 2, 1 << 20)).byteLength).toBe(2);
    // Tar headers (a span of a sample's headers) and the ranges asked for: never the payload.
    expect(shard.largestRead).toBeLessThanOrEqual(64 << 10);
    await value.close?.();
  });

  it('streams a small member to exactly its bytes', async () => {
    const shard = new SparseTar();
    const payload = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7) & 0xff);
    shard.add('k.dat', payload.byteLength, payload);
    shard.end();
    const { bytes } = await indexShards([shard]);
    const reader = await openTaridx(new MemorySource(bytes, 'k.taridx'), { shards: [shard] });
    const sample = (await reader.find('k'))!;
    const parts: Uint8Array[] = [];
    for await (const chunk of reader.streamMember(sample.members[0], { sample, chunkSize: 1024 }))
      parts.push(chunk.slice());
    expect(parts.map((p) => p.byteLength)).toEqual([1024, 1024, 952]);
    expect(Buffer.concat(parts)).toEqual(Buffer.from(payload));
  });
});
