/**
 * A fresh read-ahead window, zeroed (`new Uint8Array`) against uninitialised (`allocUnsafeSlow`
 * with its carry room cleared), each then filled by one 4 MiB read: what core's ReadAhead.take
 * pays per window of a fresh-values pass. Usage: node --expose-gc --import tsx ab/window-alloc.ts <file ≥ 1.2 GB>
 */
import * as fs from 'node:fs';

const file = process.argv[2];
if (!file) throw new Error('usage: ab/window-alloc.ts <file of at least 1.2 GB>');
const fd = fs.openSync(file, 'r');
const CARRY = 256 << 10;
const CHUNK = 4 << 20;
const WINDOWS = Math.min(290, Math.floor(fs.statSync(file).size / CHUNK));

function windowOf(kind: 'zeroed' | 'uninitialised'): Uint8Array {
  if (kind === 'zeroed') return new Uint8Array(CARRY + CHUNK);
  const buffer = Buffer.allocUnsafeSlow(CARRY + CHUNK);
  buffer.fill(0, 0, CARRY);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, CARRY + CHUNK);
}

function pass(kind: 'zeroed' | 'uninitialised'): [wall: number, cpu: number] {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < WINDOWS; i++) fs.readSync(fd, windowOf(kind), CARRY, CHUNK, i * CHUNK);
  const used = process.cpuUsage(cpu);
  return [performance.now() - start, (used.user + used.system) / 1000];
}

const runs = { zeroed: [] as [number, number][], uninitialised: [] as [number, number][] };
for (let round = 0; round < 10; round++) {
  const order = round % 2 ? (['zeroed', 'uninitialised'] as const) : (['uninitialised', 'zeroed'] as const);
  for (const kind of order) {
    (globalThis as { gc?: () => void }).gc?.();
    runs[kind].push(pass(kind));
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const kind of ['zeroed', 'uninitialised'] as const) {
  const wall = median(runs[kind].map(([w]) => w)).toFixed(0);
  const cpu = median(runs[kind].map(([, c]) => c)).toFixed(0);
  console.log(`${kind}: ${WINDOWS} windows, wall ${wall} ms, CPU ${cpu} ms (medians of 10)`);
}
