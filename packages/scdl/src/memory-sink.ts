import { MemoryDirectory } from '@binscope/core';
import { concatBytes } from '@binscope/core/binary';
import type { ArchiveSink, ArchiveStream } from './write-types.js';

/** Keeps an archive in memory; `directory()` gives it to `openScdl` without touching a disk. */
export class MemoryArchiveSink implements ArchiveSink {
  private readonly files = new Map<string, Uint8Array[]>();

  async writeFile(path: string, bytes: Uint8Array): Promise<void> {
    this.files.set(path, [new Uint8Array(bytes)]);
  }
  async createStream(path: string): Promise<ArchiveStream> {
    const chunks: Uint8Array[] = [];
    this.files.set(path, chunks);
    return {
      write: async (bytes) => {
        chunks.push(new Uint8Array(bytes));
      },
      close: async () => {},
    };
  }
  async readBack(path: string, offset: number, length: number): Promise<Uint8Array> {
    return this.file(path).subarray(offset, offset + length);
  }
  async remove(path: string): Promise<void> {
    this.files.delete(path);
  }
  /** One file's bytes (joined once, then kept joined). */
  file(path: string): Uint8Array {
    const chunks = this.files.get(path);
    if (!chunks) throw new Error(`${path}: not written`);
    if (chunks.length !== 1) chunks.splice(0, chunks.length, concatBytes(chunks));
    return chunks[0];
  }
  paths(): string[] {
    return [...this.files.keys()].sort();
  }
  /** The archive as a directory source for `openScdl`. */
  directory(name = 'memory'): MemoryDirectory {
    return new MemoryDirectory(new Map(this.paths().map((p) => [p, this.file(p)])), name);
  }
}
