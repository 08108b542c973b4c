import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Awaitable, ByteSource, ReadRequest } from '../bytes.js';
import { SourceError } from '../errors.js';

/**
 * A local file read with positional reads: no stream, no whole-file read, page-cache speed.
 * `read` answers synchronously (`fs.readSync`, into the caller's buffer when the request has
 * `into`, else into a fresh Buffer); with `defer: true` it answers from libuv's thread pool
 * instead, so a sequential reader can decode one window while the next is read (ReadAhead).
 */
export class NodeFileSource implements ByteSource {
  private fd: number | undefined;
  readonly size: number;
  private readonly inFlight = new Set<Promise<unknown>>();

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

  read(offset: number, length: number, request?: ReadRequest): Awaitable<Uint8Array> {
    const into = request?.into;
    // The hot case (a reused buffer of the read's size, inside the file): straight to the read.
    if (
      into !== undefined &&
      into.byteLength === length &&
      offset >= 0 &&
      offset + length <= this.size &&
      !request?.defer
    ) {
      const filled = this.fill(into, length, offset);
      return filled === length ? into : into.subarray(0, filled);
    }
    const start = Math.min(Math.max(0, offset), this.size);
    const want = Math.max(0, Math.min(length, this.size - start));
    if (into !== undefined && into.byteLength < want)
      throw new RangeError(`read into a ${into.byteLength}-byte buffer of ${want} bytes`);
    const target = into ?? Buffer.allocUnsafe(want);
    if (request?.defer) return this.readDeferred(target, want, start);
    const filled = this.fill(target, want, start);
    return filled === target.byteLength ? target : target.subarray(0, filled);
  }

  /** Reads `length` bytes at `position` into `target` from index 0; returns how many arrived. */
  private fill(target: Uint8Array, length: number, position: number): number {
    if (this.fd === undefined) throw new SourceError(`${this.name}: read after close`, this.path);
    let filled = 0;
    while (filled < length) {
      const n = fs.readSync(this.fd, target, filled, length - filled, position + filled);
      if (n === 0) break;
      filled += n;
    }
    return filled;
  }

  /** As fill, on the thread pool. `close` waits for reads in flight, so a closed descriptor number is never read. */
  private readDeferred(target: Uint8Array, length: number, position: number): Promise<Uint8Array> {
    const fd = this.fd;
    if (fd === undefined) return Promise.reject(new SourceError(`${this.name}: read after close`, this.path));
    const read = new Promise<Uint8Array>((resolve, reject) => {
      let filled = 0;
      const done = () => resolve(filled === target.byteLength ? target : target.subarray(0, filled));
      const next = () =>
        fs.read(fd, target, filled, length - filled, position + filled, (error, n) => {
          if (error) {
            reject(new SourceError(`${this.name}: ${describeFsError(error)}`, this.path, { cause: error }));
            return;
          }
          filled += n;
          if (n === 0 || filled >= length) done();
          else next();
        });
      if (length === 0) done();
      else next();
    });
    this.inFlight.add(read);
    const settled = () => this.inFlight.delete(read);
    read.then(settled, settled);
    return read;
  }

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
