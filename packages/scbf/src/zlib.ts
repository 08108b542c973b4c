import { deflate, Inflate } from 'pako';

/**
 * The contract both zlib back ends implement. `#zlib` (package.json `imports`) resolves to
 * zlib-node.ts under the `node` condition and to zlib-browser.ts (pako) everywhere else.
 */
export type InflateOutcome =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; reason: 'corrupt' | 'too-long'; message: string };

export interface ZlibBackend {
  readonly zlibName: string;
  /**
   * Inflates one RFC 1950 stream whose inflated length is declared as `expectedSize`.
   * Output never grows past `expectedSize` (a lying size cannot make it allocate more);
   * a shorter result comes back as-is for the caller to report. Bytes after the stream's
   * end are ignored, as zlib.decompress does.
   */
  inflateBlock(input: Uint8Array, expectedSize: number): InflateOutcome;
  /** One RFC 1950 stream (Python's zlib.compress at `level`, default 6). */
  deflateBlock(input: Uint8Array, level?: number): Uint8Array;
}

export const DEFAULT_LEVEL = 6;

/**
 * Classic zlib's deflate (pako with zlib 1.x's own hash), byte for byte what Python's
 * zlib.compress writes. node:zlib (Chromium's zlib) and pako's default hash choose other,
 * equally valid matches, so their bytes differ; this is the opt-in for identical files.
 */
export const PYTHON_ZLIB = { legacyHash: true } as const;

export function deflatePython(input: Uint8Array, level = DEFAULT_LEVEL): Uint8Array {
  return deflate(input, { level, ...PYTHON_ZLIB });
}

/**
 * Whether `input` is one complete, valid zlib stream, decoding it without keeping the output.
 * Used when a block inflates past its declared size: a stream that is also corrupt is
 * reported as corrupt, so both back ends classify the same whatever order they notice in.
 */
export function isValidZlibStream(input: Uint8Array): boolean {
  const inflater = new Inflate({ windowBits: 15, chunkSize: 64 << 10 });
  inflater.onData = () => {};
  inflater.onEnd = () => {};
  inflater.push(input, true);
  return inflater.err === 0;
}

export function tooLong(input: Uint8Array, expectedSize: number): InflateOutcome {
  if (!isValidZlibStream(input)) return { ok: false, reason: 'corrupt', message: 'invalid zlib stream' };
  return { ok: false, reason: 'too-long', message: `inflates to more than ${expectedSize} bytes` };
}
