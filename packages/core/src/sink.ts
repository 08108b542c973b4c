/** Where writers put bytes: a file (Node, atomic) or memory (browsers, tests). */
export interface ByteSink {
  write(bytes: Uint8Array): Promise<void>;
  /** Bytes written so far. */
  readonly position: number;
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
