/**
 * Node-only scratch storage for CSV → SCBF: where column bytes wait until the SCBF head
 * (which needs every column's type and block sizes) can be written.
 *
 * Two layouts, chosen by the column count so that memory and open files never grow with it:
 * - few columns: each block is deflated as it grows, on the thread pool beside parsing, into
 *   its own spill file (a handful of open files, a zlib stream per block);
 * - many columns: every column's bytes go to one shared spill file as extents, buffered in
 *   chunks sized so that all buffers together stay within a fixed budget, and each block is
 *   deflated at the end, one at a time (one open file, one zlib stream).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { SourceError } from '@binscope/core';
import { type AtomicFile, describeFsError } from '@binscope/core/node';
import { Deflate as PakoDeflate } from 'pako';
import { DEFAULT_LEVEL, deflatePython, PYTHON_ZLIB } from './zlib.js';

/** Largest chunk a column buffers before handing bytes on. */
export const MAX_CHUNK = 256 << 10;
/** Smallest chunk, however many columns share the budget. */
const MIN_CHUNK = 512;
/** Bytes a deflater may have queued before parsing waits for it. */
const MAX_QUEUED = 2 << 20;
/** Columns up to which each block gets its own file and streaming deflater. */
export const STREAMING_COLUMNS = 32;
/** Blocks up to this size are deflated in one call (a zlib stream per block costs far more). */
const ONE_SHOT = 4 << 20;
/** Default memory for all columns' buffers together in the shared-file layout. */
export const DEFAULT_SPILL_BUDGET = 64 << 20;

export interface DeflateSettings {
  level?: number;
  pythonZlib?: boolean;
}

/** A zlib block on its way to the output: bytes in, compressed bytes kept until assembly. */
export interface BlockSpill {
  readonly uncompressedSize: number;
  readonly compressedSize: number;
  /** Takes ownership of `bytes`: the caller must not reuse them. */
  write(bytes: Uint8Array): void;
  /** Resolves once queued work is short enough to keep feeding. */
  settle(): Promise<void>;
  end(): Promise<void>;
  copyTo(out: AtomicFile, buffer: Buffer): void;
  /** The bytes written, uncompressed again, ending the block first (for a column turned into text). */
  contents(): AsyncIterable<Uint8Array>;
  /** Frees the block's scratch space once it is no longer needed. */
  release(): void;
  abort(): void;
}

/** Raw bytes kept for a second pass (a numeric column turned into text). */
export interface RawSpill {
  readonly size: number;
  write(bytes: Uint8Array): void;
  chunks(): AsyncIterable<Uint8Array>;
  release(): void;
}

/** Where a conversion's blocks and raw bytes wait. */
export interface SpillSpace {
  /** Bytes each column buffer gathers before handing them to a spill. */
  readonly chunkSize: number;
  block(name: string): BlockSpill;
  raw(name: string): RawSpill;
  close(): void;
}

/** Wraps a failed scratch write: the output's disk is full, not the input bad. */
function scratchError(output: string, cause: unknown): SourceError {
  return new SourceError(
    `cannot write ${output} (scratch space beside it): ${describeFsError(cause)}`,
    output,
    { cause },
  );
}

function writeAll(fd: number, bytes: Uint8Array, position: number | null): void {
  let written = 0;
  while (written < bytes.byteLength) {
    const at = position === null ? null : position + written;
    written += fs.writeSync(fd, bytes, written, bytes.byteLength - written, at);
  }
}

/** One zlib stream: node:zlib on the thread pool, or pako (Python-identical) on this thread. */
class Deflater {
  private readonly stream: zlib.Deflate | undefined;
  private readonly classic: PakoDeflate | undefined;
  private readonly done: Promise<void>;
  failure: unknown;

