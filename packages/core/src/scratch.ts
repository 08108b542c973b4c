import { type ByteSource, copyInto, type ReadRequest } from './bytes.js';

/**
 * Temporary storage a converter spills to when its output cannot be written in one pass
 * (CSV → SCBF keeps every column until the head, which needs their sizes, can be written).
 * The app provides it in ConvertOptions: core/node's `fileScratch` (temp files beside the
 * output), `memoryScratch` in a browser. Converter code stays browser-safe either way.
 */
export interface Scratch {
  /** A new, empty scratch file; `name` is for messages and may repeat. */
  file(name: string): ScratchFile;
  /** Removes every file it made; the scratch is not used after. */
  close(): void;
}

/**
 * An append-only file that reads back as a ByteSource (synchronously: both kinds answer at
 * once). `size` grows with each append.
 */
export interface ScratchFile extends ByteSource {
  /** Appends `bytes` now: the caller may reuse them as soon as it returns. */
  append(bytes: Uint8Array): void;
  /** Frees the file's space; reading it afterwards is an error. */
  remove(): void;
}

/** Scratch space in memory: for browsers, tests and small conversions. */
export function memoryScratch(): Scratch {
  const files = new Set<MemoryScratchFile>();
  return {
    file(name) {
      const file = new MemoryScratchFile(name, files);
      files.add(file);
      return file;
    },
    close() {
      for (const file of files) file.remove();
    },
  };
}

/** Chunks kept as appended (copied), found by binary search on their start offsets. */
class MemoryScratchFile implements ScratchFile {
  size = 0;
  private chunks: Uint8Array[] = [];
  private starts: number[] = [];
  private removed = false;

  constructor(
    readonly name: string,
    private readonly owner: Set<MemoryScratchFile>,
  ) {}

  append(bytes: Uint8Array): void {
    if (this.removed) throw new Error(`scratch ${this.name}: append after remove`);
    if (bytes.byteLength === 0) return;
    this.starts.push(this.size);
    this.chunks.push(bytes.slice());
    this.size += bytes.byteLength;
  }

  read(offset: number, length: number, request?: ReadRequest): Uint8Array {
    if (this.removed) throw new Error(`scratch ${this.name}: read after remove`);
    const start = Math.min(Math.max(0, offset), this.size);
    const end = Math.min(this.size, start + Math.max(0, length));
    let i = this.chunkAt(start);
    const first = this.chunks[i];
    if (first && end - this.starts[i] <= first.byteLength)
      return copyInto(first.subarray(start - this.starts[i], end - this.starts[i]), request?.into);
    const out = request?.into ?? new Uint8Array(end - start);
    for (let at = start; at < end; i++) {
      const chunk = this.chunks[i];
      const from = at - this.starts[i];
      const take = Math.min(chunk.byteLength - from, end - at);
      out.set(chunk.subarray(from, from + take), at - start);
      at += take;
    }
    return end - start === out.byteLength ? out : out.subarray(0, end - start);
  }

  /** Index of the chunk holding `offset` (the last one for the end). */
  private chunkAt(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  remove(): void {
    this.removed = true;
    this.chunks = [];
    this.starts = [];
    this.owner.delete(this);
  }

  async close(): Promise<void> {}
}
