import type { ByteSink } from '@binscope/core';
import { toHex } from '@binscope/core/binary';
import { sha256 } from '@noble/hashes/sha2.js';

/**
 * The most an export built in memory (a download without File System Access) may hold: the
 * page says so beside the control, and an export that would pass it stops with this limit in
 * its message rather than exhausting the tab's memory.
 */
export const MAX_DOWNLOAD = 512 * 1024 * 1024;

/** Writes of a few bytes each (a CSV line) are gathered into chunks of this size. */
const CHUNK = 256 * 1024;

export class TooLargeForDownload extends Error {
  override readonly name = 'TooLargeForDownload';
}

/**
 * Where an export's bytes go, hashed as they pass (SHA-256, incremental, so a file of any
 * size is hashed in bounded memory: Web Crypto has no streaming digest). Small writes are
 * gathered into chunks. `finish` commits; `abort` leaves nothing behind.
 */
export abstract class ExportSink implements ByteSink {
  position = 0;
  private readonly hash = sha256.create();
  private pending: Uint8Array[] = [];
  private pendingSize = 0;

  async write(bytes: Uint8Array): Promise<void> {
    if (bytes.byteLength === 0) return;
    this.position += bytes.byteLength;
    this.hash.update(bytes);
    // Converters may reuse the buffer once the write resolves: keep a copy.
    this.pending.push(bytes.slice());
    this.pendingSize += bytes.byteLength;
    if (this.pendingSize >= CHUNK) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pendingSize === 0) return;
    const chunk = this.pending.length === 1 ? this.pending[0] : new Uint8Array(this.pendingSize);
    if (this.pending.length > 1) {
      let at = 0;
      for (const part of this.pending) {
        chunk.set(part, at);
        at += part.byteLength;
      }
    }
    this.pending = [];
    this.pendingSize = 0;
    await this.put(chunk);
  }

  /** Commits what was written; returns its size, SHA-256 (hex) and, for a download, the Blob. */
  async finish(): Promise<{ size: number; sha256: string; blob?: Blob }> {
    await this.flush();
    const blob = await this.commit();
    return { size: this.position, sha256: toHex(this.hash.digest()), blob };
  }

  protected abstract put(chunk: Uint8Array): Promise<void>;
  protected abstract commit(): Promise<Blob | undefined>;
  abstract abort(): Promise<void>;
}

/** Chunks kept for a Blob the page downloads, up to MAX_DOWNLOAD bytes. */
export class BlobExportSink extends ExportSink {
  private chunks: Uint8Array[] = [];
  private size = 0;

  constructor(
    private readonly type: string,
    private readonly limit = MAX_DOWNLOAD,
  ) {
    super();
  }

  protected async put(chunk: Uint8Array): Promise<void> {
    this.size += chunk.byteLength;
    if (this.size > this.limit)
      throw new TooLargeForDownload(
        `the export passed ${this.limit / 1024 / 1024} MiB, the most a download built in memory may hold: export to a file (Chrome, Edge) or fewer records`,
      );
    this.chunks.push(chunk);
  }

  protected async commit(): Promise<Blob> {
    const blob = new Blob(this.chunks as BlobPart[], { type: this.type });
    this.chunks = [];
    return blob;
  }

  async abort(): Promise<void> {
    this.chunks = [];
  }
}

/**
 * A file the user picked (File System Access), written chunk by chunk from the worker. The
 * browser commits the file on close only, so an export that fails or is cancelled leaves the
 * file as it was.
 */
export class FileHandleExportSink extends ExportSink {
  private constructor(private readonly writable: FileSystemWritableFileStream) {
    super();
  }

  static async open(handle: FileSystemFileHandle): Promise<FileHandleExportSink> {
    return new FileHandleExportSink(await handle.createWritable({ keepExistingData: false }));
  }

  protected async put(chunk: Uint8Array): Promise<void> {
    await this.writable.write(chunk as Uint8Array<ArrayBuffer>);
  }

  protected async commit(): Promise<undefined> {
    await this.writable.close();
    return undefined;
  }

  async abort(): Promise<void> {
    await this.writable.abort().catch(() => {});
  }
}
