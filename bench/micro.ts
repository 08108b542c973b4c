import * as fs from 'node:fs';
import * as path from 'node:path';
import { openScdlArchive } from '@binscope/scdl/node';
import { generate } from './src/scdl.ts';

const dir = '/tmp/scdlmicro/archive';
if (!fs.existsSync(path.join(dir, 'header.sch'))) await generate(dir, 8000);
const reader = await openScdlArchive(dir);
let x = 1;
const picks = Uint32Array.from({ length: 10000 }, () => { x = (x * 1103515245 + 12345) % 2 ** 31; return x % reader.numRows; });
const mode = process.argv[2];
let sink = 0;
const run = async () => {
  const t = performance.now();
  if (mode === 'await') for (const i of picks) { const r = await reader.row(i); sink += r.values.length; }
  else if (mode === 'sync') for (const i of picks) { const r = (reader as any).rowSync ? (reader as any).rowSync(i) : reader.row(i); sink += r.values.length; }
  return performance.now() - t;
};
for (let k = 0; k < 3; k++) await run();
const times: number[] = [];
for (let k = 0; k < 15; k++) times.push(await run());
times.sort((a, b) => a - b);
console.log(mode, 'median ms', times[7].toFixed(1), 'min', times[0].toFixed(1));
