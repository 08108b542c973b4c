import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Awaitable, type ByteSource, MemoryDirectory, MemorySource, SourceError } from '@binscope/core';
import { NodeDirectory } from '@binscope/core/node';
import { describeError, digest, tarBytes } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import {
  indexShards,
  type MemberData,
  type ReadMemberOptions,
  TaridxReader,
  type TaridxSample,
} from '../src/index.js';

const enc = new TextEncoder();
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

/** Two shards; samples with members in and out of shard order, a 512-boundary payload, an empty one. */
function shards(): Record<string, Uint8Array> {
  return {
    'f_0.tar': tarBytes([
      { name: 'a.jpg', data: bytes(700, 1) },
      { name: 'a.json', data: enc.encode('{"a":1}') },
      { name: 'b.jpg', data: bytes(512, 2) },
      { name: 'b.json', data: enc.encode('{"b":2}') },
      { name: 'dir/d.cls', data: new Uint8Array(0) },
      { name: 'dir/d.txt', data: bytes(90_000, 4) },
      { name: 'dir/d.jpg', data: bytes(3, 5) },
    ]),
    'f_1.tar': tarBytes([
      { name: 'c.jpg', data: bytes(1, 3) },
      { name: 'c.cls', data: enc.encode('7') },
      { name: 'e.JSON', data: enc.encode('{}') },
    ]),
  };
}

async function indexOf(files: Record<string, Uint8Array>): Promise<Uint8Array> {
  return (await indexShards({ directory: new MemoryDirectory(files), fold: 'f' })).bytes;
}

function plain(members: MemberData[]): unknown {
  return members.map((m) => ({ ...m, data: Array.from(m.data) }));
}

/** What a read gave when it answered at once: its members or its error; `pending` when it returned a promise. */
function outcome(run: () => Awaitable<MemberData[]>): unknown {
  try {
    const got = run();
    if (got instanceof Promise) {
      got.catch(() => undefined);
      return 'pending';
    }
    return plain(got);
  } catch (error) {
    return describeError(error);
  }
}
async function outcomeAsync(run: () => Awaitable<MemberData[]>): Promise<unknown> {
  try {
    return plain(await run());
  } catch (error) {
    return describeError(error);
  }
}

const OPTIONS: ReadMemberOptions[] = [
  {},
  { reuse: true },
  { verify: false },
  { ext: 'jpg' },
  { ext: ['json', 'cls'], reuse: true },
  { ext: 'none' },
];

/**
 * Every sample × option read both ways, on two readers over the same bytes: the one method
 * answering at once (rows loaded, shards open and synchronous, after a first read of every
 * sample opened them) and the same method awaited on a fresh reader: identical results and
 * errors. `sync` false: the first reader's shards never answer at once (then both await).
 */
