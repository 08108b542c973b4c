import xxhash, { type XXHashAPI } from 'xxhash-wasm';

let api: Promise<XXHashAPI> | undefined;
let ready: XXHashAPI | undefined;

/** The xxhash-wasm instance, compiled once per process. */
export async function loadHasher(): Promise<XXHashAPI> {
  if (ready) return ready;
  api ??= xxhash();
  ready = await api;
  return ready;
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

/** XXH64 (seed 0) of a key's UTF-8 bytes as two u32 halves; `hasher` must be loaded. */
export function hashKey(hasher: XXHashAPI, key: string): [lo: number, hi: number] {
  if (key.length * 3 > scratch.byteLength) scratch = new Uint8Array(key.length * 3);
  const { written } = encoder.encodeInto(key, scratch);
  const hash = hasher.h64Raw(scratch.subarray(0, written), 0n);
  return [Number(hash & 0xffffffffn), Number(hash >> 32n)];
}
