/**
 * XXH64 (seed 0) of many stems in one WebAssembly call, for the index builder's finish(): the
 * stems' text goes into the module's memory once, and the hashes come back as halves. One
 * `h64Raw` call of xxhash-wasm per stem (a copy into its memory, a BigInt result, another for
 * its mask, and our view of the stem) took ~0.3 µs, 30 ms for the bench's 100,000 stems.
 * test/stem-hash.test.ts checks it against xxhash-wasm.
 *
 * The module is assembled here (wasm-asm.ts) from its instructions: its source is this file.
 */
import { compile, I32, I64, op, type WasmFunction, wasmModule } from './wasm-asm.js';

const { block, loop, end, br, brIf, call, get, set, tee, i32, i64 } = op;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;
const MASK = (1n << 64n) - 1n;

/** round(acc, input) -> rotl(acc + input × P2, 31) × P1. */
const ROUND: WasmFunction = {
  params: [I64, I64],
  results: [I64],
  locals: [],
  code: [
    [
      ...get(0),
      ...get(1),
      ...i64(P2),
      ...op.i64Mul,
      ...op.i64Add,
      ...i64(31n),
      ...op.i64Rotl,
      ...i64(P1),
      ...op.i64Mul,
    ],
  ],
};

/** mergeRound(h, v) -> (h ^ round(0, v)) × P1 + P4. */
const MERGE: WasmFunction = {
  params: [I64, I64],
  results: [I64],
  locals: [],
  code: [
    [
      ...get(0),
      ...i64(0n),
      ...get(1),
      ...call(0),
      ...op.i64Xor,
      ...i64(P1),
      ...op.i64Mul,
      ...i64(P4),
      ...op.i64Add,
    ],
  ],
};

/** `h = rotl(h ^ x, r) × m (+ a)` on local 4, with x on the stack. */
const mix = (r: bigint, m: bigint, a?: bigint) => [
  ...get(4),
  ...op.i64Xor,
  ...i64(r),
  ...op.i64Rotl,
  ...i64(m),
  ...op.i64Mul,
  ...(a === undefined ? [] : [...i64(a), ...op.i64Add]),
  ...set(4),
];
/** `h ^= h >> n` on local 4. */
const shiftXor = (n: bigint) => [...get(4), ...get(4), ...i64(n), ...op.i64ShrU, ...op.i64Xor, ...set(4)];

/**
 * xxh64(p, len) -> i64, XXH64 with seed 0 of the bytes at p.
 * Locals: 2 = end, 3 = last stripe start, 4 = h, 5..8 = the four lanes.
 */
const XXH64: WasmFunction = {
  params: [I32, I32],
  results: [I64],
  locals: [I32, I32, I64, I64, I64, I64, I64],
  code: [
    [...get(0), ...get(1), ...op.i32Add, ...set(2)],
    [...get(1), ...i32(32), ...op.i32GeU, ...op.if],
    [
      ...i64((P1 + P2) & MASK),
      ...set(5),
      ...i64(P2),
      ...set(6),
      ...i64(0n),
      ...set(7),
      ...i64(-P1 & MASK),
      ...set(8),
    ],
    [...get(2), ...i32(32), ...op.i32Sub, ...set(3), ...loop],
    ...[5, 6, 7, 8].map((lane, i) => [
      ...get(lane),
      ...get(0),
      ...(i === 0 ? [] : [...i32(8 * i), ...op.i32Add]),
      ...op.i64Load,
      ...call(0),
      ...set(lane),
    ]),
    [...get(0), ...i32(32), ...op.i32Add, ...tee(0), ...get(3), ...op.i32LeU, ...brIf(0), ...end],
    [...get(5), ...i64(1n), ...op.i64Rotl, ...get(6), ...i64(7n), ...op.i64Rotl, ...op.i64Add],
    [
      ...get(7),
      ...i64(12n),
      ...op.i64Rotl,
      ...op.i64Add,
      ...get(8),
      ...i64(18n),
      ...op.i64Rotl,
      ...op.i64Add,
    ],
    [...get(5), ...call(1), ...get(6), ...call(1), ...get(7), ...call(1), ...get(8), ...call(1), ...set(4)],
    [...op.else, ...i64(P5), ...set(4), ...end],
    [...get(4), ...get(1), ...op.i64ExtendI32U, ...op.i64Add, ...set(4)],
    // 8 bytes at a time, then 4, then 1.
    [...block, ...loop, ...get(0), ...i32(8), ...op.i32Add, ...get(2), ...op.i32GtU, ...brIf(1)],
    [...i64(0n), ...get(0), ...op.i64Load, ...call(0), ...mix(27n, P1, P4)],
    [...get(0), ...i32(8), ...op.i32Add, ...set(0), ...br(0), ...end, ...end],
    [...get(0), ...i32(4), ...op.i32Add, ...get(2), ...op.i32LeU, ...op.if],
    [...get(0), ...op.i64Load32U, ...i64(P1), ...op.i64Mul, ...mix(23n, P2, P3)],
    [...get(0), ...i32(4), ...op.i32Add, ...set(0), ...end],
    [...block, ...loop, ...get(0), ...get(2), ...op.i32GeU, ...brIf(1)],
    [...get(0), ...op.i32Load8U, ...op.i64ExtendI32U, ...i64(P5), ...op.i64Mul, ...mix(11n, P1)],
    [...get(0), ...i32(1), ...op.i32Add, ...set(0), ...br(0), ...end, ...end],
    // Avalanche.
    [...shiftXor(33n), ...get(4), ...i64(P2), ...op.i64Mul, ...set(4)],
    [...shiftXor(29n), ...get(4), ...i64(P3), ...op.i64Mul, ...set(4)],
    [...shiftXor(32n), ...get(4)],
  ],
};

