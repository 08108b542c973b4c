/**
 * The indexer's common case of a tar header, in WebAssembly, for the walk of local shards
 * (tar-walk.ts), whose ring of headers lives in the module's memory:
 * - `plain(p)` checks the 512-byte header at p and returns its member size when the header is
 *   what tar writers emit (the unsigned checksum, stored as plain octal, and a plain octal size
 *   below 2^31), else -1, which sends the walk to the JavaScript that handles every header
 *   (tar.ts: the end marker, old tars' signed sums, base-256 and PAX sizes, errors);
 * - `name(p)` scans its name field for the builder (write.ts), see NAME_SAME.
 *
 * Why: the same work in JavaScript is typed-array loads byte by byte (the checksum alone is 128
 * word loads), each with its checks, ~0.5 µs a header in all beside the read call that is all
 * the bare header walk does; here it is 32 SIMD steps and byte loops in compact code.
 * test/header-wasm.test.ts checks both against the JavaScript, on valid, damaged and random
 * headers and names.
 *
 * The module is assembled here (wasm-asm.ts) from its instructions: its source is this file.
 */
import { compile, I32, I64, op, V128, type WasmFunction, wasmModule } from './wasm-asm.js';

/** How many 512-byte blocks an instance's memory holds: the walk's ring of headers. */
export const HEADER_SLOTS = 64;

/**
 * What `name(p)` returns, for the header at p: bits 0-6 the name's end, 7-13 the stem's start,
 * 14-20 the dot + 1 (0: none), all relative to p; NAME_SAME when the stem is the previous
 * header's (of this instance); bits 22-27 the extension's slot among those this instance has
 * seen, NAME_NEW_SLOT when it is seen here first (so the caller maps the slot to its id), or
 * NAME_UNCACHED when it is not kept (longer than 32 bytes, or 32 kept already).
 */
export const NAME_SAME = 1 << 21;
export const NAME_NEW_SLOT = 1 << 28;
export const NAME_UNCACHED = 1 << 29;

const {
  block,
  loop,
  end,
  br,
  brIf,
  call,
  get,
  set,
  tee,
  i32,
  i64,
  i32Load8U,
  i32Eqz,
  i32Eq,
  i32Ne,
  i32LtU,
  i32GtU,
  i32GeU,
  i64Ne,
  i64GtU,
  i32Add,
  i32Sub,
  i64Or,
  i64Shl,
  i32WrapI64,
  i64ExtendI32U,
  v128Load,
  i16x8ExtaddPairwiseI8x16U,
  i32x4ExtaddPairwiseI16x8U,
  i16x8Add,
  i32x4ExtractLane,
} = op;
const returnIf = (value: number[]) => [...op.if, ...value, ...op.return, ...end];

/**
 * octal(start, width) -> i64: the field as tar writers emit it (octal digits, then NUL or
 * spaces, no leading space), else -1: plainOctalField and plainOctalSize of tar.ts.
 * Locals: 2 = i, 3 = end, 4 = value, 5 = byte or digit.
 */
const OCTAL: WasmFunction = {
  params: [I32, I32],
  results: [I64],
  locals: [I32, I32, I64, I32],
  code: [
    [...get(0), ...get(1), ...i32Add, ...set(3), ...get(0), ...set(2)],
    [...block, ...loop],
    [...get(2), ...get(3), ...i32GeU, ...brIf(1)], // i ≥ end: done
    [...get(2), ...i32Load8U, ...i32(0x30), ...i32Sub, ...tee(5), ...i32(7), ...i32GtU, ...brIf(1)], // not a digit
    [...get(4), ...i64(3n), ...i64Shl, ...get(5), ...i64ExtendI32U, ...i64Or, ...set(4)], // value = value << 3 | digit
    [...get(2), ...i32(1), ...i32Add, ...set(2), ...br(0)],
    [...end, ...end],
    [...get(2), ...get(0), ...i32Eq, ...returnIf(i64(-1n))], // no digit
    [...block, ...loop],
    [...get(2), ...get(3), ...i32GeU, ...brIf(1)],
    [...get(2), ...i32Load8U, ...tee(5), ...i32Eqz, ...brIf(1)], // NUL ends the field
    [...get(5), ...i32(0x20), ...i32Ne, ...returnIf(i64(-1n))], // only spaces before it
    [...get(2), ...i32(1), ...i32Add, ...set(2), ...br(0)],
    [...end, ...end],
    get(4),
  ],
};

/**
 * plain(p) -> i32: the member size of the header at p, or -1 (see the file's comment).
 * Locals: 1 = v128 sums, 2 = the unsigned checksum, 3 = size.
 */
