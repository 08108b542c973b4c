import { createHash } from 'node:crypto';
import {
  type DirectorySource,
  fileTarget,
  isFormatError,
  MemoryDirectory,
  MemorySink,
  MemorySource,
} from '@binscope/core';
import { type TarEntry, tarBytes } from '@binscope/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  indexShardRange,
  indexShards,
  mergeIndexes,
  openTaridx,
  parseShardRange,
  validateTaridx,
} from '../src/index.js';
import { foldShards, scanShards } from '../src/indexer.js';
import { H } from '../src/layout.js';
import { indexRangeWith } from '../src/partial.js';
import { TaridxBuilder } from '../src/write.js';

type Hasher = { h64Raw: (bytes: Uint8Array) => bigint };
const Builder = TaridxBuilder as unknown as new (hasher: Hasher) => TaridxBuilder;

/** Collides whenever first byte and length agree (many stems share a hash, across shards too). */
const weak: Hasher = {
  h64Raw: (bytes) => {
    const lo = Math.imul((bytes[0] ?? 0) + 31 * bytes.byteLength, 0x9e3779b1) >>> 0;
    return (BigInt(bytes[0] ?? 0) << 32n) | BigInt(lo);
  },
};

function sha(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function fold(shards: Record<string, TarEntry[]>): MemoryDirectory {
  return new MemoryDirectory(
    Object.fromEntries(Object.entries(shards).map(([name, entries]) => [name, tarBytes(entries, 'gnu')])),
  );
}

/** The one-pass index, with the real hasher or a colliding one. */
async function onePass(directory: DirectorySource, name: string, hasher?: Hasher): Promise<Uint8Array> {
  if (!hasher) return (await indexShards({ directory, fold: name })).bytes;
  const builder = new Builder(hasher);
  await scanShards(builder, await foldShards({ directory, fold: name }), 0);
  return builder.finish();
}

/** Partial indexes for `cuts` (fids where a new range starts), merged. */
async function merged(
  directory: DirectorySource,
  name: string,
  cuts: number[],
  hasher?: Hasher,
): Promise<Uint8Array> {
  const total = (await foldShards({ directory, fold: name })).length;
  const starts = [...new Set([0, ...cuts.filter((c) => c > 0 && c < total)])].sort((a, b) => a - b);
  const parts: MemorySource[] = [];
  for (let i = 0; i < starts.length; i++) {
    const range = { first: starts[i], last: (starts[i + 1] ?? total) - 1 };
    const result = hasher
      ? await indexRangeWith(new Builder(hasher), { directory, fold: name }, range)
      : await indexShardRange({ directory, fold: name }, range);
    parts.push(new MemorySource(result.bytes, `part-${i}.taridx`));
  }
  // Order of the arguments does not matter: a glob gives part-10 before part-2.
  parts.reverse();
  const sink = new MemorySink();
  await mergeIndexes(parts, sink);
  return sink.bytes();
}

const file = (name: string, byte = 1): TarEntry => ({ name, data: Uint8Array.of(byte) });

/** Shard sets that exercise every rule a merge must reproduce. */
const SETS: Record<string, { shards: Record<string, TarEntry[]>; fold: string; hasher?: Hasher }> = {
  'numbered shards, one sample each member set': {
    fold: 'train',
    shards: Object.fromEntries(
      Array.from({ length: 7 }, (_, s) => [
        `train_${String(s).padStart(3, '0')}.tar`,
        Array.from({ length: 5 }, (_, i) => [
          file(`k${s}_${i}.jpg`),
          file(`k${s}_${i}.json`),
          file(`k${s}_${i}.cls`),
        ]).flat(),
      ]),
    ),
  },
  'suffix-ordered names (sh_10 before sh_9, sh_5 before sh_5-b), an empty shard, extensions first seen late':
    {
      fold: 'sh',
      shards: {
        'sh_9.tar': [file('a.jpg'), file('a.txt')],
        'sh_10.tar': [file('b.jpg'), file('b.JSON')],
        'sh_5-b.tar': [file('c.png'), file('c.seg.png')],
        'sh_5.tar': [],
        'sh_1.tar': [file('d'), file('dir/e.tar.gz')],
        'sh_x.tar': [file('a.jpg'), file('f.npy')],
      },
    },
  'a sample split across shards and stems repeated out of order (not contiguous)': {
    fold: 'w',
    shards: {
      'w_0.tar': [file('s1.jpg'), file('s2.jpg'), file('s1.json')],
      'w_1.tar': [file('s2.json'), file('s3.jpg')],
      'w_2.tar': [file('s1.cls'), file('s3.json'), file('s4.jpg')],
      'w_3.tar': [file('s4.json')],
    },
  },
  'colliding stems across shards: canonical in one, collisions in later ones, the same stem again': {
    fold: 'c',
    hasher: weak,
    shards: {
      'c_0.tar': [file('a1.jpg'), file('b1.jpg'), file('a1.json')],
      'c_1.tar': [file('a2.jpg'), file('a1.cls'), file('b2.jpg')],
      'c_2.tar': [file('a2.json'), file('a3.jpg'), file('b1.json')],
      'c_3.tar': [file('a3.json'), file('b2.json'), file('a9.jpg'), file('a1.txt')],
      'c_4.tar': [],
      'c_5.tar': [file('b3.jpg'), file('a2.txt')],
    },
  },
  'directories, long-link and PAX headers as rows, as upstream indexes them': {
    fold: 'x',
    shards: {
      'x_0.tar': [{ name: 'dir', type: 'directory' }, file(`${'long/'.repeat(30)}n.jpg`)],
      'x_1.tar': [file(`${'p/'.repeat(60)}q.json`), file('n.json')],
    },
  },
};

describe('partial indexes merged', () => {
  for (const [title, set] of Object.entries(SETS)) {
    it(`equal the one-pass index byte for byte, for every way of cutting: ${title}`, async () => {
      const directory = fold(set.shards);
      const whole = await onePass(directory, set.fold, set.hasher);
      const total = Object.keys(set.shards).filter((n) => n.startsWith(`${set.fold}_`)).length;
      // Every set of cut points (2^(total-1) ways): each shard alone, all in one, and all between.
      for (let mask = 0; mask < 2 ** (total - 1); mask++) {
        const cuts = Array.from({ length: total - 1 }, (_, i) => i + 1).filter((_, i) => mask & (1 << i));
        const bytes = await merged(directory, set.fold, cuts, set.hasher);
        expect(sha(bytes), `cuts ${cuts.join(',')}`).toBe(sha(whole));
      }
    });
  }

  it('the colliding set really has crash stems and shared stems across partials', async () => {
    const set =
      SETS['colliding stems across shards: canonical in one, collisions in later ones, the same stem again'];
    const whole = await onePass(fold(set.shards), set.fold, set.hasher);
    const view = new DataView(whole.buffer, whole.byteOffset, whole.byteLength);
    const offCrash = Number(view.getBigUint64(H.offCrash, true));
    const offArr = Number(view.getBigUint64(H.offArr, true));
    expect(new TextDecoder().decode(whole.subarray(offCrash, offArr))).toBe('a2\nb2\na3\na9\nb3');
  });

  it('property: any shard set, any split, merges to the one-pass index (colliding hasher)', async () => {
    const stem = fc.stringMatching(/^[ab][0-9]{0,2}$/);
    const ext = fc.constantFrom('jpg', 'json', 'cls', '', 'JPG', 'seg.png');
    const entry = fc.tuple(stem, ext).map(([s, e]) => file(e ? `${s}.${e}` : s));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(entry, { maxLength: 12 }), { minLength: 1, maxLength: 9 }),
        fc.array(fc.nat({ max: 9 }), { maxLength: 5 }),
        fc.boolean(),
        async (shardEntries, cuts, colliding) => {
          const shards = Object.fromEntries(shardEntries.map((entries, i) => [`f_${i}.tar`, entries]));
          const directory = fold(shards);
          const hasher = colliding ? weak : undefined;
          const whole = await onePass(directory, 'f', hasher);
          expect(sha(await merged(directory, 'f', cuts, hasher))).toBe(sha(whole));
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it('a partial index is a valid TARIDX that says which shards it covers', async () => {
    const set = SETS['numbered shards, one sample each member set'];
    const directory = fold(set.shards);
    const part = await indexShardRange({ directory, fold: 'train' }, { first: 2, last: 100 });
    expect(part.range).toEqual({ first: 2, last: 6, total: 7 });
    expect(part.shards).toEqual([
      'train_002.tar',
      'train_003.tar',
      'train_004.tar',
      'train_005.tar',
      'train_006.tar',
    ]);
    const report = await validateTaridx(fileTarget(new MemorySource(part.bytes, 'part.taridx')));
    expect(report.errors).toEqual([]);
    // Readers ignore the reserved bytes; validate notes them.
    expect(report.warnings.map((w) => w.code)).toEqual(['ReservedBytes']);
    const reader = await openTaridx(new MemorySource(part.bytes, 'part.taridx'));
    const fids = new Set<number>();
    for (let row = 0; row < reader.rowCount; row++) fids.add((await reader.row(row)).fid);
    expect([...fids].sort()).toEqual([2, 3, 4, 5, 6]);
  });
});

describe('merging refuses what would not give the one-pass index', () => {
  const directory = fold(SETS['numbered shards, one sample each member set'].shards);
  const part = async (first: number, last: number) =>
    new MemorySource(
      (await indexShardRange({ directory, fold: 'train' }, { first, last })).bytes,
      `p${first}-${last}.taridx`,
    );

  async function refusal(sources: MemorySource[]): Promise<Error> {
    const error = await mergeIndexes(sources, new MemorySink()).catch((e: unknown) => e);
    expect(isFormatError(error), String(error)).toBe(true);
    return error as Error;
  }

  it('a gap, an overlap, a missing end', async () => {
    expect((await refusal([await part(0, 2), await part(4, 6)])).message).toMatch(
      /shards 3-3 of 7 are in no partial index/,
    );
    expect((await refusal([await part(0, 3), await part(3, 6)])).message).toMatch(
      /shards 3-3 are in another partial index too/,
    );
    expect((await refusal([await part(0, 3)])).message).toMatch(/shards 4-6 of 7 are in no partial index/);
  });

  it('partials made from different listings', async () => {
    const other = fold({
      ...SETS['numbered shards, one sample each member set'].shards,
      'train_007.tar': [file('z.jpg')],
    });
    const late = new MemorySource(
      (await indexShardRange({ directory: other, fold: 'train' }, { first: 4, last: 7 })).bytes,
      'late.taridx',
    );
    expect((await refusal([await part(0, 3), late])).message).toMatch(/saw different listings/);
  });

  it('a whole index', async () => {
    const whole = new MemorySource((await indexShards({ directory, fold: 'train' })).bytes, 'train.taridx');
    expect((await refusal([whole])).message).toMatch(/a whole index, not a partial one/);
  });

  it('a range that starts past the last shard', async () => {
    const error = await indexShardRange({ directory, fold: 'train' }, { first: 7, last: 9 }).catch(
      (e: unknown) => e,
    );
    expect(isFormatError(error, 'OutOfBounds')).toBe(true);
    expect((error as Error).message).toMatch(/starts past the fold's last shard \(fid 6 of 7\)/);
  });

  it('shard ranges as the CLI takes them', () => {
    expect(parseShardRange('0-99')).toEqual({ first: 0, last: 99 });
    expect(parseShardRange(' 7 ')).toEqual({ first: 7, last: 7 });
    for (const bad of ['', '5-3', '-1', 'a-b', '1-2-3', '1.5']) expect(parseShardRange(bad)).toBeUndefined();
  });
});