  constructor(settings: DeflateSettings, onData: (chunk: Uint8Array) => void) {
    const level = settings.level ?? DEFAULT_LEVEL;
    if (settings.pythonZlib) {
      this.classic = new PakoDeflate({ level, ...PYTHON_ZLIB });
      this.classic.onData = onData;
      this.done = Promise.resolve();
      return;
    }
    // Large output chunks: each one is a round trip from the thread pool to the main thread.
    const stream = zlib.createDeflate({ level, chunkSize: MAX_CHUNK });
    this.stream = stream;
    stream.on('data', (chunk: Buffer) => onData(chunk));
    this.done = new Promise((resolve, reject) => {
      stream.on('end', resolve);
      stream.on('error', reject);
    });
    this.done.catch(() => {});
  }

  write(bytes: Uint8Array): void {
    if (this.classic) this.pushClassic(bytes, false);
    else this.stream!.write(bytes);
  }

  private pushClassic(bytes: Uint8Array, last: boolean): void {
    const classic = this.classic!;
    classic.push(bytes, last);
    if (classic.err) this.failure ??= new Error(`deflate failed: ${classic.msg || classic.err}`);
  }

  async settle(): Promise<void> {
    const stream = this.stream;
    while (stream && stream.writableLength > MAX_QUEUED && !stream.destroyed) await drained(stream);
    if (this.failure) throw this.failure;
  }

  async end(): Promise<void> {
    if (this.classic) this.pushClassic(new Uint8Array(0), true);
    else this.stream!.end();
    await this.done;
    if (this.failure) throw this.failure;
  }

  destroy(): void {
    this.stream?.destroy();
  }
}

/** Resolves when a stream can take more, or can never again (error, close): no hang on failure. */
function drained(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('close', done);
    stream.once('error', done);
  });
}

// ---------------------------------------------------------------------------------------
// Few columns: a file per block, deflated while parsing.

class StreamingBlock implements BlockSpill {
  uncompressedSize = 0;
  compressedSize = 0;
  private readonly deflater: Deflater;
  private fd: number | undefined;

  constructor(
    readonly path: string,
    settings: DeflateSettings,
    private readonly output: string,
  ) {
    try {
      this.fd = fs.openSync(this.path, 'w');
    } catch (cause) {
      throw scratchError(output, cause);
    }
    this.deflater = new Deflater(settings, (chunk) => this.append(chunk));
  }

  private append(chunk: Uint8Array): void {
    try {
      writeAll(this.fd!, chunk, null);
      this.compressedSize += chunk.byteLength;
    } catch (cause) {
      this.deflater.failure ??= scratchError(this.output, cause);
    }
  }

  write(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    this.uncompressedSize += bytes.byteLength;
    this.deflater.write(bytes);
  }

  settle(): Promise<void> {
    return this.deflater.settle();
  }

  async end(): Promise<void> {
    try {
      await this.deflater.end();
    } finally {
      this.closeFd();
    }
  }