async function compareAll(open: () => Promise<TaridxReader>, sync = true): Promise<number> {
  const syncReader = await open();
  const asyncReader = await open();
  await syncReader.load();
  const count = await asyncReader.sampleCount();
  // A first read of each sample opens the shards it needs (a folder's shards open on first use).
  for (let i = 0; i < count; i++)
    await outcomeAsync(() => syncReader.readSample(syncReader.sample(i) as TaridxSample));
  let failures = 0;
  for (let i = 0; i < count; i++) {
    const sample = syncReader.sample(i);
    expect(sample instanceof Promise).toBe(false);
    expect(digest(sample), `sample ${i}`).toBe(digest(await asyncReader.sample(i)));
    for (const options of OPTIONS) {
      const label = `sample ${i} ${JSON.stringify(options)}`;
      const now = outcome(() => syncReader.readSample(sample as TaridxSample, options));
      const later = await outcomeAsync(async () =>
        asyncReader.readSample(await asyncReader.sample(i), options),
      );
      // Digests: the members' bytes make a deep-equal slow, and time is not what is tested.
      if (sync) expect(digest(now), label).toBe(digest(later));
      else
        expect(
          digest(await outcomeAsync(() => syncReader.readSample(sample as TaridxSample, options))),
          label,
        ).toBe(digest(later));
      if (!Array.isArray(later)) failures++;
    }
  }
  return failures;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'taridx-sync-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('readSample answers at once from synchronous shards, as it does awaited', () => {
  it('memory shards from a folder and as a source list', async () => {
    const files = shards();
    const index = await indexOf(files);
    const dir = new MemoryDirectory({ ...files, 'f.taridx': index });
    const source = () => new MemorySource(index, 'f.taridx');
    expect(await compareAll(() => TaridxReader.open(source(), { shards: dir }))).toBe(0);
    const list = [
      new MemorySource(files['f_0.tar'], 'f_0.tar'),
      new MemorySource(files['f_1.tar'], 'f_1.tar'),
    ];
    expect(await compareAll(() => TaridxReader.open(source(), { shards: list }))).toBe(0);
  });

  it('local files (positional reads)', async () => {
    const files = shards();
    const index = await indexOf(files);
    const folder = path.join(tmp, 'node');
    fs.mkdirSync(folder, { recursive: true });
    for (const [name, data] of Object.entries({ ...files, 'f.taridx': index }))
      fs.writeFileSync(path.join(folder, name), data);
    const directory = new NodeDirectory(folder);
    expect(
      await compareAll(() => TaridxReader.open(new MemorySource(index, 'f.taridx'), { shards: directory })),
    ).toBe(0);
    await directory.close();
  });

  it('changed, truncated and missing shards fail alike', async () => {
    const files = shards();
    const index = await indexOf(files);
    const source = () => new MemorySource(index, 'f.taridx');
    const renamed = files['f_0.tar'].slice();
    renamed[0] = 'z'.charCodeAt(0); // a.jpg → z.jpg: the stem no longer matches
    const resized = files['f_1.tar'].slice();
    resized.set(enc.encode('00000000002'), 124); // c.jpg's size field
    const cases: Array<[string, ByteSource[]]> = [
      [
        'renamed member',
        [new MemorySource(renamed, 'f_0.tar'), new MemorySource(files['f_1.tar'], 'f_1.tar')],
      ],
      [
        'resized member',
        [new MemorySource(files['f_0.tar'], 'f_0.tar'), new MemorySource(resized, 'f_1.tar')],
      ],
      [
        'truncated shard',
        [
          new MemorySource(files['f_0.tar'].subarray(0, 1500), 'f_0.tar'),
          new MemorySource(files['f_1.tar'], 'f_1.tar'),
        ],
      ],
      ['missing shard', [new MemorySource(files['f_0.tar'], 'f_0.tar')]],
    ];
    for (const [label, list] of cases) {
      const failures = await compareAll(() => TaridxReader.open(source(), { shards: list }));
      expect(failures, label).toBeGreaterThan(0);
    }
    // A folder missing f_1.tar: the fid past the listed shards is OutOfBounds on both paths.
    const partial = new MemoryDirectory({ 'f_0.tar': files['f_0.tar'], 'f.taridx': index });
    expect(await compareAll(() => TaridxReader.open(source(), { shards: partial }))).toBeGreaterThan(0);
  });

  it('no shards, shards not opened yet, async-only shards, rows not loaded', async () => {
    const files = shards();
    const index = await indexOf(files);
    const source = () => new MemorySource(index, 'f.taridx');
    // No shards at all: the same SourceError both ways.
    expect(await compareAll(() => TaridxReader.open(new MemorySource(index, 'x.bin')))).toBeGreaterThan(0);
    const lonely = await TaridxReader.open(new MemorySource(index, 'x.bin'));
    await lonely.load();
    // Until the shards are looked for the answer comes later; from then on at once.
    await expect(lonely.readSample(lonely.sample(0) as TaridxSample)).rejects.toThrow(SourceError);
    expect(() => lonely.readSample(lonely.sample(0) as TaridxSample)).toThrow(SourceError);

    const reader = await TaridxReader.open(source(), { shards: new MemoryDirectory(files) });
    // Rows not loaded: the sample comes later; then at once, and a sample past the end throws at once.
    const first = reader.sample(0);
    expect(first).toBeInstanceOf(Promise);
    await first;
    expect(reader.sample(0)).not.toBeInstanceOf(Promise);
    expect(() => reader.sample(99)).toThrow(RangeError);
    // A folder's shard opens on first use: that read comes later, the next one at once.
    const opening = reader.readSample(reader.sample(0) as TaridxSample);
    expect(opening).toBeInstanceOf(Promise);
    expect((await opening).length).toBe(2);
    const now = reader.readSample(reader.sample(0) as TaridxSample);
    expect(Array.isArray(now) && now.length).toBe(2);

    // Shards that only answer later: the same members, awaited.
    const asyncOnly = Object.entries(files).map(([name, data]): ByteSource => {
      const inner = new MemorySource(data, name);
      return { name, size: inner.size, read: async (o, l) => inner.read(o, l) };
    });
    expect(await compareAll(() => TaridxReader.open(source(), { shards: asyncOnly }), false)).toBe(0);
    const slow = await TaridxReader.open(source(), { shards: asyncOnly });
    await slow.load();
    expect(slow.readSample(slow.sample(0) as TaridxSample)).toBeInstanceOf(Promise);
    const fast = await TaridxReader.open(source(), { shards: new MemoryDirectory(files) });
    await fast.load();
    for (let i = 0; i < (await slow.sampleCount()); i++)
      expect(digest(plain(await slow.readSample(slow.sample(i) as TaridxSample))), `sample ${i}`).toBe(
        digest(plain(await fast.readSample(fast.sample(i) as TaridxSample))),
      );
  });
});
