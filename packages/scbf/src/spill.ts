/**
 * Scratch storage for CSV → SCBF: where column bytes wait until the SCBF head (which needs
 * every column's type and block sizes) can be written. Browser-safe: the scratch files are the
 * app's (core/node's `fileScratch` under Node, `memoryScratch` in a browser), and the deflater is
 * `#zlib`'s (node:zlib on the thread pool under Node, pako elsewhere).
 *
 * Two layouts, chosen by the column count so that memory and open files never grow with it:
 * - few columns: each block is deflated as it grows, beside parsing, into its own scratch file
 *   (a handful of open files, a zlib stream per block);
 * - many columns: every column's bytes go to one shared scratch file as extents, buffered in
 *   chunks sized so that all buffers together stay within a fixed budget, and each block is
 *   deflated at the end, one at a time (one open file, one zlib stream).
 */
import type { ByteSink, Scratch, ScratchFile } from '@binscope/core';
import { createDeflater, deflateBlock } from '#zlib';
import { Inflate } from 'pako';
import { DEFAULT_LEVEL, type DeflateSettings, deflatePython, type StreamDeflater } from './zlib.js';

export type { DeflateSettings } from './zlib.js';

/** Largest chunk a column buffers before handing bytes on. */
export const MAX_CHUNK = 256 << 10;
/** Smallest chunk, however many columns share the budget. */
const MIN_CHUNK = 512;
/** Columns up to which each block gets its own file and streaming deflater. */
export const STREAMING_COLUMNS = 32;
/** Blocks up to this size are deflated in one call (a zlib stream per block costs far more). */
const ONE_SHOT = 4 << 20;
/** Default memory for all columns' buffers together in the shared-file layout. */
export const DEFAULT_SPILL_BUDGET = 64 << 20;
/** Bytes copied from scratch to the output per write. */
const COPY_CHUNK = 4 << 20;

/** A zlib block on its way to the output: bytes in, compressed bytes kept until assembly. */
export interface BlockSpill {
  readonly uncompressedSize: number;
  readonly compressedSize: number;
  /** Takes ownership of `bytes`: the caller must not reuse them. */
  write(bytes: Uint8Array): void;
  /** Resolves once queued work is short enough to keep feeding. */
  settle(): Promise<void>;
  end(): Promise<void>;
  /** Writes the compressed block to the output. */
  copyTo(out: ByteSink): Promise<void>;
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

/** Reads [offset, offset + length) of a scratch file back in pieces of at most `max` bytes, each a fresh array. */
function* pieces(file: ScratchFile, offset: number, length: number, max: number): Generator<Uint8Array> {
  for (let done = 0; done < length; ) {
    const n = Math.min(max, length - done);
    yield file.read(offset + done, n, { into: new Uint8Array(n) }) as Uint8Array;
    done += n;
  }
}

/** Copies [offset, offset + length) of a scratch file to the output through `buffer`, reused. */
async function copyRange(
  file: ScratchFile,
  offset: number,
  length: number,
  out: ByteSink,
  buffer: Uint8Array = new Uint8Array(Math.min(COPY_CHUNK, length)),
): Promise<void> {
  for (let done = 0; done < length; ) {
    const n = Math.min(buffer.byteLength, length - done);
    await out.write(file.read(offset + done, n, { into: buffer.subarray(0, n) }) as Uint8Array);
    done += n;
  }
}

/** Inflates a whole zlib stream held in a scratch file, yielding its output as it comes. */
async function* inflated(file: ScratchFile, length: number): AsyncGenerator<Uint8Array> {
  const out: Uint8Array[] = [];
  const inflate = new Inflate();
  inflate.onData = (chunk: Uint8Array) => out.push(chunk);
  for (const piece of pieces(file, 0, length, 1 << 20)) {
    inflate.push(piece, false);
    if (inflate.err) throw new Error(`scratch block does not inflate: ${inflate.msg}`);
    yield* out.splice(0);
  }
  inflate.push(new Uint8Array(0), true);
  if (inflate.err) throw new Error(`scratch block does not inflate: ${inflate.msg}`);
  yield* out.splice(0);
}

// ---------------------------------------------------------------------------------------
// Few columns: a scratch file per block, deflated while parsing.

class StreamingBlock implements BlockSpill {
  uncompressedSize = 0;
  compressedSize = 0;
  private readonly deflater: StreamDeflater;
  private failure: unknown;

  constructor(
    private readonly file: ScratchFile,
    settings: DeflateSettings,
  ) {
    this.deflater = createDeflater(settings, (chunk) => this.append(chunk));
  }

