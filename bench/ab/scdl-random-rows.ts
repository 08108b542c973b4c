// The four SCDL random-row rows only, on an archive generated once with
// `node --import tsx src/scdl.ts --generate /tmp/perf34/scdl/bench.scdl 20000`.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openScdlArchive } from '@binscope/scdl/node';
import { Bench } from '../src/harness.js';
const archive = '/tmp/perf34/scdl/bench.scdl';
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}
const reader = await openScdlArchive(archive);
const rowPtr = (await reader.rows(0, reader.numRows)).indptr;
const colItem = reader.colPtr.itemSize;
const reads = Number(process.env.READS ?? 50000);
const random = rng(42);
const picks = Uint32Array.from({ length: reads }, () => Math.floor(random() * reader.numRows));
const dataFd = fs.openSync(path.join(archive, 'data.npy'), 'r');
const colFd = fs.openSync(path.join(archive, 'col_ptr.npy'), 'r');
const scratch = Buffer.allocUnsafe(1 << 20);
let sink = 0;
const floor = {
  name: 'slices',
  run: () => {
    for (const i of picks) {
      const a = rowPtr[i];
      const n = rowPtr[i + 1] - a;
      fs.readSync(colFd, scratch, 0, n * colItem, a * colItem);
      fs.readSync(dataFd, scratch, n * colItem, n * 4, a * 4);
      sink += scratch[0];
    }
  },
};
// No scratch folder: these rows never ask the bench for one (b.dir).
const b = new Bench(1, os.tmpdir());
const modes = (process.env.MODES ?? 'row,reuse,sync,syncreuse').split(',');
if (modes.includes('row'))
  await b.compare(
    { format: 's', operation: 'row(i)', items: reads },
    async () => {
      for (const i of picks) {
        const row = await reader.row(i);
        sink += row.values.length ? (row.values[0] as number) + row.indices[0] : 0;
      }
    },
    floor,
  );
if (modes.includes('reuse'))
  await b.compare(
    { format: 's', operation: 'row reuse', items: reads },
    async () => {
      for (const i of picks) {
        const row = await reader.row(i, { reuse: true });
        sink += row.values.length ? (row.values[0] as number) + row.indices[0] : 0;
      }
    },
    floor,
  );
for (const reuse of [false, true]) {
  if (!modes.includes(reuse ? 'syncreuse' : 'sync')) continue;
  await b.compare(
    { format: 's', operation: `sync${reuse ? ' reuse' : ''}`, items: reads },
    () => {
      const options = { reuse };
      for (const i of picks) {
        const row = reader.row(i, options);
        if (row instanceof Promise) throw new Error('x');
        sink += row.values.length ? (row.values[0] as number) + row.indices[0] : 0;
      }
    },
    floor,
  );
}
console.log(
  b.rows
    .map(
      (r) =>
        `${r.operation} ${r.ratio?.toFixed(3)} (${r.medianMs.toFixed(0)}/${r.floorMs?.toFixed(0)} ms, gc ${r.majorGcs})`,
    )
    .join(' | '),
  fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
);
process.stderr.write(`(checksum of the values read: ${sink})\n`);
