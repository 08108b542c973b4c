import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ByteSource } from '../bytes.js';
import { SourceError } from '../errors.js';

/**
 * A local file read with positional `fs.readSync`: no stream, no whole-file read, and
 * page-cache speed. Reads are synchronous under the hood; `read` just wraps them.
 */
export class NodeFileSource implements ByteSource {
  private fd: number | undefined;
  readonly size: number;

  private constructor(
    readonly path: string,
    readonly name: string,
    fd: number,
    size: number,
  ) {
    this.fd = fd;
    this.size = size;
  }

  /** Opens a file; `name` is what errors call it (defaults to the path as given). */
  static open(filePath: string, name = filePath): NodeFileSource {
    const { fd, size } = openRegularFile(filePath);
    return new NodeFileSource(filePath, name, fd, size);
  }

  read(offset: number, length: number): Promise<Uint8Array> {
    try {
      return Promise.resolve(this.readSync(offset, length));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  readSync(offset: number, length: number): Uint8Array {
    const start = Math.min(Math.max(0, offset), this.size);
    const want = Math.max(0, Math.min(length, this.size - start));
    const out = Buffer.allocUnsafe(want);
    return this.readInto(out, start);
  }

  /** Fills `target` from `offset`; returns the filled part. Lets hot loops reuse one buffer. */
  readInto(target: Uint8Array, offset: number): Uint8Array {
    const filled = this.readAt(target, 0, target.byteLength, offset);
    return filled === target.byteLength ? target : target.subarray(0, filled);
  }

  /**
   * Reads `length` bytes at `position` into `target` from `targetOffset`; returns how many
   * arrived (fewer only at the end of the file). It allocates nothing, so per-row random
   * readers can fill one long-lived buffer without a view object per read.
   */
  readAt(target: Uint8Array, targetOffset: number, length: number, position: number): number {
    if (this.fd === undefined) throw new SourceError(`${this.name}: read after close`, this.path);
    let filled = 0;
    while (filled < length) {
      const n = fs.readSync(this.fd, target, targetOffset + filled, length - filled, position + filled);
      if (n === 0) break;
      filled += n;
    }
    return filled;
  }

  /**
   * As readAt, on libuv's thread pool: the bytes arrive while this thread keeps working, so a
   * sequential reader can decode one window while the next is read (see core's ReadAhead).
   * `close` waits for reads in flight, so a closed descriptor number is never read.
   */
  readAtAsync(target: Uint8Array, targetOffset: number, length: number, position: number): Promise<number> {
    const fd = this.fd;
    if (fd === undefined) return Promise.reject(new SourceError(`${this.name}: read after close`, this.path));
    const read = new Promise<number>((resolve, reject) => {
      let filled = 0;
      const next = () =>
        fs.read(fd, target, targetOffset + filled, length - filled, position + filled, (error, n) => {
          if (error) {
            reject(new SourceError(`${this.name}: ${describeFsError(error)}`, this.path, { cause: error }));
            return;
          }
          filled += n;
          if (n === 0 || filled >= length) resolve(filled);
          else next();
        });
      next();
    });
    this.inFlight.add(read);
    const done = () => this.inFlight.delete(read);
    read.then(done, done);
    return read;
  }

  private readonly inFlight = new Set<Promise<number>>();

  async close(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

export function openFile(filePath: string): NodeFileSource {
  return NodeFileSource.open(filePath, path.basename(filePath));
}

export function describeFsError(cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOSPC':
      return 'no space left on device';
    case 'EROFS':
      return 'read-only file system';
    default:
      return (cause as Error)?.message ?? String(cause);
  }
}

/** What a path that is neither a file nor a folder is, for messages (lstat: links too). */
export function specialKind(stat: fs.Stats): string {
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/**
 * Opens a regular file for reading; anything else is a SourceError at once. O_NONBLOCK keeps
 * opening a FIFO from waiting for a writer that may never come (it has no effect on files).
 */
export function openRegularFile(filePath: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = fs.openSync(filePath, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (cause) {
    throw new SourceError(`${filePath}: ${describeFsError(cause)}`, filePath, { cause });
  }
  const stat = fs.fstatSync(fd);
  if (!stat.isFile()) {
    fs.closeSync(fd);
    const what = stat.isDirectory() ? 'is a directory' : `is ${specialKind(stat)}, not a regular file`;
    throw new SourceError(`${filePath}: ${what}`, filePath);
  }
  return { fd, size: stat.size };
}
