import * as fs from 'node:fs';
import * as path from 'node:path';
import { inflateSync, deflateSync } from 'node:zlib';
import { NodeFileSource } from '@binscope/core/node';
import { openScbf, Utf8Column } from '@binscope/scbf';
import { csvToScbf, openScbfFile, scbfToCsv, writeScbfFile } from '@binscope/scbf/node';
import { type Bench, median } from './harness.js';
import { cliPeak } from './own-peak.js';
import { wideCsvRows } from './scbf-wide.js';

/**
 * SCBF (issue #3): a 1,000,000-row file (int32, utf8, float64, low-cardinality utf8, int32)
 * and its CSV (~58 MB) at scale 1, written with the package's own writers. Each figure has
 * its floor measured in the same run: node:zlib inflate / deflate of the same blocks.
 */
export default async function run(b: Bench): Promise<void> {
  const dir = b.dir('scbf');
  const rows = b.n(1_000_000, 1000);
  const scbfPath = path.join(dir, 'bench.scbf');
  const csvPath = path.join(dir, 'bench.csv');
  await writeScbfFile(scbfPath, generate(rows));
  await scbfToCsv(scbfPath, csvPath);
  const csvBytes = fs.statSync(csvPath).size;

  const reader = await openScbfFile(scbfPath);
  const fd = fs.openSync(scbfPath, 'r');
  /** The floor for a block: read its compressed bytes and inflate them with node:zlib, nothing else. */
  const inflateRaw = (block: { offset: number; compressedSize: number; uncompressedSize: number }) => {
    const compressed = Buffer.allocUnsafe(block.compressedSize);
    fs.readSync(fd, compressed, 0, block.compressedSize, block.offset);
    return inflateSync(compressed, { chunkSize: Math.max(64, block.uncompressedSize) });
  };

  // 1. One float64 column.
  const value = reader.column('value');
  await b.compare(
    {
      format: 'scbf',
      operation: 'read one float64 column',
      bytes: value.blocks[0].uncompressedSize,
      items: rows,
      goal: '≤ 1.15',
      allocation: { count: rows, unit: 'row' },
    },
    async () => {
      // The caller opens the file, so the caller closes it (a reader never closes its source).
      const source = NodeFileSource.open(scbfPath);
      const r = await openScbf(source);
      const values = await r.readColumn('value');
      if (values.length !== rows) throw new Error('short read');
      await source.close();
    },
    { name: 'node:zlib inflate of that block', run: () => inflateRaw(value.blocks[0]) },
  );

  // 2. All columns (strings stay lazy), and all columns with every string decoded.
  const allBlocks = reader.columns.flatMap((c) => c.blocks);
  const uncompressed = allBlocks.reduce((s, blk) => s + blk.uncompressedSize, 0);
  const inflateAll = () => {
    for (const block of allBlocks) inflateRaw(block);
  };
  await b.compare(
    {
      format: 'scbf',
      operation: 'read all columns',
      bytes: uncompressed,
      items: rows,
      goal: '≤ 1.15',
      allocation: { count: rows, unit: 'row' },
    },
    async () => {
      // The caller opens the file, so the caller closes it (a reader never closes its source).
      const source = NodeFileSource.open(scbfPath);
      const r = await openScbf(source);
      await r.readColumns();
      await source.close();
    },
    { name: 'node:zlib inflate of all blocks', run: inflateAll },
  );
  // Its floor (issue #34): the same inflates plus one bulk UTF-8 decode of each strings block, the
  // least any reader must do to hand out text; the subject also cuts that text into one JS string
  // per value.
  const stringBlocks = new Set(reader.columns.filter((c) => c.type === 'utf8').map((c) => c.blocks[1]));
  const utf8 = new TextDecoder('utf-8');
  const inflateAllDecodeStrings = () => {
    for (const block of allBlocks) {
      const raw = inflateRaw(block);
      if (stringBlocks.has(block)) utf8.decode(raw);
    }
  };
  await b.compare(
    {
      format: 'scbf',
      operation: 'read all columns, strings decoded',
      bytes: uncompressed,
      items: rows,
      goal: '≤ 1.5',
      note: 'every utf8 value as a JS string',
      allocation: { count: rows, unit: 'row' },
    },
    async () => {
      // The caller opens the file, so the caller closes it (a reader never closes its source).
      const source = NodeFileSource.open(scbfPath);
      const r = await openScbf(source);
      for (const values of Object.values(await r.readColumns()))
        if (values instanceof Utf8Column) values.toArray();
      await source.close();
    },
    { name: 'inflate of all blocks + one UTF-8 decode per strings block', run: inflateAllDecodeStrings },
  );

  // 3. CSV → SCBF vs deflating the same column bytes alone (what the Python writer spends ~1/3 of its time on).
  // CPU time (all threads) is recorded too: on a shared machine the wall-clock ratio depends on
  // how much of the second core the conversion gets for deflating beside parsing.
  const rawBlocks = await Promise.all(
    reader.columns.flatMap((c) => c.blocks.map((blk) => reader.readBlock(blk, c))),
  );
  const converted = path.join(dir, 'converted.scbf');
  const deflateFloor = {
    name: 'node:zlib deflate of the same column bytes',
    run: () => {
      for (const raw of rawBlocks) deflateSync(raw);
    },
  };
  const conversion = await b.compare(
    {
      format: 'scbf',
      operation: 'CSV → SCBF',
      bytes: csvBytes,
      items: rows,
      goal: '≤ 1.5',
      note: 'MB/s of CSV',
      allocation: { count: rows, unit: 'row' },
    },
    cpuTimed('subject', () => csvToScbf(csvPath, converted)),
    { name: deflateFloor.name, run: cpuTimed('floor', deflateFloor.run) },
  );
  conversion.note = cpuNote('MB/s of CSV');
  const python = await b.compare(
    {
      format: 'scbf',
      operation: 'CSV → SCBF, pythonZlib (bytes identical to the Python writer)',
      bytes: csvBytes,
      items: rows,
    },
    cpuTimed('subject', () => csvToScbf(csvPath, converted, { pythonZlib: true })),
    { name: deflateFloor.name, run: cpuTimed('floor', deflateFloor.run) },
  );
  python.note = cpuNote('opt-in; pako deflates on the main thread');

  // 4. Peak memory of a conversion on its own: the CLI in a fresh process, its own VmHWM
  // (own-peak.ts), so neither the generator's arrays nor this process's peak count.
  const peaks: number[] = [];
  const fresh = await b.measure(
    {
      format: 'scbf',
      operation: 'binscope convert CSV → SCBF (CLI, fresh process, its own peak RSS)',
      bytes: csvBytes,
      items: rows,
    },
    () => {
      fs.rmSync(converted, { force: true });
      peaks.push(cliPeak('convert', csvPath, converted).peakMb);
    },
  );
  fresh.peakRssMb = Math.max(...peaks);
  fresh.figure = `converter peak RSS ${fresh.peakRssMb} MB`;
  fresh.note = `own peak (VmHWM) of the CLI process, ${Math.min(...peaks)}–${fresh.peakRssMb} MB over ${peaks.length} runs, for a ${(csvBytes / 1e6).toFixed(1)} MB CSV`;
  process.stderr.write(`  scbf ${fresh.note}\n`);

  fs.closeSync(fd);
  await reader.close();

  // 5. Peak memory by column count.
  await wideCsvRows(b, dir);
}

