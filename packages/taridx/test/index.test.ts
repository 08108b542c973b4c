import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileListDirectory, MemoryDirectory, MemorySource, isFormatError } from '@binscope/core';
import { NodeDirectory, openFile } from '@binscope/core/node';
import { type TarEntry, type TarFormat, paxRecords, tarBytes, tarHeader, tempDir } from '@binscope/testkit';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { indexShards, openTaridx, TaridxBuilder } from '../src/index.js';
import { H, R, ROW_SIZE } from '../src/layout.js';
import { indexFold, openTaridxFile } from '../src/node.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const scratch: Array<{ remove: () => void }> = [];
afterEach(() => {
  for (const s of scratch.splice(0)) s.remove();
});

/** The T2 stem of a member path as upstream derives it from the header's first 100 bytes. */
function expectedStem(name: Uint8Array): string {
  const field = name.subarray(0, 100);
  const nul = field.indexOf(0);
  const text = dec.decode(nul < 0 ? field : field.subarray(0, nul));
  const base = text.slice(text.lastIndexOf('/') + 1);
  const dot = base.indexOf('.');
  return dot < 0 ? base : base.slice(0, dot);
}

const segment = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const extArb = fc.constantFrom('', 'jpg', 'JSON', 'cls', 'seg.png', 'tar.gz', 'txt');
const entryArb: fc.Arbitrary<TarEntry> = fc
  .record({
    dirs: fc.array(segment, { maxLength: 12 }),
    stem: fc.oneof(segment, fc.stringMatching(/^[a-z]{60,90}$/)),
    ext: extArb,
    directory: fc.boolean(),
    size: fc.oneof(fc.constantFrom(0, 1, 511, 512, 513, 1024, 1536), fc.nat({ max: 3000 })),
    seed: fc.nat({ max: 255 }),
  })
  .map(({ dirs, stem, ext, directory, size, seed }) => {
    const name = [...dirs, ext ? `${stem}.${ext}` : stem].join('/');
    if (directory) return { name: [...dirs, stem].join('/'), type: 'directory' as const };
    return { name, data: Uint8Array.from({ length: size }, (_, i) => (i * 7 + seed) & 0xff) };
  });

describe('index → read round trip (property)', () => {
  it('finds every member of random tar sets at the right offset with the right bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(entryArb, { maxLength: 8 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom<TarFormat>('gnu', 'pax', 'ustar'),
        async (shards, format) => {
          const files: Record<string, Uint8Array> = {};
          const usable = shards.map((entries) =>
            format === 'ustar'
              ? entries.filter((e) => enc.encode(e.name as string).byteLength <= 100)
              : entries,
          );
          usable.forEach((entries, fid) => {
            files[`s_${String(fid).padStart(2, '0')}.tar`] = tarBytes(entries, format);
          });
          const dir = new MemoryDirectory(files);
          const { bytes, rows } = await indexShards({ directory: dir, fold: 's' });
          const reader = await openTaridx(new MemorySource(bytes, 's.taridx'), { shards: dir });
          expect(reader.rowCount).toBe(rows);
          // Every real member is a row whose payload is the member's data.
          let memberRows = 0;
          const seen = usable.map(() => 0);
          for (let row = 0; row < reader.rowCount; row++) {
            const info = await reader.memberHeader(row);
            if (info.path === null) continue;
            const r = await reader.row(row);
            // Real members appear in each shard in the order they were written.
            const entry = usable[r.fid][seen[r.fid]++];
            expect(info.path, `row ${row}`).toBe(entry.name);
            const member = {
              row,
              ext: reader.extensions[r.extid],
              extid: r.extid,
              fid: r.fid,
              offset: r.offset,
              size: r.size,
            };
            expect(await reader.readMember(member)).toEqual(entry.data ?? new Uint8Array(0));
            expect(info.stem).toBe(expectedStem(enc.encode(info.headerName)));
            memberRows++;
          }
          expect(memberRows).toBe(usable.flat().length);
          // Every stem is found by key and reads back whole, less extended headers (L, x):
          // a stem that only they have (`@LongLink`, `@PaxHeader`) names no sample.
          for await (const sample of reader.samples()) {
            const key = (await reader.key(sample))!;
            const found = await reader.get(key);
            const real = [];
            for (const m of sample.members)
              if (!'LKxg'.includes((await reader.memberHeader(m)).typeflag)) real.push(m.row);
            expect(found?.map((m) => m.row)).toEqual(real.length > 0 ? real : undefined);
          }
        },
      ),
      { numRuns: 60, seed: 11 },
    );
  });
});