  private append(chunk: Uint8Array): void {
    try {
      this.file.append(chunk);
      this.compressedSize += chunk.byteLength;
    } catch (error) {
      this.failure ??= error;
    }
  }

  write(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    this.uncompressedSize += bytes.byteLength;
    this.deflater.write(bytes);
  }

  async settle(): Promise<void> {
    await this.deflater.settle();
    if (this.failure) throw this.failure;
  }

  async end(): Promise<void> {
    await this.deflater.end();
    if (this.failure) throw this.failure;
  }

  copyTo(out: ByteSink): Promise<void> {
    return copyRange(this.file, 0, this.compressedSize, out);
  }

  async *contents(): AsyncIterable<Uint8Array> {
    await this.end();
    yield* inflated(this.file, this.compressedSize);
  }

  release(): void {
    this.file.remove();
  }

  abort(): void {
    this.deflater.destroy();
  }
}

class ScratchRaw implements RawSpill {
  constructor(private readonly file: ScratchFile) {}
  get size(): number {
    return this.file.size;
  }
  write(bytes: Uint8Array): void {
    this.file.append(bytes);
  }
  async *chunks(): AsyncIterable<Uint8Array> {
    yield* pieces(this.file, 0, this.file.size, 1 << 20);
  }
  release(): void {
    this.file.remove();
  }
}

class FileSpillSpace implements SpillSpace {
  readonly chunkSize = MAX_CHUNK;
  constructor(
    private readonly scratch: Scratch,
    private readonly settings: DeflateSettings,
  ) {}
  block(name: string): BlockSpill {
    return new StreamingBlock(this.scratch.file(name), this.settings);
  }
  raw(name: string): RawSpill {
    return new ScratchRaw(this.scratch.file(`${name}.raw`));
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
  /** The copy buffer every block's extents go through (thousands of small extents: one allocation). */
  private copyBuffer: Uint8Array | undefined;
  constructor(readonly file: ScratchFile) {}
  append(bytes: Uint8Array, extents: Extents): void {
    if (bytes.byteLength === 0) return;
    const at = this.file.size;
    this.file.append(bytes);
    extents.add(at, bytes.byteLength);
  }
  /** Reads a stream back in pieces of at most `max` bytes, each a fresh array (zlib may keep it). */
  *read(extents: Extents, max: number): Generator<Uint8Array> {
    for (const [offset, length] of extents.pieces()) yield* pieces(this.file, offset, length, max);
  }
  /** Reads a stream's bytes into `into` (which holds exactly them). */
  readAll(extents: Extents, into: Uint8Array): void {
    let at = 0;
    for (const [offset, length] of extents.pieces()) {
      this.file.read(offset, length, { into: into.subarray(at, at + length) });
      at += length;
    }
  }
  async copy(extents: Extents, out: ByteSink): Promise<void> {
    this.copyBuffer ??= new Uint8Array(COPY_CHUNK);
    for (const [offset, length] of extents.pieces())
      await copyRange(this.file, offset, length, out, this.copyBuffer);
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
      const whole = new Uint8Array(this.raw.size);
      this.file.readAll(this.raw, whole);
      const level = this.settings.level ?? DEFAULT_LEVEL;
      const compressed = this.settings.pythonZlib ? deflatePython(whole, level) : deflateBlock(whole, level);
      this.file.append(compressed, this.compressed);
      return;
    }
    let failure: unknown;
    const deflater = createDeflater(this.settings, (chunk) => {
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
  copyTo(out: ByteSink): Promise<void> {
    return this.file.copy(this.compressed, out);
  }
  async *contents(): AsyncIterable<Uint8Array> {
    yield* this.file.read(this.raw, 1 << 20);
  }
  // The shared file goes with the scratch; extents are not reused.
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
    scratch: Scratch,
    columns: number,
    budget: number,
    private readonly settings: DeflateSettings,
  ) {
    // Up to two buffers per column (a utf8 column's offsets and strings).
    this.chunkSize = Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, Math.floor(budget / (2 * columns))));
    this.file = new ExtentFile(scratch.file('columns.spill'));
  }
  block(): BlockSpill {
    return new ExtentBlock(this.file, this.settings);
  }
  raw(): RawSpill {
    return new ExtentRaw(this.file);
  }
  close(): void {
    this.file.file.remove();
  }
}

/** The layout for a conversion of `columns` columns (see the file comment). */
export function makeSpillSpace(
  scratch: Scratch,
  columns: number,
  settings: DeflateSettings,
  budget = DEFAULT_SPILL_BUDGET,
): SpillSpace {
  if (columns <= STREAMING_COLUMNS) return new FileSpillSpace(scratch, settings);
  return new SharedSpillSpace(scratch, columns, budget, settings);
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
