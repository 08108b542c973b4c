// A/B of builds of the TARIDX indexer (packages/taridx/dist-<variant>, copies of dist made by hand)
// against the bare header walk, as taridx-index-ab.ts, with the shards folder from $SHARDS
// (generate them with taridx-index-rows.ts; SAMPLES=100000 is the bench's scale 1) and the
// order of the builds alternating between rounds. Prints each build's median ratio to the walk
// run beside it, and its median time.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeDirectory } from '@binscope/core/node';
import { bareHeaderWalk } from '../src/taridx.js';

const dir = process.env.SHARDS ?? '/tmp/perf34/shards';
const variants = (process.env.VARIANTS ?? 'main').split(',');
const runs = Number(process.env.RUNS ?? 11);
const mods = await Promise.all(variants.map((v) => import(`../../packages/taridx/dist-${v}/index.js`)));
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.tar'))
  .sort()
  .map((f) => path.join(dir, f));
// Wall time, and this process's CPU time beside it (less moved by other work on the machine).
let cpu = 0;
const time = async (f: () => unknown) => {
  const c = process.cpuUsage();
  const t = performance.now();
  await f();
  const u = process.cpuUsage(c);
  cpu = (u.user + u.system) / 1000;
  return performance.now() - t;
};
const ratios: number[][] = variants.map(() => []);
const times: number[][] = variants.map(() => []);
const walks: number[] = [];
const cpuRatios: number[][] = variants.map(() => []);
for (let r = -1; r < runs; r++) {
  const order = variants.map((_, i) => i);
  if (r % 2 !== 0) order.reverse();
  for (const v of order) {
    const index = async () => {
      const directory = new NodeDirectory(dir);
      await mods[v].indexShards({ directory, fold: 'train' });
      await directory.close();
    };
    (globalThis as { gc?: () => void }).gc?.();
    let s: number;
    let f: number;
    let sCpu: number;
    let fCpu: number;
    if (r % 2 === 0) {
      f = await time(() => bareHeaderWalk(files));
      fCpu = cpu;
      s = await time(index);
      sCpu = cpu;
    } else {
      s = await time(index);
      sCpu = cpu;
      f = await time(() => bareHeaderWalk(files));
      fCpu = cpu;
    }
    if (r >= 0) {
      ratios[v].push(s / f);
      cpuRatios[v].push(sCpu / fCpu);
      times[v].push(s);
      walks.push(f);
    }
  }
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(
  variants
    .map(
      (v, i) =>
        `${v} ${med(ratios[i]).toFixed(3)} (${med(times[i]).toFixed(0)} ms; cpu ${med(cpuRatios[i]).toFixed(3)})`,
    )
    .join('  '),
  ` walk ${med(walks).toFixed(0)} ms  load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`,
);