const cpuMs: { subject: number[]; floor: number[] } = { subject: [], floor: [] };

/** Wraps a workload to record the CPU time of every thread of this process. */
function cpuTimed(which: 'subject' | 'floor', work: () => unknown): () => Promise<void> {
  return async () => {
    const start = process.cpuUsage();
    await work();
    const used = process.cpuUsage(start);
    cpuMs[which].push((used.user + used.system) / 1000);
  };
}

/** The CPU medians recorded since the last call, as a note. */
function cpuNote(prefix: string): string {
  const note = `${prefix}; CPU ${(median(cpuMs.subject) / 1000).toFixed(2)} s vs floor ${(median(cpuMs.floor) / 1000).toFixed(2)} s (all threads)`;
  cpuMs.subject = [];
  cpuMs.floor = [];
  process.stderr.write(`  scbf ${note}\n`);
  return note;
}

/** Deterministic rows: id, name (utf8), value (float64), category (8 values), count (int32). */
export function generate(rows: number) {
  let seed = 0x5cbf;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const categories = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
  const id = new Int32Array(rows);
  const name: string[] = new Array(rows);
  const value = new Float64Array(rows);
  const category: string[] = new Array(rows);
  const count = new Int32Array(rows);
  for (let i = 0; i < rows; i++) {
    id[i] = i;
    name[i] = `user_${i}_${Math.floor(random() * 1e9).toString(36)}`;
    value[i] = Math.round((random() - 0.5) * 2e8) / 1e4;
    category[i] = categories[Math.floor(random() * random() * categories.length)];
    count[i] = Math.floor(random() * 200_000) - 100_000;
  }
  return [
    { name: 'id', values: id },
    { name: 'name', values: name },
    { name: 'value', values: value },
    { name: 'category', values: category },
    { name: 'count', values: count },
  ];
}