describe('indexing beyond upstream', () => {
  it('keeps the fid of an empty shard and sorts shards as text', async () => {
    const one = tarBytes([{ name: 'x.jpg', data: Uint8Array.of(1) }]);
    const dir = new MemoryDirectory({
      'tr_9.tar': one,
      'tr_10.tar': new Uint8Array(0),
      'tr_1.tar': new Uint8Array(1024),
      'tr_a_b.tar': one, // another fold's name ("tr_a")
      'trx_1.tar': one,
    });
    const { shards, bytes } = await indexShards({ directory: dir, fold: 'tr' });
    expect(shards).toEqual(['tr_1.tar', 'tr_10.tar', 'tr_9.tar']);
    const reader = await openTaridx(new MemorySource(bytes, 'tr.taridx'));
    expect((await reader.row(0)).fid).toBe(2);
  });

  it('refuses more than 65,536 shards', async () => {
    const empty = new Uint8Array(0);
    const sources = Array.from({ length: 65_537 }, (_, i) => new MemorySource(empty, `f_${i}.tar`));
    const error = await indexShards(sources).catch((e: unknown) => e);
    expect(isFormatError(error, 'UnsupportedFeature')).toBe(true);
    expect(String(error)).toMatch(/65536/);
  });

  it('reads GNU base-256 and PAX sizes of members over 8 GiB (sparse shard)', async () => {
    const tmp = tempDir();
    scratch.push(tmp);
    const file = path.join(tmp.dir, 'big_0.tar');
    const huge = 9 * 2 ** 30 + 5;
    const fd = fs.openSync(file, 'w');
    let pos = 0;
    const put = (block: Uint8Array) => {
      fs.writeSync(fd, block, 0, block.byteLength, pos);
      pos += block.byteLength;
    };
    put(tarHeader({ name: 'a.bin', size: huge, sizeEncoding: 'base256', format: 'gnu' }));
    pos += Math.ceil(huge / 512) * 512;
    const records = paxRecords({ size: String(huge + 512) });
    put(tarHeader({ name: '././@PaxHeader', size: records.byteLength, typeflag: 'x', format: 'pax' }));
    const padded = new Uint8Array(512);
    padded.set(records);
    put(padded);
    put(tarHeader({ name: 'b.bin', size: 0, sizeEncoding: 'zero', format: 'pax' }));
    pos += Math.ceil((huge + 512) / 512) * 512;
    put(tarHeader({ name: 'c.txt', size: 3 }));
    put(Uint8Array.of(1, 2, 3, ...new Uint8Array(509)));
    put(new Uint8Array(1024));
    fs.closeSync(fd);

    const result = await indexFold(tmp.dir, 'big');
    const reader = await openTaridxFile(result.path);
    const rows = [];
    for await (const r of reader.rows()) rows.push([r.offset, r.size]);
    const bOffset = 512 + Math.ceil(huge / 512) * 512 + 1024;
    expect(rows).toEqual([
      [0, huge],
      [bOffset - 1024, records.byteLength],
      [bOffset, huge + 512],
      [bOffset + 512 + Math.ceil((huge + 512) / 512) * 512, 3],
    ]);
    expect([...(await reader.get('c'))![0].data]).toEqual([1, 2, 3]);
    await reader.close();
  });

  it('reports a half-copied shard as Truncated, naming it', async () => {
    const full = tarBytes([{ name: 'a.jpg', data: new Uint8Array(5000) }]);
    const dir = new MemoryDirectory({ 'h_0.tar': full.subarray(0, 2048) });
    const error = await indexShards({ directory: dir, fold: 'h' }).catch((e: unknown) => e);
    expect(isFormatError(error, 'Truncated')).toBe(true);
    expect((error as { file?: string }).file).toBe('h_0.tar');
  });

  it('reads only the 512-byte headers of local files, never a payload byte', async () => {
    // Small members, GNU long names and a PAX header between payloads of every size.
    const entries: TarEntry[] = [];
    let seed = 1;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let i = 0; i < 400; i++) {
      const big = i % 37 === 5 ? 300_000 + Math.floor(random() * 700_000) : 0;
      const size = big || Math.floor(random() * (i % 3 === 0 ? 20_000 : 700));
      const long = i % 50 === 7 ? `${'deep/'.repeat(30)}` : 'd/';
      entries.push({
        name: `${long}s${i >> 1}.${i % 2 ? 'json' : 'jpg'}`,
        data: new Uint8Array(size).fill(i & 0xff),
      });
    }
    const shard = tarBytes(entries, 'gnu');
    const tmp = tempDir();
    scratch.push(tmp);
    fs.writeFileSync(path.join(tmp.dir, 'w_0.tar'), shard);
    const file = openFile(path.join(tmp.dir, 'w_0.tar'));
    const reads: Array<[position: number, length: number]> = [];
    const readAt = file.readAt.bind(file);
    file.readAt = (target, targetOffset, length, position) => {
      reads.push([position, length]);
      return readAt(target, targetOffset, length, position);
    };
    const fromDisk = await indexShards([file]);
    await file.close();
    const fromMemory = await indexShards({ directory: new MemoryDirectory({ 'w_0.tar': shard }), fold: 'w' });
    expect(fromDisk.bytes).toEqual(fromMemory.bytes);
    // Every read is one block at a header (the GNU 'L' pseudo headers' name payloads aside, none
    // is needed: the index keeps the 100-byte name field), ending at the end-of-archive block.
    const headers = new Set<number>();
    for (let at = 0; at < shard.byteLength; ) {
      headers.add(at);
      let size = 0;
      for (let k = 124; k < 135 && shard[at + k] >= 0x30; k++) size = size * 8 + shard[at + k] - 0x30;
      if (shard[at] === 0) break;
      at += 512 + Math.ceil(size / 512) * 512;
    }
    expect(reads.length).toBe(headers.size);
    for (const [position, length] of reads) {
      expect(length).toBe(512);
      expect(headers.has(position)).toBe(true);
    }
  });

  it('indexes browser Files and Node files to the same bytes, with progress', async () => {
    const shard = tarBytes([
      { name: 'k.jpg', data: new Uint8Array(3000) },
      { name: 'k.json', data: enc.encode('{}') },
    ]);
    const files = new FileListDirectory([
      new File([new Uint8Array(shard)], 'p_0.tar'),
      new File([new Uint8Array(shard)], 'p_1.tar'),
    ]);
    const events: number[] = [];
    const fromFiles = await indexShards(
      { directory: files, fold: 'p' },
      { onProgress: (e) => events.push(e.done) },
    );
    const tmp = tempDir();
    scratch.push(tmp);
    fs.writeFileSync(path.join(tmp.dir, 'p_0.tar'), shard);
    fs.writeFileSync(path.join(tmp.dir, 'p_1.tar'), shard);
    const dir = new NodeDirectory(tmp.dir);
    const fromDisk = await indexShards({ directory: dir, fold: 'p' });
    await dir.close();
    expect(fromFiles.bytes).toEqual(fromDisk.bytes);
    expect(events[0]).toBe(0);
    expect(events[events.length - 1]).toBe(shard.byteLength * 2);
    const source = openFile(path.join(tmp.dir, 'p_0.tar'));
    expect((await indexShards([source])).rows).toBe(2);
    await source.close();
  });
});

