// The value-range guard (C10) per chunk, in one process: the converter's guarded step
// (CastGuard.castChunk) and the guard as it was (a scan of its own, then the cast and the
// count) against the unguarded step (castElements + countChanged), paired and alternating,
// on one 2 Mi-value chunk (the converter's chunkNnz) per source → target pair.
// Each pair in a process of its own (one pair's typed arrays would make the shared loops
// polymorphic for the next): node --import tsx ab/h5ad-guard-chunk.ts PAIR [runs], PAIR 0..4.
import { CastGuard, firstUnfitValue } from '../../packages/scdl-h5ad/src/cast-guard.js';
import {
  castElements,
  countChanged,
  type DataDtype,
  OUTPUT_TYPE,
} from '../../packages/scdl-h5ad/src/cast.js';
import type { ElementType } from '../../packages/scdl-h5ad/src/h5.js';

const N = 2 << 20;
const RUNS = Number(process.argv[3] ?? 41);
const TOLERANCE = 1e-8;

let seed = 7;
const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
/** Counts (whole numbers, as raw counts are) for the unsigned targets; expression-like floats for the float ones. */
const counts = (n: number) => Array.from({ length: n }, () => Math.floor(-Math.log(random() + 1e-12) * 3));
const floats = (n: number) => Array.from({ length: n }, () => Math.log1p(-Math.log(random() + 1e-12) * 3));

const PAIRS: [ElementType, DataDtype, () => Float32Array | Float64Array][] = [
  ['f32', 'uint32', () => Float32Array.from(counts(N))],
  ['f32', 'uint16', () => Float32Array.from(counts(N))],
  ['f32', 'float16', () => Float32Array.from(floats(N))],
  ['f64', 'float32', () => Float64Array.from(floats(N))],
  ['f32', 'float32', () => Float32Array.from(floats(N))],
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const time = (f: () => void) => {
  const t = performance.now();
  f();
  return performance.now() - t;
};

const pairs = process.argv[2] === undefined ? PAIRS : [PAIRS[Number(process.argv[2])]];
for (const [from, dtype, values] of pairs) {
  const bytes = new Uint8Array(values().buffer);
  const to = OUTPUT_TYPE[dtype];
  const into = new ArrayBuffer(N * 8);
  const unguarded = () => {
    const cast = castElements(bytes, from, to, into);
    if (from !== to) countChanged(bytes, from, cast, to, TOLERANCE);
  };
  const before = () => {
    if (firstUnfitValue(bytes, from, to)) throw new Error('unfit');
    unguarded();
  };
  const guard = new CastGuard('bench.h5ad', 'X', dtype);
  const now = () => {
    guard.castChunk(bytes, from, 0, TOLERANCE, into);
    guard.check([0, N], { length: N });
  };
  for (let i = 0; i < 5; i++) for (const f of [unguarded, before, now]) f();
  const ratios = { before: [] as number[], now: [] as number[] };
  const ms = { unguarded: [] as number[], before: [] as number[], now: [] as number[] };
  for (let r = 0; r < RUNS; r++) {
    const order =
      r % 2 === 0 ? (['unguarded', 'before', 'now'] as const) : (['now', 'before', 'unguarded'] as const);
    const t: Record<string, number> = {};
    for (const k of order) t[k] = time(k === 'unguarded' ? unguarded : k === 'before' ? before : now);
    for (const k of ['unguarded', 'before', 'now'] as const) ms[k].push(t[k]);
    ratios.before.push(t.before / t.unguarded);
    ratios.now.push(t.now / t.unguarded);
  }
  console.log(
    `${from} → ${dtype}: unguarded ${median(ms.unguarded).toFixed(2)} ms | guard as before ${median(ms.before).toFixed(2)} ms (×${median(ratios.before).toFixed(2)}) | castChunk ${median(ms.now).toFixed(2)} ms (×${median(ratios.now).toFixed(2)})`,
  );
}
