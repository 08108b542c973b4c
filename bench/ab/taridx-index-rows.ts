// The TARIDX index rows only (vs tar -tf, vs the bare header walk), on shards generated once into $SHARDS
// ($SAMPLES samples, bench/src/taridx.ts's generator); TARIDX_DIST picks another build of the indexer.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { NodeDirectory } from '@binscope/core/node';
const { indexShards } = await import(process.env.TARIDX_DIST ?? '@binscope/taridx');
import { Bench } from '../src/harness.js';
import { bareHeaderWalk, generate } from '../src/taridx.js';

const dir = process.env.SHARDS ?? '/tmp/perf34/shards';
const samples = Number(process.env.SAMPLES ?? 30000);
if (!fs.existsSync(path.join(dir, 'done'))) {
  fs.mkdirSync(dir, { recursive: true });
  generate(dir, samples);
  fs.writeFileSync(path.join(dir, 'done'), '');
}
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.tar'))
  .sort()
  .map((f) => path.join(dir, f));
const index = async () => {
  const directory = new NodeDirectory(dir);
  const r = await indexShards({ directory, fold: 'train' });
  await directory.close();
  return r;
};
// No scratch folder: these rows never ask the bench for one (b.dir).
const b = new Bench(1, os.tmpdir());
const built = await index();
if (process.env.HASHOUT) fs.writeFileSync(process.env.HASHOUT, built.bytes);
const which = process.env.ROWS ?? 'tar,walk';
if (which.includes('tar'))
  await b.compare({ format: 'taridx', operation: 'index vs tar -tf', items: built.rows, runs: 11 }, index, {
    name: 'tar -tf',
    run: () => {
      for (const f of files) spawnSync('tar', ['-tf', f], { stdio: 'ignore' });
    },
  });
if (which.includes('walk'))
  await b.compare({ format: 'taridx', operation: 'index vs walk', items: built.rows, runs: 11 }, index, {
    name: 'walk',
    run: () => bareHeaderWalk(files),
  });
for (const r of b.rows)
  console.log(
    `${r.operation}: ${r.medianMs.toFixed(1)} ms, floor ${r.floorMs?.toFixed(1)} ms, ratio ${r.ratio?.toFixed(3)}`,
  );
