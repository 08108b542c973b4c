import { deflate } from 'pako';

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
 * The outcome for a stream that produced more than its declared size. Decoding stops there
 * (declared size + 1 bytes at most, one output chunk in practice): whatever follows, even
 * corruption, is never looked at, so an 8 MB block that would inflate to 8 GiB is rejected
 * after a few bytes of output instead of after inflating all of it. Both back ends see the
 * stream through one output chunk of the same size, so they agree on which defect comes first.
 */
export function tooLong(expectedSize: number): InflateOutcome {
  return { ok: false, reason: 'too-long', message: `inflates to more than ${expectedSize} bytes` };
}

/** The output chunk both back ends use: one spare byte shows a stream that runs long. */
export function inflateChunkSize(expectedSize: number): number {
  return Math.max(64, expectedSize + 1);
}
