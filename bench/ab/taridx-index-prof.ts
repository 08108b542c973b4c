// Runs indexShards $RUNS times over $SHARDS (default /tmp/perf34/shards) for a CPU profile:
// `node --cpu-prof --cpu-prof-interval 100 --import tsx ab/taridx-index-prof.ts`; TARIDX_DIST picks a build.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeDirectory } from '@binscope/core/node';
import { bareHeaderWalk } from '../src/taridx.js';
const { indexShards } = await import(process.env.TARIDX_DIST ?? '@binscope/taridx');

const dir = process.env.SHARDS ?? '/tmp/perf34/shards';
const runs = Number(process.env.RUNS ?? 5);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.tar'))
  .sort()
  .map((f) => path.join(dir, f));
for (let r = 0; r < runs; r++) {
  let t = performance.now();
  const directory = new NodeDirectory(dir);
  await indexShards({ directory, fold: 'train' });
  await directory.close();
  const index = performance.now() - t;
  t = performance.now();
  if (process.env.WALK) bareHeaderWalk(files);
  console.log(
    `index ${index.toFixed(1)} ms${process.env.WALK ? `, walk ${(performance.now() - t).toFixed(1)} ms` : ''}`,
  );
}
