import xxhash, { type XXHashAPI } from 'xxhash-wasm';
import { joinHash } from './layout.js';

let api: Promise<XXHashAPI> | undefined;
let ready: XXHashAPI | undefined;

/** The xxhash-wasm instance, compiled once per process. */
export async function loadHasher(): Promise<XXHashAPI> {
  if (ready) return ready;
  api ??= xxhash();
  ready = await api;
  return ready;
}

/** Whether `hasher` is xxhash-wasm's (loadHasher's): XXH64 itself, which other code may compute too. */
export function isXxh64(hasher: XXHashAPI): boolean {
  return hasher === ready;
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

/** One u64 seen as two u32 halves: splits and joins hashes without BigInt arithmetic. */
const big = new BigUint64Array(1);
const halves = new Uint32Array(big.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const out = new Uint32Array(2);

/** XXH64 (seed 0) of a key's UTF-8 bytes as two u32 halves; `hasher` must be loaded. */
export function hashKey(hasher: XXHashAPI, key: string): [lo: number, hi: number] {
  const h = hashKeyHalves(hasher, key);
  return [h[0], h[1]];
}

/** As hashKey, into a shared [lo, hi] array valid until the next call (no allocation). */
export function hashKeyHalves(hasher: XXHashAPI, key: string): Uint32Array {
  if (key.length * 3 > scratch.byteLength) scratch = new Uint8Array(key.length * 3);
  const { written } = encoder.encodeInto(key, scratch);
  return hashBytes(hasher, scratch, 0, written);
}

/** XXH64 (seed 0) of bytes [start, end) into a shared [lo, hi] array valid until the next call. */
export function hashBytes(hasher: XXHashAPI, bytes: Uint8Array, start: number, end: number): Uint32Array {
  big[0] = hasher.h64Raw(
    start === 0 && end === bytes.byteLength
      ? bytes
      : new Uint8Array(bytes.buffer, bytes.byteOffset + start, end - start),
    0n,
  );
  out[0] = halves[LITTLE ? 0 : 1];
  out[1] = halves[LITTLE ? 1 : 0];
  return out;
}

/** Whether `stem` hashes to a sample's keyhash. */
export function sampleHashMatches(hasher: XXHashAPI, stem: string, keyhash: bigint): boolean {
  const h = hashKeyHalves(hasher, stem);
  return joinHash(h[0], h[1]) === keyhash;
}