const PLAIN: WasmFunction = {
  params: [I32],
  results: [I32],
  locals: [V128, I32, I64],
  code: [
    // The sum of the 512 bytes, the checksum field (bytes 148..156, in the 16 from 144) masked
    // out: per 16 bytes, pairs added into eight 16-bit lanes (≤ 32 × 510), unrolled.
    ...Array.from({ length: 32 }, (_, k) => [
      ...get(0),
      ...op.v128LoadAt(16 * k),
      ...(k === 9
        ? [...op.v128Const([255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255]), ...op.v128And]
        : []),
      ...i16x8ExtaddPairwiseI8x16U,
      ...(k === 0 ? [] : i16x8Add),
    ]),
    [...i32x4ExtaddPairwiseI16x8U, ...set(1)],
    [...get(1), ...i32x4ExtractLane(0), ...get(1), ...i32x4ExtractLane(1), ...i32Add],
    [...get(1), ...i32x4ExtractLane(2), ...i32Add, ...get(1), ...i32x4ExtractLane(3), ...i32Add],
    // The checksum counts its own field as eight spaces.
    [...i32(256), ...i32Add, ...set(2)],
    // The stored checksum must be plain octal and equal the sum.
    [...get(0), ...i32(148), ...i32Add, ...i32(8), ...call(0), ...get(2), ...i64ExtendI32U, ...i64Ne],
    returnIf(i32(-1)),
    // The size: plain octal below 2^31 (an i32 comes back to JavaScript as a small integer), else -1.
    [...get(0), ...i32(124), ...i32Add, ...i32(12), ...call(0), ...tee(3), ...i64(0x7fffffffn), ...i64GtU],
    returnIf(i32(-1)),
    [...get(3), ...i32WrapI64],
  ],
};

/**
 * eq(a, b, length) -> i32: whether the bytes at a and b are equal, 16 at a time (it may read
 * up to 15 bytes past either, which the memory layout leaves room for).
 * Locals: 3 = i, 4 = the bitmask of equal bytes, 5 = bytes left.
 */
const EQ: WasmFunction = {
  params: [I32, I32, I32],
  results: [I32],
  locals: [I32, I32, I32],
  code: [
    [...block, ...loop, ...get(2), ...get(3), ...i32Sub, ...tee(5), ...i32(0), ...op.i32LeS],
    returnIf(i32(1)),
    [...get(0), ...get(3), ...i32Add, ...v128Load, ...get(1), ...get(3), ...i32Add, ...v128Load],
    [...op.i8x16Eq, ...op.i8x16Bitmask, ...set(4), ...get(5), ...i32(16), ...i32LtU, ...op.if],
    // The last bytes: only the low `left` bits count.
    [
      ...get(4),
      ...i32(1),
      ...get(5),
      ...op.i32Shl,
      ...i32(1),
      ...i32Sub,
      ...tee(5),
      ...op.i32And,
      ...get(5),
      ...i32Eq,
    ],
    [...op.return, ...end],
    [...get(4), ...i32(0xffff), ...i32Ne, ...returnIf(i32(0))],
    [...get(3), ...i32(16), ...i32Add, ...set(3), ...br(0), ...end, ...end],
    i32(1),
  ],
};

// The name scan's state, after the ring: the previous header's stem (its length + 1, 0 before
// the first header, then its bytes), and the extensions seen (count, lengths, 32 bytes each).
const STATE = HEADER_SLOTS * 512;
const PREV = STATE;
const PREV_BYTES = STATE + 4;
const EXT_COUNT = STATE + 128;
const EXT_LENGTHS = STATE + 132;
const EXT_BYTES = STATE + 288;
/** Extensions the scan keeps, and the longest it keeps. */
const EXT_SLOTS = 32;
const EXT_WIDTH = 32;

/**
 * name(p) -> i32: the name field of the header at p, scanned as scanName does (tar.ts), with
 * its stem compared with the previous header's and its extension looked up among those seen
 * before: a NameCode (see below). Locals: 1 = i, 2 = end, 3 = stem start, 4 = dot (-1: none),
 * 5 = byte, 6 = stem length, 7 = same stem, 8 = extension start, 9 = its length, 10 = k,
 * 11 = slot, 12 = slot flags, 13 = extensions seen.
 */