describe('builder stem table', () => {
  it('gives crash ids to distinct stems that share a hash, as upstream does', () => {
    // A hasher that collides on purpose: the hash depends only on the first byte.
    const weak = { h64Raw: (bytes: Uint8Array) => BigInt(bytes[0] ?? 0) * 0x1_0000_0001n };
    const Builder = TaridxBuilder as unknown as new (hasher: unknown) => TaridxBuilder;
    const builder = new Builder(weak);
    const names = ['a1.jpg', 'a2.jpg', 'b1.jpg', 'a1.json', 'a2.json', 'a3.jpg', 'b1.cls'];
    names.forEach((name, i) => {
      builder.add({ fid: 0, offset: i * 1024, size: 1, name });
    });
    const bytes = builder.finish();
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const u64 = (at: number) => Number(view.getBigUint64(at, true));
    expect(u64(H.nStems)).toBe(4);
    expect(u64(H.nRows)).toBe(names.length);
    expect(bytes[H.flags] & 1).toBe(0);
    const crash = dec.decode(bytes.subarray(u64(H.offCrash), u64(H.offArr)));
    expect(crash).toBe('a2\na3');
    const crashIds = names.map((_, i) => view.getUint32(u64(H.offArr) + i * ROW_SIZE + R.crashid, true));
    expect(crashIds).toEqual([0, 1, 0, 0, 1, 2, 0]);
    const lows = names.map((_, i) => view.getUint32(u64(H.offArr) + i * ROW_SIZE + R.keyhash, true));
    expect(lows).toEqual([0x61, 0x61, 0x62, 0x61, 0x61, 0x61, 0x62]);
  });

  it('settles stems and crash ids like a plain map over many colliding, repeated stems', () => {
    // Collides whenever first byte and length agree; the low half spreads over every bucket.
    const weak = {
      h64Raw: (bytes: Uint8Array) => {
        const lo = Math.imul((bytes[0] ?? 0) + 31 * bytes.byteLength, 0x9e3779b1) >>> 0;
        return (BigInt(bytes[0] ?? 0) << 32n) | BigInt(lo);
      },
    };
    const hashOf = (stem: string) => weak.h64Raw(enc.encode(stem));
    const Builder = TaridxBuilder as unknown as new (hasher: unknown) => TaridxBuilder;
    const stemArb = fc.stringMatching(/^[a-e][a-e0-9]{0,3}$/);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(stemArb, fc.constantFrom('jpg', 'json', 'cls')), { maxLength: 3000 }),
        (members) => {
          const builder = new Builder(weak);
          members.forEach(([stem, ext], i) => {
            builder.add({ fid: 0, offset: i * 1024, size: 1, name: `dir/${stem}.${ext}` });
          });
          const bytes = builder.finish();
          // The model: first stem with a hash is canonical, later distinct stems get ids in order.
          const canonical = new Map<bigint, string>();
          const crashIds = new Map<string, number>();
          const crashStems: string[] = [];
          const keys: string[] = [];
          const expectedCrash = members.map(([stem]) => {
            const hash = hashOf(stem);
            let crash = 0;
            if (!canonical.has(hash)) canonical.set(hash, stem);
            else if (canonical.get(hash) !== stem) {
              if (!crashIds.has(stem)) {
                crashStems.push(stem);
                crashIds.set(stem, crashStems.length);
              }
              crash = crashIds.get(stem) as number;
            }
            keys.push(`${hash}/${crash}`);
            return crash;
          });
          const runs = keys.filter((k, i) => i === 0 || k !== keys[i - 1]).length;
          const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          const u64 = (at: number) => Number(view.getBigUint64(at, true));
          expect(u64(H.nRows)).toBe(members.length);
          expect(u64(H.nStems)).toBe(new Set(keys).size);
          expect(bytes[H.flags] & 1).toBe(members.length === 0 || runs === new Set(keys).size ? 1 : 0);
          expect(dec.decode(bytes.subarray(u64(H.offCrash), u64(H.offArr)))).toBe(crashStems.join('\n'));
          const base = u64(H.offArr);
          members.forEach(([stem], i) => {
            expect(view.getUint32(base + i * ROW_SIZE + R.crashid, true)).toBe(expectedCrash[i]);
            expect(view.getBigUint64(base + i * ROW_SIZE + R.keyhash, true)).toBe(hashOf(stem));
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});
