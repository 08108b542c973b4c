import { Deflate, deflate } from 'pako';

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

export interface DeflateSettings {
  /** zlib level 0–9 (default 6). */
  level?: number;
  /** Deflate as Python's zlib.compress does (classic zlib via pako): slower, bytes identical. */
  pythonZlib?: boolean;
}

/**
 * One zlib stream fed piece by piece, its output handed to `onData` as it comes. Under Node
 * (node:zlib) the deflating runs on the thread pool beside the caller; elsewhere, and with
 * `pythonZlib`, it runs in `write` itself (pako).
 */
export interface StreamDeflater {
  /** Takes ownership of `bytes`: the caller must not reuse them. */
  write(bytes: Uint8Array): void;
  /** Resolves once queued work is short enough to keep feeding. */
  settle(): Promise<void>;
  /** Finishes the stream; resolves once every output chunk has been handed on. */
  end(): Promise<void>;
  destroy(): void;
}

/** The pako deflater both back ends use for `pythonZlib`, and the browser always. */
export class PakoDeflater implements StreamDeflater {
  private readonly deflate: Deflate;
  private failure: Error | undefined;

  constructor(settings: DeflateSettings, onData: (chunk: Uint8Array) => void) {
    const level = settings.level ?? DEFAULT_LEVEL;
    this.deflate = new Deflate(settings.pythonZlib ? { level, ...PYTHON_ZLIB } : { level });
    this.deflate.onData = onData;
  }

  write(bytes: Uint8Array): void {
    this.push(bytes, false);
  }

  private push(bytes: Uint8Array, last: boolean): void {
    this.deflate.push(bytes, last);
    if (this.deflate.err)
      this.failure ??= new Error(`deflate failed: ${this.deflate.msg || this.deflate.err}`);
  }

  async settle(): Promise<void> {
    if (this.failure) throw this.failure;
  }

  async end(): Promise<void> {
    this.push(new Uint8Array(0), true);
    if (this.failure) throw this.failure;
  }

  destroy(): void {}
}
