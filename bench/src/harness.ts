import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v8 from 'node:v8';
import {
  type NodeGCPerformanceDetail,
  type PerformanceEntry,
  constants as perfConstants,
  PerformanceObserver,
} from 'node:perf_hooks';

export interface Row {
  format: string;
  operation: string;
  /** Bytes the operation processes (for MB/s). */
  bytes?: number;
  /** Items it processes (rows, samples, keys) for items/s. */
  items?: number;
  medianMs: number;
  runs: number;
  floor?: string;
  floorMs?: number;
  /** Median over runs of subject time / floor time in the same run (lower is better). */
  ratio?: number;
  goal?: string;
  peakRssMb: number;
  /** A row's own measure besides time, e.g. "512 B read per key". */
  figure?: string;
  /**
   * Median over runs of the mark-compact GCs inside the subject's timed run (the forced gc()
   * before each run not counted): a ratio that moves with this moved with the heap, not the code.
   */
  majorGcs?: number;
  /** JS heap bytes one untimed run of the subject allocated, per `Operation.allocation` unit. */
  heapBytesPer?: { bytes: number; unit: string };
  note?: string;
}

export interface Operation {
  format: string;
  operation: string;
  bytes?: number;
  items?: number;
  /** e.g. "≤ 1.15" — printed beside the ratio, never enforced. */
  goal?: string;
  runs?: number;
  warmup?: number;
  note?: string;
  /**
   * For a hot loop: after the timed runs, one more run of the subject is measured for the JS
   * heap it allocates, reported per `unit` (`count` of them in a run) in the row's figure, so
   * a change that allocates more shows even when the time hides it.
   */
  allocation?: { count: number; unit: string };
}

/** For rows whose ratio sits near its goal: on a shared VM a 7-run median moves by ±0.15. */
export const RUNS_NEAR_GOAL = 11;

type Work = () => unknown | Promise<unknown>;

/**
 * Runs each operation and its floor the same number of times, interleaved so both see the
 * same cache and thermal state, and reports medians and their ratio.
 */
export class Bench {
  readonly rows: Row[] = [];
  constructor(
    /** 1 = the issue's full workload; 0.01 = CI smoke run. */
    readonly scale: number,
    /** Scratch folder for generated workloads; removed at the end. */
    readonly tmp: string,
  ) {}

  /** Scales a full-size count, keeping at least `min`. */
  n(full: number, min = 1): number {
    return Math.max(min, Math.round(full * this.scale));
  }

