/**
 * Shards from the real tools: GNU tar `--format=posix` puts a PAX `x` header named
 * `./PaxHeaders/<name>` before every member (same stem and extension as the member), Python's
 * `tarfile` puts `././@PaxHeader` (`x`, and `g` for global records) before non-ASCII names,
 * GNU tar `--format=gnu` puts `././@LongLink` (`L`) before long names. The index records each
 * of those as a row (as upstream's indexer does); readers never hand one out as a member.
 */
import { BlobSource, CountingSource, MemoryDirectory, MemorySource } from '@binscope/core';
import { describeWith, gnuTar, gnuTarShard, pythonModules, pythonTarShard } from '@binscope/testkit';
import { expect, it } from 'vitest';
import { indexShards, openTaridx, type TaridxReader, taridxPlugin } from '../src/index.js';

const text = (bytes: Uint8Array | undefined) => (bytes ? new TextDecoder().decode(bytes) : undefined);

async function readerOver(shard: Uint8Array): Promise<TaridxReader> {
  const directory = new MemoryDirectory({ 'f_0.tar': shard });
  const { bytes } = await indexShards({ directory, fold: 'f' });
  return openTaridx(new MemorySource(bytes, 'f.taridx'), { shards: directory });
}

async function typeflags(reader: TaridxReader): Promise<string> {
  let out = '';
  for (let row = 0; row < reader.rowCount; row++) out += (await reader.memberHeader(row)).typeflag;
  return out;
}

async function recordsOf(reader: TaridxReader) {
  const out = [];
  for await (const r of taridxPlugin.records(reader)) out.push(r);
  return out as Array<{ key: string; members: Array<{ ext: string }> }>;
}

describeWith(gnuTar(), 'GNU tar --format=posix', () => {
  const shard = () =>
    gnuTarShard([
      { name: 'ü.cls', data: '3' },
      { name: 'ü.json', data: '{"label":"ü"}' },
      { name: 'plain.cls', data: '5' },
    ]);

  it('indexes every header as upstream does, and get KEY --ext cls returns the file', async () => {
    const reader = await readerOver(shard());
    // An x header before each member: the index keeps them (T2, byte-identical to upstream).
    expect(await typeflags(reader)).toBe('x0x0x0');
    expect(await reader.sampleCount()).toBe(2);
    const cls = await reader.get('ü', { ext: 'cls' });
    expect(cls?.map((m) => text(m.data))).toEqual(['3']);
    const all = await reader.get('ü');
    expect(all?.map((m) => [m.ext, text(m.data)])).toEqual([
      ['cls', '3'],
      ['json', '{"label":"ü"}'],
    ]);
    const sample = (await reader.find('ü'))!;
    expect(reader.members(sample).map((m) => m.ext)).toEqual(['cls', 'cls', 'json', 'json']);
    expect((await reader.listMembers(sample, { ext: 'cls' })).map((m) => m.row)).toEqual([1]);
    // Asked for by row, the PAX header is refused unless wanted.
    const pax = reader.members(sample)[0];
    await expect(reader.readMember(pax)).rejects.toThrow(/extended header/);
    expect(text(await reader.readMember(pax, { extendedHeaders: true }))).toMatch(/^\d+ path=ü\.cls\n/);
    const chunks: Uint8Array[] = [];
    await expect(
      (async () => {
        for await (const c of reader.streamMember(pax, { sample })) chunks.push(c);
      })(),
    ).rejects.toThrow(/typeflag x/);
    expect(chunks).toEqual([]);
    const sync = await readerOver(shard());
    await sync.load();
    await sync.openShards();
    expect(sync.readSampleSync(sync.sampleSync(0)).map((m) => m.row)).toEqual([1, 3]);
  });

  it('over sources where each read is a round trip, the headers of a sample come in one read', async () => {
    const bytes = shard();
    const { bytes: index } = await indexShards([new MemorySource(bytes, 'f_0.tar')]);
    const counted = new CountingSource(new BlobSource(new Blob([bytes as BlobPart]), 'f_0.tar'));
    const reader = await openTaridx(new MemorySource(index, 'f.taridx'), { shards: [counted] });
    const sample = (await reader.find('ü'))!;
    expect((await reader.listMembers(sample)).map((m) => [m.row, m.ext])).toEqual([
      [1, 'cls'],
      [3, 'json'],
    ]);
    expect(counted.reads).toBe(1);
    // Known rows are not read again.
    await reader.listMembers(sample, { ext: 'json' });
    expect(counted.reads).toBe(1);
  });

  it('records (head, cat, diff) list members without the PAX headers', async () => {
    const records = await recordsOf(await readerOver(shard()));
    expect(records.map((r) => [r.key, r.members.map((m) => m.ext)])).toEqual([
      ['ü', ['cls', 'json']],
      ['plain', ['cls']],
    ]);
  });
});

describeWith(pythonModules(['tarfile']), 'Python tarfile PAX format', () => {
  const shard = () =>
    pythonTarShard(
      [
        { name: 's0_ü.cls', data: '1' },
        { name: 's0_ü.jpg', data: 'jpeg bytes' },
        { name: 's1.cls', data: '2' },
        { name: 's2_é.cls', data: '3' },
      ],
      { comment: 'made by binscope tests' },
    );

  it('has no @PaxHeader sample and no member without an extension', async () => {
    const reader = await readerOver(shard());
    // g (global), then an x before each non-ASCII name; the name field holds `?` for them (T2).
    expect(await typeflags(reader)).toBe('gx0x00x0');
    expect(reader.extensions).toContain('');
    expect(await reader.get('@PaxHeader')).toBeUndefined();
    expect((await reader.get('s0_?'))?.map((m) => [m.ext, text(m.data)])).toEqual([
      ['cls', '1'],
      ['jpg', 'jpeg bytes'],
    ]);
    const records = await recordsOf(reader);
    expect(records.map((r) => [r.key, r.members.map((m) => m.ext)])).toEqual([
      ['s0_?', ['cls', 'jpg']],
      ['s1', ['cls']],
      ['s2_?', ['cls']],
    ]);
    // Limits count records, not the @PaxHeader group before them.
    const two = [];
    for await (const r of taridxPlugin.records(reader, { limit: 2 })) two.push(r);
    expect(two.map((r) => r.key)).toEqual(['s0_?', 's1']);
  });
});

describeWith(gnuTar(), 'GNU tar --format=gnu long names', () => {
  it('a ././@LongLink row is no member and @LongLink no sample', async () => {
    const long = `${'d'.repeat(90)}/${'n'.repeat(30)}.cls`;
    const reader = await readerOver(gnuTarShard([{ name: long, data: '9' }], 'gnu'));
    expect(await typeflags(reader)).toBe('L0');
    expect(await reader.get('@LongLink')).toBeUndefined();
    const records = await recordsOf(reader);
    expect(records).toHaveLength(1);
    expect(records[0].members).toHaveLength(1);
  });
});