  copyTo(out: AtomicFile, buffer: Buffer): void {
    const fd = fs.openSync(this.path, 'r');
    try {
      for (;;) {
        const n = fs.readSync(fd, buffer, 0, buffer.byteLength, null);
        if (n === 0) break;
        out.writeSync(buffer.subarray(0, n));
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  async *contents(): AsyncIterable<Uint8Array> {
    await this.end();
    for await (const chunk of fs.createReadStream(this.path).pipe(zlib.createInflate()))
      yield new Uint8Array(chunk as Buffer);
  }

  release(): void {
    this.closeFd();
    fs.rmSync(this.path, { force: true });
  }

  private closeFd(): void {
    if (this.fd === undefined) return;
    try {
      fs.closeSync(this.fd);
    } catch {}
    this.fd = undefined;
  }

  abort(): void {
    this.deflater.destroy();
    this.closeFd();
  }
}

class FileRaw implements RawSpill {
  size = 0;
  private fd: number | undefined;
  constructor(
    readonly path: string,
    private readonly output: string,
  ) {
    try {
      this.fd = fs.openSync(this.path, 'w');
    } catch (cause) {
      throw scratchError(output, cause);
    }
  }
  write(bytes: Uint8Array): void {
    try {
      writeAll(this.fd!, bytes, null);
    } catch (cause) {
      throw scratchError(this.output, cause);
    }
    this.size += bytes.byteLength;
  }
  async *chunks(): AsyncIterable<Uint8Array> {
    this.close();
    for await (const chunk of fs.createReadStream(this.path, { highWaterMark: 1 << 20 }))
      yield new Uint8Array(chunk as Buffer);
  }
  private close(): void {
    if (this.fd === undefined) return;
    fs.closeSync(this.fd);
    this.fd = undefined;
  }
  release(): void {
    this.close();
    fs.rmSync(this.path, { force: true });
  }
}

class FileSpillSpace implements SpillSpace {
  readonly chunkSize = MAX_CHUNK;
  constructor(
    private readonly dir: string,
    private readonly settings: DeflateSettings,
    private readonly output: string,
  ) {}
  block(name: string): BlockSpill {
    return new StreamingBlock(path.join(this.dir, name), this.settings, this.output);
  }
  raw(name: string): RawSpill {
    return new FileRaw(path.join(this.dir, `${name}.raw`), this.output);
  }
  close(): void {}
}

// ---------------------------------------------------------------------------------------
// Many columns: one shared file of extents.

/** Offsets and lengths of the pieces of one logical byte stream, in order. */
class Extents {
  private readonly list: number[] = [];
  size = 0;
  add(offset: number, length: number): void {
    const last = this.list.length - 2;
    // Pieces written back to back (one stream between others' flushes) are one extent.
    if (last >= 0 && this.list[last] + this.list[last + 1] === offset) this.list[last + 1] += length;
    else this.list.push(offset, length);
    this.size += length;
  }
  *pieces(): Generator<[offset: number, length: number]> {
    for (let i = 0; i < this.list.length; i += 2) yield [this.list[i], this.list[i + 1]];
  }
}

/** An append-only scratch file holding every column's extents. */
class ExtentFile {
  private readonly fd: number;
  private end = 0;
  constructor(
    readonly path: string,
    private readonly output: string,
  ) {
    try {
      this.fd = fs.openSync(path, 'w+');
    } catch (cause) {
      throw scratchError(output, cause);
    }
  }
  append(bytes: Uint8Array, extents: Extents): void {
    if (bytes.byteLength === 0) return;
    try {
      writeAll(this.fd, bytes, this.end);
    } catch (cause) {
      throw scratchError(this.output, cause);
    }
    extents.add(this.end, bytes.byteLength);
    this.end += bytes.byteLength;
  }
  /** Reads a stream back in pieces of at most `max` bytes, each a fresh array (zlib may keep it). */
  *read(extents: Extents, max: number): Generator<Uint8Array> {
    for (const [offset, length] of extents.pieces()) {
      for (let done = 0; done < length; ) {
        const piece = Buffer.allocUnsafe(Math.min(max, length - done));
        const n = fs.readSync(this.fd, piece, 0, piece.byteLength, offset + done);
        if (n === 0) throw new SourceError(`${this.path}: scratch file shrank`, this.path);
        done += n;
        yield n === piece.byteLength ? piece : piece.subarray(0, n);
      }
    }
  }
  copy(extents: Extents, out: AtomicFile, buffer: Buffer): void {
    for (const [offset, length] of extents.pieces()) {
      for (let done = 0; done < length; ) {
        const n = fs.readSync(this.fd, buffer, 0, Math.min(buffer.byteLength, length - done), offset + done);
        if (n === 0) throw new SourceError(`${this.path}: scratch file shrank`, this.path);
        out.writeSync(buffer.subarray(0, n));
        done += n;
      }
    }
  }
  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {}
  }
}

/** Raw bytes in the shared file now; deflated into it (as more extents) when the block ends. */
class ExtentBlock implements BlockSpill {
  private readonly raw = new Extents();
  private readonly compressed = new Extents();
  constructor(
    private readonly file: ExtentFile,
    private readonly settings: DeflateSettings,
  ) {}
  get uncompressedSize(): number {
    return this.raw.size;
  }
  get compressedSize(): number {
    return this.compressed.size;
  }
  write(bytes: Uint8Array): void {
    this.file.append(bytes, this.raw);
  }
  async settle(): Promise<void> {}
  async end(): Promise<void> {
    if (this.raw.size <= ONE_SHOT) {
      const whole = Buffer.allocUnsafe(this.raw.size);
      let at = 0;
      for (const piece of this.file.read(this.raw, MAX_CHUNK)) {
        whole.set(piece, at);
        at += piece.byteLength;
      }
      const level = this.settings.level ?? DEFAULT_LEVEL;
      this.file.append(
        this.settings.pythonZlib ? deflatePython(whole, level) : zlib.deflateSync(whole, { level }),
        this.compressed,
      );
      return;
    }
    let failure: unknown;
    const deflater = new Deflater(this.settings, (chunk) => {
      try {
        this.file.append(chunk, this.compressed);
      } catch (error) {
        failure ??= error;
      }
    });
    try {
      for (const piece of this.file.read(this.raw, MAX_CHUNK)) {
        deflater.write(piece);
        await deflater.settle();
        if (failure) throw failure;
      }
      await deflater.end();
    } catch (error) {
      deflater.destroy();
      throw error;
    }
    if (failure) throw failure;
  }
  copyTo(out: AtomicFile, buffer: Buffer): void {
    this.file.copy(this.compressed, out, buffer);
  }
  async *contents(): AsyncIterable<Uint8Array> {
    yield* this.file.read(this.raw, 1 << 20);
  }
  // The shared file goes with the scratch folder; extents are not reused.
  release(): void {}
  abort(): void {}
}

class ExtentRaw implements RawSpill {
  private readonly extents = new Extents();
  constructor(private readonly file: ExtentFile) {}
  get size(): number {
    return this.extents.size;
  }
  write(bytes: Uint8Array): void {
    this.file.append(bytes, this.extents);
  }
  async *chunks(): AsyncIterable<Uint8Array> {
    yield* this.file.read(this.extents, 1 << 20);
  }
  release(): void {}
}

class SharedSpillSpace implements SpillSpace {
  readonly chunkSize: number;
  private readonly file: ExtentFile;
  constructor(
    dir: string,
    columns: number,
    budget: number,
    private readonly settings: DeflateSettings,
    output: string,
  ) {
    // Up to two buffers per column (a utf8 column's offsets and strings).
    this.chunkSize = Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, Math.floor(budget / (2 * columns))));
    this.file = new ExtentFile(path.join(dir, 'columns.spill'), output);
  }
  block(): BlockSpill {
    return new ExtentBlock(this.file, this.settings);
  }
  raw(): RawSpill {
    return new ExtentRaw(this.file);
  }
  close(): void {
    this.file.close();
  }
}

