import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Bench, formatBytes, makeTmp, type Row, throughput } from './harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    only: { type: 'string', multiple: true },
    out: { type: 'string', default: path.join(here, '..', 'results.json') },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  process.stdout.write(`pnpm bench [--scale S] [--only FORMAT ...] [--out FILE] [--keep]

Generates each format's workload with binscope's own writers in a temp folder, then times every
operation and its floor (raw read / raw inflate / tar -tf of the same bytes) in the same run.
--scale 1 is the full workload of the issues (a few minutes on 2 cores); --scale 0.01 is a smoke run.
`);
  process.exit(0);
}

const scale = Number(values.scale);
if (!(scale > 0)) throw new Error(`--scale must be a positive number, got ${values.scale}`);

const modules = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'main.ts' && f !== 'harness.ts')
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((name) => !values.only?.length || values.only.includes(name))
  .sort();

const tmp = makeTmp();
const bench = new Bench(scale, tmp);
const failures: string[] = [];
process.stderr.write(`bench: scale ${scale}, scratch ${tmp}\n`);
try {
  for (const name of modules) {
    process.stderr.write(`\n[${name}]\n`);
    try {
      const mod = (await import(`./${name}.ts`)) as { default?: (b: Bench) => Promise<void> };
      // A module without a default export holds rows another module runs (scbf-wide for scbf).
      if (typeof mod.default !== 'function') continue;
      await mod.default(bench);
    } catch (error) {
      failures.push(name);
      process.stderr.write(`bench ${name} failed: ${(error as Error)?.stack ?? error}\n`);
    }
    if (!values.keep) fs.rmSync(path.join(tmp, name), { recursive: true, force: true });
  }
} finally {
  if (!values.keep) fs.rmSync(tmp, { recursive: true, force: true });
}

const header = [
  'format',
  'operation',
  'data',
  'median',
  'throughput',
  'floor',
  'floor median',
  'ratio',
  'goal',
  'figure',
  'major GCs/run',
  'peak RSS',
];
const lines = bench.rows.map((r: Row) => [
  r.format,
  r.operation,
  formatBytes(r.bytes) || (r.items ? `${r.items.toLocaleString('en-US')} items` : ''),
  `${r.medianMs.toFixed(1)} ms`,
  throughput(r),
  r.floor ?? '',
  r.floorMs === undefined ? '' : `${r.floorMs.toFixed(1)} ms`,
  r.ratio === undefined ? '' : r.ratio.toFixed(2),
  r.goal ?? '',
  r.figure ?? '',
  r.majorGcs === undefined ? '' : String(r.majorGcs),
  `${r.peakRssMb} MB`,
]);
const table = [header, header.map(() => '---'), ...lines]
  .map((cells) => `| ${cells.join(' | ')} |`)
  .join('\n');
process.stdout.write(`\n${table}\n`);

const machine = {
  node: process.version,
  cpus: os.cpus().length,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  platform: `${os.platform()} ${os.release()}`,
};
fs.writeFileSync(
  values.out,
  `${JSON.stringify({ date: new Date().toISOString(), scale, machine, rows: bench.rows }, null, 2)}\n`,
);
process.stderr.write(`\nwrote ${values.out}\n`);
if (failures.length) {
  process.stderr.write(`benchmarks that failed: ${failures.join(', ')}\n`);
  process.exit(1);
}
