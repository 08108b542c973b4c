import { fileTarget, MemoryDirectory } from '@binscope/core';
import { expect, it } from 'vitest';
import { taridxPlugin } from '../src/index.js';

it('capabilities.sample writes a two-shard fold and its index, valid down to the shards', async () => {
  const out = new MemoryDirectory();
  const paths = await taridxPlugin.capabilities!.sample!(out);
  expect(paths).toEqual(['shards/train_0000.tar', 'shards/train_0001.tar', 'shards/train.taridx']);
  expect(await out.list()).toEqual(paths.slice().sort());
  const shards = new MemoryDirectory({
    'train_0000.tar': out.get(paths[0])!,
    'train_0001.tar': out.get(paths[1])!,
  });
  const index = await out.open('shards/train.taridx');
  const report = await taridxPlugin.validate(fileTarget(index, shards), { deep: true });
  expect(report).toEqual({ valid: true, errors: [], warnings: [] });
  const reader = await taridxPlugin.open(fileTarget(index, shards));
  const keys = [];
  for await (const r of taridxPlugin.records(reader, { table: 'samples' }))
    keys.push([r.values.key, (r.values.ppm as Uint8Array).byteLength]);
  expect(keys).toHaveLength(8);
  expect(keys[0]).toEqual(['sample_000000', 11 + 6 * 6 * 3]);
  // The same bytes every time.
  const again = new MemoryDirectory();
  await taridxPlugin.capabilities!.sample!(again);
  for (const p of paths) expect(again.get(p)).toEqual(out.get(p));
});
