// A/B of builds of the TARIDX indexer (packages/taridx/dist-<variant>, copies of dist made by hand) against
// the bare header walk, interleaved in one process; run taridx-index-rows.ts first to generate the shards.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeDirectory } from '@binscope/core/node';
import { bareHeaderWalk } from '../src/taridx.js';
const dir = '/tmp/perf34/shards';
const variants = (process.env.VARIANTS ?? 'main,cksum,defer').split(',');
const mods = await Promise.all(variants.map((v) => import(`../../packages/taridx/dist-${v}/index.js`)));
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.tar'))
  .sort()
  .map((f) => path.join(dir, f));
const walk = () => bareHeaderWalk(files);
const time = async (f: () => unknown) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};
const ratios: number[][] = variants.map(() => []);
const runs = Number(process.env.RUNS ?? 11);
for (let r = -1; r < runs; r++) {
  for (let v = 0; v < variants.length; v++) {
    const idx = async () => {
      const d = new NodeDirectory(dir);
      await mods[v].indexShards({ directory: d, fold: 'train' });
      await d.close();
    };
    let s: number, f: number;
    if (r % 2 === 0) {
      f = await time(walk);
      s = await time(idx);
    } else {
      s = await time(idx);
      f = await time(walk);
    }
    if (r >= 0) ratios[v].push(s / f);
  }
}
const med = (a: number[]) => {
  const b = [...a].sort((x, y) => x - y);
  return b[b.length >> 1];
};
console.log(
  variants.map((v, i) => `${v} ${med(ratios[i]).toFixed(3)}`).join('  '),
  ` load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`,
);
