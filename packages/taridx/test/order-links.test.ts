import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemorySource } from '@binscope/core';
import { openPath } from '@binscope/core/node';
import { tarBytes, tempDir } from '@binscope/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { indexShards, taridxPlugin } from '../src/index.js';
import { indexFold, openTaridxFile } from '../src/node.js';
import { shardNames } from '../src/shards.js';

const scratch: Array<{ remove: () => void }> = [];
afterEach(() => {
  for (const s of scratch.splice(0)) s.remove();
});

const keyOf = (name: string) => `key-${name.slice(0, -'.tar'.length)}`;

/** A shard whose one sample's payload names the shard, so a read shows which shard it came from. */
function shard(name: string): Uint8Array {
  return tarBytes([{ name: `${keyOf(name)}.txt`, data: new TextEncoder().encode(`from ${name}`) }]);
}

const NAMES = ['x_5.tar', 'x_5-b.tar', 'x_10.tar'];
// Upstream sorts the suffixes ("10" < "5" < "5-b"), not the whole names ("x_5-b.tar" < "x_5.tar").
const UPSTREAM_ORDER = ['x_10.tar', 'x_5.tar', 'x_5-b.tar'];

describe('T4: fids follow the suffixes sorted as upstream sorts them', () => {
  it('orders names by suffix, by code point', () => {
    expect(shardNames(NAMES, 'x')).toEqual(UPSTREAM_ORDER);
    expect(shardNames(['tr_9.tar', 'tr_10.tar', 'tr_.tar', 'tr_a_b.tar', 'tr_1.tar'], 'tr')).toEqual([
      'tr_.tar',
      'tr_1.tar',
      'tr_10.tar',
      'tr_9.tar',
    ]);
  });

  it('a folder and a shard list index to the same fids, and reads find each sample in its shard', async () => {
    const tmp = tempDir();
    scratch.push(tmp);
    for (const name of NAMES) fs.writeFileSync(path.join(tmp.dir, name), shard(name));
    const folded = await indexFold(tmp.dir, 'x');
    expect(folded.shards).toEqual(UPSTREAM_ORDER);
    const listed = await indexShards(NAMES.map((n) => new MemorySource(shard(n), n)));
    expect(listed.shards).toEqual(UPSTREAM_ORDER);
    expect(listed.bytes).toEqual(new Uint8Array(fs.readFileSync(folded.path)));

    const reader = await openTaridxFile(folded.path);
    for (const name of NAMES) {
      const members = await reader.get(keyOf(name));
      expect(new TextDecoder().decode(members?.[0].data), name).toBe(`from ${name}`);
    }
    await reader.close();
    const report = await taridxPlugin.validate(openPath(folded.path), { deep: true });
    expect(report.errors).toEqual([]);
  });

  it('finds shards that are symbolic links to tar files, and reads through them', async () => {
    const store = tempDir();
    const fold = tempDir();
    scratch.push(store, fold);
    for (const name of NAMES) {
      fs.writeFileSync(path.join(store.dir, `blob-${name}`), shard(name));
      fs.symlinkSync(path.join(store.dir, `blob-${name}`), path.join(fold.dir, name));
    }
    const result = await indexFold(fold.dir, 'x');
    expect(result.shards).toEqual(UPSTREAM_ORDER);
    const reader = await openTaridxFile(result.path);
    const members = await reader.get(keyOf('x_5-b.tar'));
    expect(new TextDecoder().decode(members?.[0].data)).toBe('from x_5-b.tar');
    await reader.close();
  });
});