  /** A per-format scratch folder. */
  dir(name: string): string {
    const dir = path.join(this.tmp, name);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  async compare(op: Operation, subject: Work, floor?: { name: string; run: Work }): Promise<Row> {
    const runs = Math.max(5, op.runs ?? (floor ? 7 : 5));
    const warmup = op.warmup ?? 1;
    for (let i = 0; i < warmup; i++) {
      await subject();
      if (floor) await floor.run();
    }
    const subjectTimes: number[] = [];
    const floorTimes: number[] = [];
    const subjectWindows: [number, number][] = [];
    const majors: number[] = [];
    const collect = (entries: PerformanceEntry[]) => {
      for (const e of entries)
        if (
          (e as { detail?: NodeGCPerformanceDetail }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR
        )
          majors.push(e.startTime);
    };
    const gcs = new PerformanceObserver((list) => collect(list.getEntries()));
    gcs.observe({ entryTypes: ['gc'] });
    // Alternate which goes first: on a shared VM the first of a pair is measurably slower
    // or faster (cache and scheduler state), and a fixed order would bias every ratio.
    for (let i = 0; i < runs; i++) {
      if (floor && i % 2 === 0) floorTimes.push(await timeOnce(floor.run));
      subjectTimes.push(await timeOnce(subject, subjectWindows));
      if (floor && i % 2 === 1) floorTimes.push(await timeOnce(floor.run));
    }
    // GC entries reach the observer's buffer after a turn of the event loop, its callback later still.
    await new Promise((resolve) => setImmediate(resolve));
    collect(gcs.takeRecords());
    gcs.disconnect();
    const heapBytesPer = op.allocation && {
      bytes: (await heapAllocated(subject)).bytes / op.allocation.count,
      unit: op.allocation.unit,
    };
    const majorGcs = median(
      subjectWindows.map(([from, to]) => majors.filter((t) => t >= from && t <= to).length),
    );
    const medianMs = median(subjectTimes);
    const floorMs = floor ? median(floorTimes) : undefined;
    // The ratio is the median of each run's subject/floor pair, not the ratio of the two
    // medians: a pair runs back to back, so a slow minute on the VM slows both of its halves.
    const ratio = floor ? median(subjectTimes.map((t, i) => t / floorTimes[i])) : undefined;
    const row: Row = {
      format: op.format,
      operation: op.operation,
      bytes: op.bytes,
      items: op.items,
      medianMs,
      runs,
      floor: floor?.name,
      floorMs,
      ratio,
      goal: op.goal,
      peakRssMb: peakRssMb(),
      note: op.note,
      majorGcs,
      heapBytesPer,
      figure: heapBytesPer && heapFigure(heapBytesPer),
    };
    this.rows.push(row);
    printRow(row);
    return row;
  }

  /** A one-off measurement (no floor), e.g. open time. */
  async measure(op: Operation, subject: Work): Promise<Row> {
    return this.compare(op, subject);
  }
}

async function timeOnce(work: Work, windows?: [number, number][]): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  const start = performance.now();
  await work();
  const end = performance.now();
  windows?.push([start, end]);
  return end - start;
}

/**
 * JS heap bytes a run allocates: what each GC during it freed plus the heap's growth from start
 * to end (v8.GCProfiler reports the heap before and after every GC). Buffers' backing stores
 * live outside the JS heap and are not counted.
 */
export async function heapAllocated(work: Work): Promise<{ bytes: number; gcs: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = v8.getHeapStatistics().used_heap_size;
  const profiler = new v8.GCProfiler();
  profiler.start();
  await work();
  const after = v8.getHeapStatistics().used_heap_size;
  const stats = profiler.stop();
  let freed = 0;
  for (const s of stats?.statistics ?? []) {
    freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
  }
  return { bytes: after - before + freed, gcs: stats?.statistics.length ?? 0 };
}

export function heapFigure({ bytes, unit }: { bytes: number; unit: string }): string {
  const shown = bytes >= 10 ? Math.round(bytes).toLocaleString('en-US') : bytes.toFixed(1);
  return `${shown} B of JS heap per ${unit}`;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * This process's high-water mark so far (every row before included): an in-process row's peak
 * RSS is an upper bound, not its own. Rows run in a child set their own (own-peak.ts).
 */
export function peakRssMb(): number {
  // maxRSS is in KiB on Linux.
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return '';
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} B`;
}

export function throughput(row: Row): string {
  const seconds = row.medianMs / 1000;
  if (row.bytes) return `${(row.bytes / 1e6 / seconds).toFixed(1)} MB/s`;
  if (row.items) return `${Math.round(row.items / seconds).toLocaleString('en-US')} /s`;
  return '';
}

function printRow(row: Row): void {
  const ratio =
    row.ratio === undefined ? '' : ` ratio ${row.ratio.toFixed(2)}${row.goal ? ` (goal ${row.goal})` : ''}`;
  const gcs = `${row.majorGcs ? ` | ${row.majorGcs} mark-compact GC(s) per run` : ''}${row.heapBytesPer ? ` | ${heapFigure(row.heapBytesPer)}` : ''}`;
  process.stderr.write(
    `  ${row.format} ${row.operation}: ${row.medianMs.toFixed(1)} ms ${throughput(row)}${row.floor ? ` | floor ${row.floor} ${row.floorMs!.toFixed(1)} ms` : ''}${ratio}${gcs}\n`,
  );
}

export function makeTmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-bench-'));
}

const benchRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Writes a module's fixture in a child process (`node --import tsx <module> --generate ...args`),
 * so the rows measured afterwards run in a process that never ran the writer: the writer's
 * leftover heap changes when V8 runs mark-compacts during the reads (bench/NOTES.md, scdl).
 */
export function generateInChild(module: string, args: string[]): void {
  const run = spawnSync(process.execPath, ['--import', 'tsx', module, '--generate', ...args], {
    cwd: benchRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (run.status !== 0)
    throw new Error(
      `generating ${path.basename(module)} ${args.join(' ')} failed (${run.status ?? run.signal})`,
    );
}

/** The child's side of generateInChild: runs `generate` when `module` is the script started with --generate. */
export async function generatorMain(
  module: string,
  generate: (args: string[]) => Promise<void>,
): Promise<void> {
  const at = process.argv.indexOf('--generate');
  if (at < 0 || !process.argv[1] || path.resolve(process.argv[1]) !== module) return;
  await generate(process.argv.slice(at + 1));
}
