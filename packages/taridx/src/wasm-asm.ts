/**
 * Just enough of a WebAssembly assembler for the indexer's two small modules (header-wasm.ts,
 * stem-hash.ts): instructions as byte arrays named as in the text format, and a module of
 * functions, one memory and exports. The modules' source is their code in those files.
 */

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of any 64-bit integer. */
export function sleb(n: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(n & 0x7fn);
    n >>= 7n;
    if ((n === 0n && (b & 0x40) === 0) || (n === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** Value types. */
export const I32 = 0x7f;
export const I64 = 0x7e;
export const V128 = 0x7b;

const simd = (code: number) => [0xfd, ...uleb(code)];

/** The instructions the modules use (memory instructions with offset 0 and their natural alignment). */
export const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  if: [0x04, 0x40],
  else: [0x05],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  return: [0x0f],
  call: (f: number) => [0x10, f],
  get: (local: number) => [0x20, local],
  set: (local: number) => [0x21, local],
  tee: (local: number) => [0x22, local],
  i32: (n: number) => [0x41, ...sleb(BigInt(n))],
  i64: (n: bigint) => [0x42, ...sleb(BigInt.asIntN(64, n))],
  select: [0x1b],
  i32Load: [0x28, 0x02, 0x00],
  i32Store: [0x36, 0x02, 0x00],
  i64Load: [0x29, 0x03, 0x00],
  i32Load8U: [0x2d, 0x00, 0x00],
  i64Load32U: [0x35, 0x02, 0x00],
  i64Store: [0x37, 0x03, 0x00],
  i32Eqz: [0x45],
  i32Eq: [0x46],
  i32Ne: [0x47],
  i32LtS: [0x48],
  i32LeS: [0x4c],
  i32GeS: [0x4e],
  i32LtU: [0x49],
  i32GtU: [0x4b],
  i32LeU: [0x4d],
  i32GeU: [0x4f],
  i64Ne: [0x52],
  i64GtU: [0x56],
  i32Add: [0x6a],
  i32Sub: [0x6b],
  i32And: [0x71],
  i32Or: [0x72],
  i32Shl: [0x74],
  i64Add: [0x7c],
  i64Mul: [0x7e],
  i64Or: [0x84],
  i64Xor: [0x85],
  i64Shl: [0x86],
  i64ShrU: [0x88],
  i64Rotl: [0x89],
  i32WrapI64: [0xa7],
  i64ExtendI32U: [0xad],
  memoryCopy: [0xfc, 0x0a, 0x00, 0x00],
  v128Load: [...simd(0x00), 0x04, 0x00],
  v128LoadAt: (offset: number) => [...simd(0x00), 0x04, ...uleb(offset)],
  v128Const: (bytes: number[]) => [...simd(0x0c), ...bytes],
  v128And: simd(0x4e),
  i8x16Eq: simd(0x23),
  i8x16Bitmask: simd(0x64),
  i32x4ExtractLane: (lane: number) => [...simd(0x1b), lane],
  i16x8ExtaddPairwiseI8x16U: simd(0x7d),
  i32x4ExtaddPairwiseI16x8U: simd(0x7f),
  i16x8Add: simd(0x8e),
};

/** A function: its parameter and result types, its locals after the parameters, its code (without the final `end`). */
export interface WasmFunction {
  params: number[];
  results: number[];
  locals: number[];
  code: number[][];
}

const section = (id: number, bytes: number[]) => [id, ...uleb(bytes.length), ...bytes];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

/**
 * A module of `functions` (each with a type of its own) and `exports` by function index, with
 * one memory: its own of `memory` pages, exported as "memory", or with `memory: 'caller'`
 * the caller's, imported as "env" "memory" (sized by the caller, so it never has to grow: growing
 * detaches the old buffer, after which V8 checks every typed-array access for detachment).
 */
export function wasmModule(
  functions: WasmFunction[],
  memory: number | 'caller',
  exports: Record<string, number>,
): Uint8Array<ArrayBuffer> {
  const types = functions.map((f) => [
    0x60,
    ...vec(f.params.map((t) => [t])),
    ...vec(f.results.map((t) => [t])),
  ]);
  const bodies = functions.map((f) => {
    const locals = vec(f.locals.map((t) => [1, t]));
    const body = [...locals, ...f.code.flat(), ...op.end];
    return [...uleb(body.length), ...body];
  });
  const exported = Object.entries(exports).map(([n, f]) => [...name(n), 0, ...uleb(f)]);
  const imported = memory === 'caller';
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    ...section(1, vec(types)),
    ...(imported ? section(2, vec([[...name('env'), ...name('memory'), 2, 0, 1]])) : []),
    ...section(3, vec(functions.map((_, i) => uleb(i)))),
    ...(imported ? [] : section(5, vec([[0, ...uleb(memory)]]))),
    ...section(7, vec(imported ? exported : [[...name('memory'), 2, 0], ...exported])),
    ...section(10, vec(bodies)),
  ]);
}

/** A compiled module, or null where WebAssembly or an instruction it uses (SIMD) is missing. */
export function compile(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Module | null {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(bytes)
      ? new WebAssembly.Module(bytes)
      : null;
  } catch {
    return null;
  }
}
