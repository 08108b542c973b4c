// A/B of builds of the SCDL reader (packages/scdl/dist-<variant>, copies of dist made by hand) on random rows
// against the slice-read floor, interleaved in one process (their heaps are shared: GC noise).
import * as fs from 'node:fs';
import * as path from 'node:path';
const archive = '/tmp/perf34/scdl/bench.scdl';
const variants = (process.env.VARIANTS ?? 'main,req,small').split(',');
const readers = await Promise.all(
  variants.map(async (v) => (await import(`../../packages/scdl/dist-${v}/node.js`)).openScdlArchive(archive)),
);
const reader0 = readers[0];
const rowPtr = (await reader0.rows(0, reader0.numRows)).indptr;
const colItem = reader0.colPtr.itemSize;
let x = 42;
const picks = Uint32Array.from({ length: Number(process.env.READS ?? 50000) }, () => {
  x ^= x << 13;
  x >>>= 0;
  x ^= x >>> 17;
  x ^= x << 5;
  x >>>= 0;
  return x % reader0.numRows;
});
const dataFd = fs.openSync(path.join(archive, 'data.npy'), 'r');
const colFd = fs.openSync(path.join(archive, 'col_ptr.npy'), 'r');
const scratch = Buffer.allocUnsafe(1 << 20);
let sink = 0;
const floor = () => {
  for (const i of picks) {
    const a = rowPtr[i];
    const n = rowPtr[i + 1] - a;
    fs.readSync(colFd, scratch, 0, n * colItem, a * colItem);
    fs.readSync(dataFd, scratch, n * colItem, n * 4, a * 4);
    sink += scratch[0];
  }
};
type Reader = Awaited<ReturnType<typeof import('@binscope/scdl/node').openScdlArchive>>;
const modes: Record<string, (r: Reader) => Promise<void> | void> = {
  row: async (r) => {
    for (const i of picks) {
      const row = await r.row(i);
      sink += row.values.length;
    }
  },
  reuse: async (r) => {
    for (const i of picks) {
      const row = await r.row(i, { reuse: true });
      sink += row.values.length;
    }
  },
  sync: (r) => {
    const o = { reuse: false };
    for (const i of picks) {
      const row = r.row(i, o);
      if (row instanceof Promise) throw new Error('a local archive answers row(i) synchronously');
      sink += row.values.length;
    }
  },
  syncreuse: (r) => {
    const o = { reuse: true };
    for (const i of picks) {
      const row = r.row(i, o);
      if (row instanceof Promise) throw new Error('a local archive answers row(i) synchronously');
      sink += row.values.length;
    }
  },
};
const time = async (f: () => unknown) => {
  (globalThis as { gc?: () => void }).gc?.();
  const t = performance.now();
  await f();
  return performance.now() - t;
};
const med = (a: number[]) => {
  const b = [...a].sort((p, q) => p - q);
  return b[b.length >> 1];
};
const out: string[] = [];
for (const m of (process.env.MODES ?? 'row,reuse,sync,syncreuse').split(',')) {
  const ratios = variants.map(() => [] as number[]);
  for (let k = -1; k < Number(process.env.RUNS ?? 7); k++)
    for (let v = 0; v < variants.length; v++) {
      let s: number, f: number;
      if (k % 2 === 0) {
        f = await time(floor);
        s = await time(() => modes[m](readers[v]));
      } else {
        s = await time(() => modes[m](readers[v]));
        f = await time(floor);
      }
      if (k >= 0) ratios[v].push(s / f);
    }
  out.push(`${m}: ` + variants.map((v, i) => `${v} ${med(ratios[i]).toFixed(3)}`).join(' '));
}
console.log(out.join(' | '), ' load', fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
process.stderr.write(`(checksum of the values read: ${sink})\n`);