/** The layout for a conversion of `columns` columns (see the file comment). */
export function makeSpillSpace(
  dir: string,
  columns: number,
  settings: DeflateSettings,
  output: string,
  budget = DEFAULT_SPILL_BUDGET,
): SpillSpace {
  if (columns <= STREAMING_COLUMNS) return new FileSpillSpace(dir, settings, output);
  return new SharedSpillSpace(dir, columns, budget, settings, output);
}

/** Bytes gathered into fixed-size chunks, handed to a sink when full. */
export class ChunkBuffer {
  bytes: Uint8Array;
  pos = 0;
  constructor(
    readonly size: number,
    private readonly flushTo: (bytes: Uint8Array) => void,
  ) {
    this.bytes = new Uint8Array(size);
  }
  flush(): void {
    if (this.pos === 0) return;
    this.flushTo(this.bytes.subarray(0, this.pos));
    // The sink may keep the bytes until zlib has read them: start a fresh chunk.
    this.bytes = new Uint8Array(this.size);
    this.pos = 0;
  }
  u32(value: number): void {
    if (this.pos + 4 > this.size) this.flush();
    const b = this.bytes;
    const p = this.pos;
    b[p] = value & 0xff;
    b[p + 1] = (value >>> 8) & 0xff;
    b[p + 2] = (value >>> 16) & 0xff;
    b[p + 3] = value >>> 24;
    this.pos = p + 4;
  }
}
