/**
 * .h5ad → SCDL conversion (issue 12): a generated AnnData file of cells × 20,000 genes with
 * 400–1,200 non-zeros per row (float32, ~500 MB at scale 1), converted with
 * @binscope/scdl-h5ad. Time and peak memory are measured in a fresh child process per run, so
 * the peak RSS (the child's VmHWM, own-peak.ts) is the conversion's own; the
 * floor is a raw sequential read of the same file (4 MiB fs.readSync), also in a child.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Bench, median, type Row } from './harness.js';
import { ownPeak } from './own-peak.js';

const FULL_CELLS = 80_000;
const GENES = 20_000;
const RUNS = 5;
const here = fileURLToPath(import.meta.url);

/** xorshift32: the same workload on every machine. */
function rng(seed: number): () => number {
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

/** The part of h5wasm's API the generator uses (h5wasm is not a dependency of the bench itself). */
interface H5Node {
  group: {
    create_attribute(name: string, value: unknown): void;
    create_group(name: string): H5Node['group'];
    create_dataset(args: { name: string; data: unknown; dtype?: string }): unknown;
  };
  lib: {
    ready: Promise<unknown>;
    File: new (path: string, mode: 'w') => H5Node['group'] & { close(): void };
  };
}

/** h5wasm's Node build, from @binscope/scdl-h5ad's own dependencies. */
async function h5wasmNode(): Promise<H5Node['lib']> {
  const pkg = path.dirname(fileURLToPath(import.meta.resolve('@binscope/scdl-h5ad/package.json')));
  const lib = (await import(
    pathToFileURL(path.join(pkg, 'node_modules/h5wasm/dist/node/hdf5_hl.js')).href
  )) as H5Node['lib'];
  await lib.ready;
  return lib;
}

/** Writes the workload in anndata's layout: CSR X (float32 data, int32 indices/indptr), obs and var dataframes. */
async function generate(file: string, cells: number): Promise<void> {
  const h5 = await h5wasmNode();
  const random = rng(7);
  const perRow = Array.from({ length: cells }, () => 400 + Math.floor(random() * 801));
  const nnz = perRow.reduce((a, b) => a + b, 0);
  const indptr = new Int32Array(cells + 1);
  const indices = new Int32Array(nnz);
  const data = new Float32Array(nnz);
  let at = 0;
  for (let r = 0; r < cells; r++) {
    const k = perRow[r];
    const stride = GENES / k;
    for (let j = 0; j < k; j++) {
      indices[at] = Math.floor(j * stride + random() * stride);
      data[at] = 1 + Math.floor(random() * 50);
      at++;
    }
    indptr[r + 1] = at;
  }
  const f = new h5.File(file, 'w');
  const attrs = (o: { create_attribute: (n: string, v: unknown) => void }, type: string, version: string) => {
    o.create_attribute('encoding-type', type);
    o.create_attribute('encoding-version', version);
  };
  attrs(f, 'anndata', '0.1.0');
  const x = f.create_group('X');
  attrs(x, 'csr_matrix', '0.1.0');
  x.create_attribute('shape', new BigInt64Array([BigInt(cells), BigInt(GENES)]));
  x.create_dataset({ name: 'data', data, dtype: '<f' });
  x.create_dataset({ name: 'indices', data: indices, dtype: '<i' });
  x.create_dataset({ name: 'indptr', data: indptr, dtype: '<i' });
  type ColumnData = string[] | Int32Array | { categories: string[]; codes: Int8Array };
  const frame = (name: string, index: string[], columns: [string, ColumnData][]) => {
    const g = f.create_group(name);
    attrs(g, 'dataframe', '0.2.0');
    g.create_attribute('_index', '_index');
    g.create_attribute(
      'column-order',
      columns.map(([n]) => n),
    );
    g.create_dataset({ name: '_index', data: index });
    for (const [n, values] of columns) {
      if (Array.isArray(values) || values instanceof Int32Array) {
        g.create_dataset({ name: n, data: values as never });
        continue;
      }
      // anndata's write_h5ad stores repetitive string columns as categoricals.
      const cat = g.create_group(n);
      attrs(cat, 'categorical', '0.2.0');
      cat.create_dataset({ name: 'categories', data: values.categories });
      cat.create_dataset({ name: 'codes', data: values.codes, dtype: '<b' });
    }
  };
  const cellTypes = ['T cell', 'B cell', 'NK cell', 'monocyte', 'dendritic'];
  frame(
    'obs',
    Array.from({ length: cells }, (_, c) => `cell${c}`),
    [
      [
        'cell_type',
        { categories: cellTypes, codes: Int8Array.from({ length: cells }, (_, c) => c % cellTypes.length) },
      ],
      ['n_counts', Int32Array.from(perRow)],
    ],
  );
  frame(
    'var',
    Array.from({ length: GENES }, (_, g) => `gene${g}`),
    [['feature_id', Array.from({ length: GENES }, (_, g) => `ENSG${String(g).padStart(11, '0')}`)]],
  );
  for (const name of ['obsm', 'obsp', 'varm', 'varp', 'layers', 'uns'])
    attrs(f.create_group(name), 'dict', '0.1.0');
  f.close();
}

interface ChildReport {
  ms: number;
  /** User + system CPU time of the measured section (steadier than wall time on a busy machine). */
  cpuMs?: number;
  maxRssMb: number;
  nnz?: number;
}

/**
 * The measured children run plain `node` on a small generated script (no TypeScript loader:
 * tsx would transform h5wasm's 4 MB module and add ~400 MB to the peak RSS being measured).
 */
function childScripts(dir: string): { convert: string; floor: string } {
  const report =
    'const u = process.resourceUsage(); process.stdout.write(JSON.stringify({ ms, nnz, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 - cpu0 }) + "\\n");';
  const cpuStart =
    'const cpu0 = (process.resourceUsage().userCPUTime + process.resourceUsage().systemCPUTime) / 1000;';
  const convert = path.join(dir, 'convert-child.mjs');
  fs.writeFileSync(
    convert,
    `const { convertH5adToScdl, describeH5ad } = await import(${JSON.stringify(import.meta.resolve('@binscope/scdl-h5ad/node'))});
// Module load and wasm start-up are not part of a conversion: a describe starts the HDF5
// worker thread, which the conversion then reuses.
await describeH5ad(process.argv[2]);
${cpuStart}
const start = performance.now();
const result = await convertH5adToScdl(process.argv[2], process.argv[3], JSON.parse(process.argv[4] ?? '{}'));
const ms = performance.now() - start;
const nnz = result.nnz;
${report}
`,
  );
  const floor = path.join(dir, 'floor-child.mjs');
  fs.writeFileSync(
    floor,
    `import * as fs from 'node:fs';
const buffer = Buffer.allocUnsafe(4 << 20);
${cpuStart}
const start = performance.now();
const fd = fs.openSync(process.argv[2], 'r');
for (let position = 0; ; ) {
  const n = fs.readSync(fd, buffer, 0, buffer.byteLength, position);
  if (n === 0) break;
  position += n;
}
fs.closeSync(fd);
const ms = performance.now() - start;
const nnz = 0;
${report}
`,
  );
  return { convert, floor };
}

/** Runs a child; its peak RSS is its own VmHWM (own-peak.ts), not its ru_maxrss, which carries this process's. */
function spawnChild(args: string[]): ChildReport {
  const run = ownPeak(args, { cwd: path.resolve(path.dirname(here), '..') });
  const report = JSON.parse(run.stdout.trim().split('\n').pop() ?? '') as Omit<ChildReport, 'maxRssMb'>;
  return { ...report, maxRssMb: run.peakMb };
}

async function childMain(mode: string, args: string[]): Promise<void> {
  if (mode !== 'generate') throw new Error(`unknown child mode ${mode}`);
  const start = performance.now();
  await generate(args[0], Number(args[1]));
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - start })}\n`);
}

export default async function run(b: Bench): Promise<void> {
  const cells = b.n(FULL_CELLS, 80);
  const dir = b.dir('scdl-h5ad');
  const input = path.join(dir, 'bench.h5ad');
  process.stderr.write(`scdl-h5ad: generating ${cells} cells × ${GENES} genes with h5wasm …\n`);
  // Generation runs in a child too (through tsx: its memory is not measured).
  spawnChild(['--import', 'tsx', here, '--child', 'generate', input, String(cells)]);
  const bytes = fs.statSync(input).size;
  const out = path.join(dir, 'out.scdl');
  const scripts = childScripts(dir);
  const convert = () => spawnChild([scripts.convert, input, out]);
  const floor = () => spawnChild([scripts.floor, input]);
  convert(); // warm-up: page cache, first write of the output
  floor();
  const converts: ChildReport[] = [];
  const floors: ChildReport[] = [];
  for (let i = 0; i < RUNS; i++) {
    floors.push(floor());
    converts.push(convert());
  }
  const medianMs = median(converts.map((r) => r.ms));
  const floorMs = median(floors.map((r) => r.ms));
  const nnz = converts[0].nnz ?? 0;
  const row: Row = {
    format: 'scdl-h5ad',
    operation: `convert .h5ad → SCDL, ${nnz.toLocaleString('en-US')} non-zeros (child process)`,
    bytes,
    items: nnz,
    medianMs,
    runs: RUNS,
    floor: 'fs.readSync of the whole .h5ad, 4 MiB buffer (child process)',
    floorMs,
    ratio: medianMs / floorMs,
    goal: 'upstream ~0.8 s at scale 1',
    peakRssMb: Math.max(...converts.map((r) => r.maxRssMb)),
    note: `CPU ${median(converts.map((r) => r.cpuMs ?? 0)).toFixed(0)} ms (floor ${median(floors.map((r) => r.cpuMs ?? 0)).toFixed(0)} ms); floor peak RSS ${Math.max(...floors.map((r) => r.maxRssMb))} MB; input ${(bytes / 1e6).toFixed(0)} MB`,
  };
  b.rows.push(row);
  process.stderr.write(
    `  scdl-h5ad convert: ${medianMs.toFixed(1)} ms (${(bytes / 1e6 / (medianMs / 1000)).toFixed(0)} MB/s) | floor ${floorMs.toFixed(1)} ms | ratio ${(medianMs / floorMs).toFixed(2)} | peak RSS ${row.peakRssMb} MB | ${row.note}\n`,
  );
  for (const dataDtype of ['float32', 'uint32', 'float16'])
    guardRow(b, bytes, nnz, dataDtype, (options) =>
      spawnChild([scripts.convert, input, out, JSON.stringify(options)]),
    );
}

/**
 * What the value-range guard (C10) costs: the same conversion with it (the default) and
 * without (`lossyCast: true`, the unguarded copy), paired and alternating, in fresh children.
 * float32 → float32 is the default conversion (the guard has nothing to scan: every float32
 * fits); uint32 makes it scan every value before the cast, float16 find overflows in the pass
 * that counts the values the cast changed.
 */
function guardRow(
  b: Bench,
  bytes: number,
  nnz: number,
  dataDtype: string,
  convert: (options: object) => ChildReport,
): void {
  const guarded: ChildReport[] = [];
  const unguarded: ChildReport[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (i % 2 === 0) unguarded.push(convert({ dataDtype, lossyCast: true }));
    guarded.push(convert({ dataDtype }));
    if (i % 2 === 1) unguarded.push(convert({ dataDtype, lossyCast: true }));
  }
  const cpu = (r: ChildReport) => r.cpuMs ?? Number.NaN;
  const row: Row = {
    format: 'scdl-h5ad',
    operation: `convert .h5ad → SCDL, data ${dataDtype}, value-range guard on (C10)`,
    bytes,
    items: nnz,
    medianMs: median(guarded.map((r) => r.ms)),
    runs: RUNS,
    floor: 'the same conversion unguarded (lossyCast: true)',
    floorMs: median(unguarded.map((r) => r.ms)),
    ratio: median(guarded.map((r, i) => r.ms / unguarded[i].ms)),
    goal: '≤ 1.1',
    peakRssMb: Math.max(...guarded.map((r) => r.maxRssMb)),
    note: `CPU ${median(guarded.map(cpu)).toFixed(0)} ms guarded vs ${median(unguarded.map(cpu)).toFixed(0)} ms unguarded (paired CPU ratio ${median(guarded.map((r, i) => cpu(r) / cpu(unguarded[i]))).toFixed(2)})`,
  };
  b.rows.push(row);
  process.stderr.write(
    `  scdl-h5ad guard, ${dataDtype}: ${row.medianMs.toFixed(1)} ms | unguarded ${row.floorMs?.toFixed(1)} ms | ratio ${row.ratio?.toFixed(2)} | ${row.note}\n`,
  );
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0 && process.argv[1] && path.resolve(process.argv[1]) === here) {
  await childMain(process.argv[childAt + 1], process.argv.slice(childAt + 2));
}