/**
 * hashAll(n, starts, lengths, out): for k < n, the hash of the `lengths[k]` bytes at
 * `starts[k]` (u32 arrays at those addresses) into the u64 array at `out`.
 * Locals: 4 = k.
 */
const HASH_ALL: WasmFunction = {
  params: [I32, I32, I32, I32],
  results: [],
  locals: [I32],
  code: [
    [...block, ...loop, ...get(4), ...get(0), ...op.i32GeU, ...brIf(1)],
    [...get(3), ...get(4), ...i32(3), ...op.i32Shl, ...op.i32Add],
    [...get(1), ...get(4), ...i32(2), ...op.i32Shl, ...op.i32Add, ...op.i32Load],
    [...get(2), ...get(4), ...i32(2), ...op.i32Shl, ...op.i32Add, ...op.i32Load],
    [...call(2), ...op.i64Store],
    [...get(4), ...i32(1), ...op.i32Add, ...set(4), ...br(0), ...end, ...end],
  ],
};

const MODULE = wasmModule([ROUND, MERGE, XXH64, HASH_ALL], 'caller', { hashAll: 3 });
const PAGE = 65536;
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

let compiled: WebAssembly.Module | null | undefined;

/**
 * Hashes the `n` stems `text[starts[k] .. starts[k] + lengths[k])` into `lo` and `hi`; false
 * (nothing done) where WebAssembly is missing. A fresh instance each time: its memory, as
 * large as the stems, goes with it.
 */
export function hashStemText(
  text: Uint8Array,
  used: number,
  starts: Uint32Array,
  lengths: Uint32Array,
  n: number,
  lo: Uint32Array,
  hi: Uint32Array,
): boolean {
  if (compiled === undefined) compiled = compile(MODULE);
  if (compiled === null) return false;
  const startsAt = (used + 7) & ~7;
  const lengthsAt = startsAt + 4 * n;
  const outAt = (lengthsAt + 4 * n + 7) & ~7;
  // Memory of the size needed, made here: the module never grows it (see wasmModule).
  const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil((outAt + 8 * n) / PAGE)) });
  const exports = new WebAssembly.Instance(compiled, { env: { memory } }).exports as {
    hashAll: (n: number, starts: number, lengths: number, out: number) => void;
  };
  new Uint8Array(memory.buffer).set(text.subarray(0, used));
  if (LITTLE) {
    // The module's memory is little-endian, and so are typed arrays here: whole copies.
    new Uint32Array(memory.buffer, startsAt, n).set(starts.subarray(0, n));
    new Uint32Array(memory.buffer, lengthsAt, n).set(lengths.subarray(0, n));
    exports.hashAll(n, startsAt, lengthsAt, outAt);
    const out = new Uint32Array(memory.buffer, outAt, 2 * n);
    for (let k = 0; k < n; k++) {
      lo[k] = out[2 * k];
      hi[k] = out[2 * k + 1];
    }
    return true;
  }
  const view = new DataView(memory.buffer);
  for (let k = 0; k < n; k++) {
    view.setUint32(startsAt + 4 * k, starts[k], true);
    view.setUint32(lengthsAt + 4 * k, lengths[k], true);
  }
  exports.hashAll(n, startsAt, lengthsAt, outAt);
  for (let k = 0; k < n; k++) {
    lo[k] = view.getUint32(outAt + 8 * k, true);
    hi[k] = view.getUint32(outAt + 8 * k + 4, true);
  }
  return true;
}
