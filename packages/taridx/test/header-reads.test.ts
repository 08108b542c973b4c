import { CountingSource, isBinscopeError, MemoryDirectory, MemorySource } from '@binscope/core';
import { paxRecords, tarBytes, tarHeader } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { indexShards, openTaridx } from '../src/index.js';
import { PSEUDO_PAYLOAD_LIMIT } from '../src/member-header.js';

const enc = new TextEncoder();
const MEMBER = 2 << 20;

/** A shard of WebDataset-like samples: a small label then a big image, so each key's header follows an image. */
async function bigMemberShard(samples: number, format: 'ustar' | 'gnu' | 'pax' = 'ustar') {
  const image = new Uint8Array(MEMBER).fill(7);
  const entries = [];
  for (let i = 0; i < samples; i++) {
    const stem = format === 'ustar' ? `s${i}` : `${'d'.repeat(120)}/s${i}`;
    entries.push({ name: `${stem}.cls`, data: enc.encode(`${i}`) }, { name: `${stem}.jpg`, data: image });
  }
  const shard = tarBytes(entries, format);
  const { bytes } = await indexShards({ directory: new MemoryDirectory({ 'f_0.tar': shard }), fold: 'f' });
  const counted = new CountingSource(new MemorySource(shard, 'f_0.tar'));
  const reader = await openTaridx(new MemorySource(bytes, 'f.taridx'), { shards: [counted] });
  return { reader, counted };
}

describe('key lookup and member headers read headers, not payloads', () => {
  it('reads one 512-byte header per key, whatever the size of the member before it', async () => {
    const { reader, counted } = await bigMemberShard(6);
    const keys: (string | undefined)[] = [];
    for await (const sample of reader.samples()) keys.push(await reader.key(sample));
    expect(keys).toEqual(['s0', 's1', 's2', 's3', 's4', 's5']);
    expect(counted.bytesRead / keys.length).toBe(512);
  });

  it('resolves a member path from headers and small pseudo payloads only', async () => {
    for (const format of ['ustar', 'gnu', 'pax'] as const) {
      const { reader, counted } = await bigMemberShard(3, format);
      const paths: (string | null)[] = [];
      for (let row = 0; row < reader.rowCount; row++) {
        const info = await reader.memberHeader(row);
        if (info.path !== null) paths.push(info.path);
      }
      const dir = format === 'ustar' ? '' : `${'d'.repeat(120)}/`;
      expect(paths, format).toEqual([0, 1, 2].flatMap((i) => [`${dir}s${i}.cls`, `${dir}s${i}.jpg`]));
      // Each row's header, its predecessors' headers (at most 4), and long-name payloads (< 1 KiB each).
      expect(counted.bytesRead, format).toBeLessThan(reader.rowCount * 6 * 1024);
    }
  });

  it('refuses a PAX header whose payload is larger than a path could need', async () => {
    const pax = new Uint8Array(PSEUDO_PAYLOAD_LIMIT + 512);
    pax.set(paxRecords({ path: 'big/a.jpg' }));
    const shard = tarBytes([{ name: 'z.txt', data: enc.encode('z') }]);
    const head = tarHeader({ name: '././@PaxHeader', size: pax.byteLength, typeflag: 'x', format: 'pax' });
    const member = shard.subarray(0, 1024);
    const full = new Uint8Array(512 + pax.byteLength + member.byteLength + 1024);
    full.set(head);
    full.set(pax, 512);
    full.set(member, 512 + pax.byteLength);
    const directory = new MemoryDirectory({ 'f_0.tar': full });
    const { bytes } = await indexShards({ directory, fold: 'f' });
    const counted = new CountingSource(new MemorySource(full, 'f_0.tar'));
    const reader = await openTaridx(new MemorySource(bytes, 'f.taridx'), { shards: [counted] });
    const last = reader.rowCount - 1;
    const error = await reader.memberHeader(last).catch((e: unknown) => e);
    expect(isBinscopeError(error, 'UnsupportedFeature'), String(error)).toBe(true);
    expect(counted.bytesRead).toBeLessThanOrEqual(1024);
    // The key needs only the member's own header.
    const sample = await reader.sample((await reader.sampleCount()) - 1);
    expect(await reader.key(sample)).toBe('z');
  });
});
