/** Where writers put bytes: a file (Node, atomic), memory (browsers, tests), later an S3 upload. */
export interface ByteSink {
  /** Appends `bytes`; the caller may reuse them once the promise resolves. */
  write(bytes: Uint8Array): Promise<void>;
  /** Bytes written so far. */
  readonly position: number;
}

/**
 * Where a writer of several files puts them (a folder format's archive, a sample with its
 * companions): file by file, by relative POSIX path, folders made as needed. A file is
 * complete when its `write` resolves; a `write` whose content function throws leaves no file.
 * Writes of different paths may overlap (SCDL streams its three matrix arrays side by side):
 * every sink here allows it (`folderSink`, `DirectoryOutput`, `S3DirectorySink`,
 * `MemoryDirectory`), and an app's own sink must too. Apps provide it: core/node's
 * `folderSink` (inside `writeDirectoryAtomic` for an atomic folder), a MemoryDirectory in a
 * browser or a test.
 */
export interface DirectorySink {
  write(path: string, content: Uint8Array | ((sink: ByteSink) => Promise<void>)): Promise<void>;
}

export class MemorySink implements ByteSink {
  private chunks: Uint8Array[] = [];
  position = 0;
  async write(bytes: Uint8Array): Promise<void> {
    this.chunks.push(bytes.slice());
    this.position += bytes.byteLength;
  }
  /** All bytes written, concatenated. */
  bytes(): Uint8Array {
    return concatBytes(this.chunks);
  }
}

export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const c of chunks) total += c.byteLength;
  const out = new Uint8Array(total);
  let pos = 0;
  for (const c of chunks) {
    out.set(c, pos);
    pos += c.byteLength;
  }
  return out;
}

/** Rounds up to a multiple of `to`. */
export function alignUp(value: number, to: number): number {
  return Math.ceil(value / to) * to;
}