const NAME: WasmFunction = {
  params: [I32],
  results: [I32],
  locals: [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32],
  code: [
    [
      ...get(0),
      ...set(1),
      ...get(0),
      ...i32(100),
      ...i32Add,
      ...set(2),
      ...get(0),
      ...set(3),
      ...i32(-1),
      ...set(4),
    ],
    [...block, ...loop, ...get(1), ...get(0), ...i32(100), ...i32Add, ...i32GeU, ...brIf(1)],
    [...get(1), ...i32Load8U, ...tee(5), ...i32Eqz, ...op.if, ...get(1), ...set(2), ...br(2), ...end], // NUL: the end
    [
      ...get(5),
      ...i32(0x2f),
      ...i32Eq,
      ...op.if,
      ...get(1),
      ...i32(1),
      ...i32Add,
      ...set(3),
      ...i32(-1),
      ...set(4),
    ],
    [...op.else, ...get(5), ...i32(0x2e), ...i32Eq, ...get(4), ...i32(0), ...op.i32LtS, ...op.i32And],
    [...op.if, ...get(1), ...set(4), ...end, ...end], // the first '.' after the last '/'
    [...get(1), ...i32(1), ...i32Add, ...set(1), ...br(0), ...end, ...end],
    // The stem, up to the dot: the same as the previous header's? Else it becomes that.
    [...get(2), ...get(4), ...get(4), ...i32(0), ...op.i32LtS, ...op.select, ...get(3), ...i32Sub, ...set(6)],
    [...i32(PREV), ...op.i32Load, ...get(6), ...i32(1), ...i32Add, ...i32Eq, ...op.if],
    [...get(3), ...i32(PREV_BYTES), ...get(6), ...call(2), ...set(7), ...end],
    [...get(7), ...i32Eqz, ...op.if, ...i32(PREV_BYTES), ...get(3), ...get(6), ...op.memoryCopy],
    [...i32(PREV), ...get(6), ...i32(1), ...i32Add, ...op.i32Store, ...end],
    // The extension, after the dot: among those seen? Else kept in the next slot, if there is one.
    [...get(2), ...get(4), ...i32(1), ...i32Add, ...get(4), ...i32(0), ...op.i32LtS, ...op.select, ...set(8)],
    [
      ...get(2),
      ...get(8),
      ...i32Sub,
      ...set(9),
      ...i32(EXT_COUNT),
      ...op.i32Load,
      ...set(13),
      ...i32(-1),
      ...set(11),
    ],
    [...block, ...loop, ...get(10), ...get(13), ...i32GeU, ...brIf(1)],
    [
      ...i32(EXT_LENGTHS),
      ...get(10),
      ...i32(2),
      ...op.i32Shl,
      ...i32Add,
      ...op.i32Load,
      ...get(9),
      ...i32Eq,
      ...op.if,
    ],
    [...get(8), ...i32(EXT_BYTES), ...get(10), ...i32(5), ...op.i32Shl, ...i32Add, ...get(9), ...call(2)],
    [...op.if, ...get(10), ...set(11), ...br(3), ...end, ...end],
    [...get(10), ...i32(1), ...i32Add, ...set(10), ...br(0), ...end, ...end],
    [...get(11), ...i32(0), ...op.i32LtS, ...op.if],
    [
      ...get(9),
      ...i32(EXT_WIDTH),
      ...op.i32LeU,
      ...get(13),
      ...i32(EXT_SLOTS),
      ...i32LtU,
      ...op.i32And,
      ...op.if,
    ],
    [
      ...get(13),
      ...set(11),
      ...i32(EXT_BYTES),
      ...get(13),
      ...i32(5),
      ...op.i32Shl,
      ...i32Add,
      ...get(8),
      ...get(9),
    ],
    [
      ...op.memoryCopy,
      ...i32(EXT_LENGTHS),
      ...get(13),
      ...i32(2),
      ...op.i32Shl,
      ...i32Add,
      ...get(9),
      ...op.i32Store,
    ],
    [...i32(EXT_COUNT), ...get(13), ...i32(1), ...i32Add, ...op.i32Store, ...i32(NAME_NEW_SLOT), ...set(12)],
    [...op.else, ...i32(0), ...set(11), ...i32(NAME_UNCACHED), ...set(12), ...end, ...end],
    // The code: positions relative to p, then the flags.
    [...get(2), ...get(0), ...i32Sub, ...get(3), ...get(0), ...i32Sub, ...i32(7), ...op.i32Shl, ...op.i32Or],
    [
      ...get(4),
      ...get(0),
      ...i32Sub,
      ...i32(1),
      ...i32Add,
      ...i32(0),
      ...get(4),
      ...i32(0),
      ...op.i32GeS,
      ...op.select,
    ],
    [...i32(14), ...op.i32Shl, ...op.i32Or, ...get(7), ...i32(21), ...op.i32Shl, ...op.i32Or],
    [...get(11), ...i32(22), ...op.i32Shl, ...op.i32Or, ...get(12), ...op.i32Or],
  ],
};

const MODULE = wasmModule([OCTAL, PLAIN, EQ, NAME], Math.ceil((EXT_BYTES + EXT_SLOTS * EXT_WIDTH) / 65536), {
  plain: 1,
  name: 3,
});

/** An instance's memory, `HEADER_SLOTS` blocks, and `plain(p)` and `name(p)` for the header at p in it. */
export interface HeaderCheck {
  readonly blocks: Uint8Array;
  readonly plain: (at: number) => number;
  readonly name: (at: number) => number;
}

let compiled: WebAssembly.Module | null | undefined;

/**
 * A fresh instance (memory of its own, so walks never share one); undefined where WebAssembly
 * or its SIMD instructions are missing, and the walk does it all in JavaScript.
 */
export function headerCheck(): HeaderCheck | undefined {
  if (compiled === undefined) compiled = compile(MODULE);
  if (compiled === null) return undefined;
  const exports = new WebAssembly.Instance(compiled, {}).exports as {
    memory: WebAssembly.Memory;
    plain: (at: number) => number;
    name: (at: number) => number;
  };
  const blocks = new Uint8Array(exports.memory.buffer, 0, HEADER_SLOTS * 512);
  return { blocks, plain: exports.plain, name: exports.name };
}
