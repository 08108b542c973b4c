/**
 * Node-only SCBF: files on disk, atomic writes, and CSV ⇄ SCBF conversion. Everything here
 * may touch `node:` modules; the package's main entry never imports this file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import {
  type ByteSource,
  FormatError,
  type Problem,
  type ProgressCallback,
  SourceError,
} from '@binscope/core';
import { AtomicFile, NodeFileSource, writeFileAtomic } from '@binscope/core/node';
import { Deflate as PakoDeflate } from 'pako';
import Papa from 'papaparse';
import { scbfToCsvChunks } from './csv.js';
import type { ScbfType } from './layout.js';
import { canonicalFloatValue, canonicalInt32Value, pyFloatRepr, pythonFloat, pythonInt } from './python.js';
import { openScbf, type RowOptions, type ScbfReader } from './read.js';
import { DEFAULT_LEVEL, PYTHON_ZLIB } from './zlib.js';
import {
  type ColumnInput,
  type ColumnPlan,
  encodeHead,
  isWellFormed,
  type WriteOptions,
  writeScbf,
} from './write.js';

export { scbfPlugin } from './plugin.js';
export { extendScbfFile, nullableScbfFile, type RewriteChoice, rewriteScbfFile } from './extend-node.js';

/** Opens an SCBF file on disk lazily (positional reads; never the whole file). */
export async function openScbfFile(filePath: string): Promise<ScbfReader> {
  const source = NodeFileSource.open(filePath, path.basename(filePath));
  try {
    return await openScbf(source);
  } catch (error) {
    await source.close();
    throw error;
  }
}

/** Writes columns to `filePath` atomically (temp file + rename). */
export async function writeScbfFile(
  filePath: string,
  columns: readonly ColumnInput[],
  options: WriteOptions = {},
): Promise<void> {
  await writeFileAtomic(filePath, (sink) => writeScbf(sink, columns, options));
}

// ---------------------------------------------------------------------------------------
// SCBF → CSV

/** Writes the S8 CSV of an SCBF file (path or source) to `output` atomically. */
export async function scbfToCsv(
  input: string | ByteSource,
  output: string,
  options: RowOptions = {},
): Promise<{ warnings: Problem[] }> {
  const reader = typeof input === 'string' ? await openScbfFile(input) : await openScbf(input);
  try {
    await writeFileAtomic(output, async (sink) => {
      for await (const chunk of scbfToCsvChunks(reader, options))
        if (chunk) await sink.write(Buffer.from(chunk, 'utf8'));
    });
    // S4: an upstream file's str_uncomp_size, read past with a warning.
    return { warnings: reader.warnings };
  } finally {
    if (typeof input === 'string') await reader.close();
  }
}

/** Streams the S8 CSV of an open reader into a Node writable (stdout), honouring backpressure. */
export async function writeCsv(
  reader: ScbfReader,
  out: NodeJS.WritableStream,
  options: RowOptions = {},
): Promise<void> {
  for await (const chunk of scbfToCsvChunks(reader, options)) {
    if (chunk && !out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
  }
}

// ---------------------------------------------------------------------------------------
// CSV → SCBF

export interface CsvToScbfOptions {
  /** Types by column name (others inferred) or one per column; default: S7 inference. */
  types?: Readonly<Record<string, ScbfType>> | readonly ScbfType[];
  /** zlib level (default 6, as Python's zlib.compress). */
  level?: number;
  /**
   * Deflate as Python's zlib.compress does (classic zlib via pako), so the output is
   * byte-identical to the upstream Python writer's for the same CSV. Slower: deflating then
   * runs on the main thread, not beside parsing on the thread pool. Default off (node:zlib).
   */
  pythonZlib?: boolean;
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
  /** Where spilled columns go (default: a scratch folder beside the output). */
  scratchDir?: string;
  /** Name used in error messages when the input is a stream. */
  inputName?: string;
}

export interface CsvToScbfResult {
  rows: number;
  columns: { name: string; type: ScbfType }[];
  csvBytes: number;
  scbfBytes: number;
}

/** Uncompressed bytes gathered per column before they go to the deflater. */
const CHUNK = 256 << 10;
/** Bytes a deflater may have queued before parsing waits for it. */
const MAX_QUEUED = 2 << 20;
/**
 * Compressed bytes a deflater hands back at a time: at least a chunk's worth, so deflating
 * one chunk is one job on the thread pool rather than several round trips through this thread.
 */
const DEFLATE_OUT = CHUNK;
/** CSV bytes parsed between returns to the event loop. */
const PARSE_SLICE = 256 << 10;
const encoder = new TextEncoder();

interface DeflateSettings {
  level?: number;
  pythonZlib?: boolean;
}

/**
 * One zlib stream written to a spill file as it is produced. node:zlib deflates on libuv's
 * thread pool, so it overlaps with parsing on the main thread; the opt-in Python-identical
 * deflate (pako, classic hash) runs on the main thread instead.
 */
class DeflateSpill {
  readonly path: string;
  uncompressedSize = 0;
  compressedSize = 0;
  private readonly stream: zlib.Deflate | undefined;
  private readonly classic: PakoDeflate | undefined;
  private readonly fd: number;
  private readonly done: Promise<void>;
  private failure: unknown;

  constructor(dir: string, name: string, settings: DeflateSettings) {
    this.path = path.join(dir, name);
    this.fd = fs.openSync(this.path, 'w');
    const level = settings.level ?? DEFAULT_LEVEL;
    if (settings.pythonZlib) {
      this.classic = new PakoDeflate({ level, ...PYTHON_ZLIB });
      this.classic.onData = (chunk) => this.append(chunk);
      this.done = Promise.resolve();
      return;
    }
    // Large output chunks: each one is a round trip from the thread pool to the main thread.
    const stream = zlib.createDeflate({ level, chunkSize: DEFLATE_OUT });
    this.stream = stream;
    stream.on('data', (chunk: Buffer) => this.append(chunk));
    this.done = new Promise((resolve, reject) => {
      stream.on('end', resolve);
      stream.on('error', reject);
    });
    this.done.catch(() => {});
  }

  private append(chunk: Uint8Array): void {
    try {
      let written = 0;
      while (written < chunk.byteLength)
        written += fs.writeSync(this.fd, chunk, written, chunk.byteLength - written);
      this.compressedSize += chunk.byteLength;
    } catch (error) {
      this.failure ??= error;
    }
  }

  write(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    this.uncompressedSize += bytes.byteLength;
    if (this.classic) this.pushClassic(bytes, false);
    else this.stream!.write(bytes);
  }

  private pushClassic(bytes: Uint8Array, last: boolean): void {
    const classic = this.classic!;
    classic.push(bytes, last);
    if (classic.err) this.failure ??= new Error(`deflate failed: ${classic.msg || classic.err}`);
  }

  /** Resolves once the queue is short enough to keep feeding. */
  async settle(): Promise<void> {
    const stream = this.stream;
    while (stream && stream.writableLength > MAX_QUEUED && !stream.destroyed) await drained(stream);
    if (this.failure) throw this.failure;
  }

  async end(): Promise<void> {
    if (this.classic) this.pushClassic(new Uint8Array(0), true);
    else this.stream!.end();
    try {
      await this.done;
    } finally {
      fs.closeSync(this.fd);
    }
    if (this.failure) throw this.failure;
  }

  abort(): void {
    this.stream?.destroy();
    try {
      fs.closeSync(this.fd);
    } catch {}
  }
}

/** Bytes gathered into fixed-size chunks, handed to a sink when full. */
class ChunkBuffer {
  bytes = new Uint8Array(CHUNK);
  pos = 0;
  constructor(private readonly flushTo: (bytes: Uint8Array) => void) {}
  flush(): void {
    if (this.pos === 0) return;
    this.flushTo(this.bytes.subarray(0, this.pos));
    // The sink keeps the bytes until zlib has read them: start a fresh chunk.
    this.bytes = new Uint8Array(CHUNK);
    this.pos = 0;
  }
  u32(value: number): void {
    if (this.pos + 4 > CHUNK) this.flush();
    const b = this.bytes;
    const p = this.pos;
    b[p] = value & 0xff;
    b[p + 1] = (value >>> 8) & 0xff;
    b[p + 2] = (value >>> 16) & 0xff;
    b[p + 3] = value >>> 24;
    this.pos = p + 4;
  }
}

/** Raw bytes appended to a spill file (for what cannot be deflated yet). */
class RawSpill {
  readonly path: string;
  size = 0;
  private readonly fd: number;
  constructor(dir: string, name: string) {
    this.path = path.join(dir, name);
    this.fd = fs.openSync(this.path, 'w');
  }
  write(bytes: Uint8Array): void {
    let written = 0;
    while (written < bytes.byteLength)
      written += fs.writeSync(this.fd, bytes, written, bytes.byteLength - written);
    this.size += bytes.byteLength;
  }
  close(): void {
    fs.closeSync(this.fd);
  }
}

interface Utf8Sinks {
  offsets: ChunkBuffer;
  strings: ChunkBuffer;
  /** Bytes of text so far (the next offset). */
  total: number;
}

/**
 * One CSV column on its way to SCBF blocks. A column whose type is inferred starts as the
 * type of its first cell and is deflated as that type right away (no second pass). If a
 * later cell rules the type out, the column becomes utf8: the numbers already written stay
 * in their spill (their text is exactly recoverable: S7 only accepts canonical text) and
 * are turned back into text when the file is assembled.
 */
class ColumnWriter {
  type: ScbfType | undefined;
  rows = 0;
  private numeric: { spill: DeflateSpill; buffer: Uint8Array; view: DataView; pos: number } | undefined;
  private utf8:
    | (Utf8Sinks & { offsetSpill: DeflateSpill | RawSpill; stringSpill: DeflateSpill | RawSpill })
    | undefined;
  /** Set when a numeric start was ruled out: the numbers written before that row. */
  prefix: { type: 'int32' | 'float64'; spill: DeflateSpill; rows: number } | undefined;
  /** Final blocks, once assembled. */
  blocks: DeflateSpill[] = [];

  constructor(
    readonly name: string,
    readonly index: number,
    readonly explicitType: ScbfType | undefined,
    private readonly dir: string,
    private readonly deflate: DeflateSettings,
  ) {
    if (explicitType) this.start(explicitType);
  }

  private spillName(role: string): string {
    return `c${this.index}-${role}`;
  }

  private start(type: ScbfType): void {
    this.type = type;
    if (type === 'utf8') {
      const offsetSpill = this.prefix
        ? new RawSpill(this.dir, this.spillName('offsets.raw'))
        : new DeflateSpill(this.dir, this.spillName('offsets'), this.deflate);
      const stringSpill = this.prefix
        ? new RawSpill(this.dir, this.spillName('strings.raw'))
        : new DeflateSpill(this.dir, this.spillName('strings'), this.deflate);
      this.utf8 = {
        offsetSpill,
        stringSpill,
        offsets: new ChunkBuffer((b) => offsetSpill.write(b)),
        strings: new ChunkBuffer((b) => stringSpill.write(b)),
        total: 0,
      };
      // The offsets block starts with 0; a converted prefix writes its own offsets first.
      if (!this.prefix) this.utf8.offsets.u32(0);
      return;
    }
    const spill = new DeflateSpill(this.dir, this.spillName(type), this.deflate);
    const buffer = new Uint8Array(CHUNK);
    this.numeric = { spill, buffer, view: new DataView(buffer.buffer), pos: 0 };
  }

  add(text: string, row: number): void {
    switch (this.type) {
      case 'int32': {
        const value = this.explicitType ? explicitInt(text) : canonicalInt32Value(text);
        if (Number.isNaN(value)) {
          this.reject(text, row);
          return;
        }
        const n = this.numeric!;
        if (n.pos + 4 > CHUNK) this.flushNumeric();
        n.view.setInt32(n.pos, value, true);
        n.pos += 4;
        break;
      }
      case 'float64': {
        const value = this.explicitType ? explicitFloat(text) : canonicalFloatValue(text);
        if (value === undefined || (Number.isNaN(value) && !this.explicitType)) {
          this.reject(text, row);
          return;
        }
        const n = this.numeric!;
        if (n.pos + 8 > CHUNK) this.flushNumeric();
        n.view.setFloat64(n.pos, value, true);
        n.pos += 8;
        break;
      }
      case 'utf8':
        this.addText(text);
        break;
      default: {
        // The first cell picks the candidate type (S7); an empty cell makes it utf8 (S6).
        if (!Number.isNaN(canonicalInt32Value(text))) this.start('int32');
        else if (!Number.isNaN(canonicalFloatValue(text))) this.start('float64');
        else this.start('utf8');
        this.add(text, row);
        return;
      }
    }
    this.rows++;
  }

  /** `text` comes from TextDecoder, so it is well-formed UTF-16: no lone surrogates to reject. */
  private addText(text: string): void {
    const u = this.utf8!;
    const strings = u.strings;
    const length = text.length;
    // Worst case 3 bytes per UTF-16 unit.
    if (length * 3 > CHUNK - strings.pos) {
      strings.flush();
      if (length * 3 > CHUNK) {
        // Larger than a chunk: straight to the spill.
        const bytes = encoder.encode(text);
        u.stringSpill.write(bytes);
        u.total += bytes.byteLength;
        this.pushOffset(u.total);
        return;
      }
    }
    // ASCII (most cells) byte by byte: cheaper than a call into encodeInto for short text.
    const bytes = strings.bytes;
    const at = strings.pos;
    let written = 0;
    while (written < length) {
      const code = text.charCodeAt(written);
      if (code >= 0x80) break;
      bytes[at + written] = code;
      written++;
    }
    if (written < length) written = encoder.encodeInto(text, bytes.subarray(at)).written;
    strings.pos = at + written;
    u.total += written;
    this.pushOffset(u.total);
  }

  private pushOffset(total: number): void {
    if (total > 0xffffffff)
      throw csvError(
        `column "${this.name}" holds more than 4 GiB of text; SCBF's u32 offsets cannot address it`,
      );
    this.utf8!.offsets.u32(total);
  }

  private flushNumeric(): void {
    const n = this.numeric!;
    if (n.pos === 0) return;
    n.spill.write(n.buffer.subarray(0, n.pos));
    n.buffer = new Uint8Array(CHUNK);
    n.view = new DataView(n.buffer.buffer);
    n.pos = 0;
  }

  /** A cell the current type cannot hold: an error for an explicit type, else demote to utf8. */
  private reject(text: string, row: number): void {
    if (this.explicitType) {
      throw csvError(
        `column "${this.name}" row ${row + 1}: ${JSON.stringify(text)} is not ${this.explicitType === 'int32' ? 'an int32' : 'a float64'}`,
      );
    }
    this.flushNumeric();
    this.prefix = { type: this.type as 'int32' | 'float64', spill: this.numeric!.spill, rows: this.rows };
    this.numeric = undefined;
    this.start('utf8');
    this.add(text, row);
  }

  /** Pending deflaters, for backpressure. */
  spills(): DeflateSpill[] {
    const out: DeflateSpill[] = [];
    if (this.numeric) out.push(this.numeric.spill);
    if (this.utf8?.offsetSpill instanceof DeflateSpill) out.push(this.utf8.offsetSpill);
    if (this.utf8?.stringSpill instanceof DeflateSpill) out.push(this.utf8.stringSpill);
    return out;
  }

  /** Flushes everything and leaves the column's final zlib blocks in `blocks`. */
  async finish(): Promise<void> {
    if (this.type === undefined) this.start('utf8'); // zero rows: utf8 (S7)
    if (this.numeric) {
      this.flushNumeric();
      await this.numeric.spill.end();
      this.blocks = [this.numeric.spill];
      return;
    }
    const u = this.utf8!;
    u.offsets.flush();
    u.strings.flush();
    if (!this.prefix) {
      await (u.offsetSpill as DeflateSpill).end();
      await (u.stringSpill as DeflateSpill).end();
      this.blocks = [u.offsetSpill as DeflateSpill, u.stringSpill as DeflateSpill];
      return;
    }
    (u.offsetSpill as RawSpill).close();
    (u.stringSpill as RawSpill).close();
    this.blocks = await this.assembleDemoted(u.offsetSpill as RawSpill, u.stringSpill as RawSpill);
  }

  /** utf8 blocks = the numeric prefix as text, then the text cells that followed. */
  private async assembleDemoted(suffixOffsets: RawSpill, suffixStrings: RawSpill): Promise<DeflateSpill[]> {
    const prefix = this.prefix!;
    await prefix.spill.end();
    const offsets = new DeflateSpill(this.dir, this.spillName('offsets'), this.deflate);
    const strings = new DeflateSpill(this.dir, this.spillName('strings'), this.deflate);
    const offsetChunks = new ChunkBuffer((b) => offsets.write(b));
    const stringChunks = new ChunkBuffer((b) => strings.write(b));
    offsetChunks.u32(0);
    let total = 0;
    const width = prefix.type === 'int32' ? 4 : 8;
    let carry = new Uint8Array(0);
    for await (const chunk of fs
      .createReadStream(prefix.spill.path)
      .pipe(zlib.createInflate()) as AsyncIterable<Buffer>) {
      const bytes = carry.byteLength ? Buffer.concat([carry, chunk]) : chunk;
      const whole = bytes.byteLength - (bytes.byteLength % width);
      const view = new DataView(bytes.buffer, bytes.byteOffset, whole);
      for (let p = 0; p < whole; p += width) {
        const text =
          prefix.type === 'int32' ? String(view.getInt32(p, true)) : pyFloatRepr(view.getFloat64(p, true));
        // Numbers are ASCII: one byte per character.
        if (stringChunks.pos + text.length > CHUNK) stringChunks.flush();
        for (let i = 0; i < text.length; i++) stringChunks.bytes[stringChunks.pos++] = text.charCodeAt(i);
        total += text.length;
        offsetChunks.u32(total);
      }
      carry = bytes.slice(whole);
      await offsets.settle();
      await strings.settle();
    }
    stringChunks.flush();
    fs.rmSync(prefix.spill.path, { force: true });
    // The text cells after the prefix: strings as they are, offsets shifted by the prefix's text.
    for await (const chunk of fs.createReadStream(suffixStrings.path, {
      highWaterMark: 1 << 20,
    }) as AsyncIterable<Buffer>) {
      strings.write(new Uint8Array(chunk));
      await strings.settle();
    }
    if (total + suffixStrings.size > 0xffffffff)
      throw csvError(
        `column "${this.name}" holds more than 4 GiB of text; SCBF's u32 offsets cannot address it`,
      );
    let offsetCarry = new Uint8Array(0);
    for await (const chunk of fs.createReadStream(suffixOffsets.path, {
      highWaterMark: 1 << 20,
    }) as AsyncIterable<Buffer>) {
      const bytes = offsetCarry.byteLength ? Buffer.concat([offsetCarry, chunk]) : chunk;
      const whole = bytes.byteLength - (bytes.byteLength % 4);
      const view = new DataView(bytes.buffer, bytes.byteOffset, whole);
      for (let p = 0; p < whole; p += 4) offsetChunks.u32(view.getUint32(p, true) + total);
      offsetCarry = bytes.slice(whole);
      await offsets.settle();
    }
    offsetChunks.flush();
    fs.rmSync(suffixOffsets.path, { force: true });
    fs.rmSync(suffixStrings.path, { force: true });
    await offsets.end();
    await strings.end();
    return [offsets, strings];
  }

  abort(): void {
    for (const spill of this.spills()) spill.abort();
    this.prefix?.spill.abort();
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

function csvError(message: string, file?: string): FormatError {
  return new FormatError('InvalidValue', message, { format: 'csv', file });
}

function explicitInt(text: string): number {
  const value = pythonInt(text);
  return value >= -2147483648 && value <= 2147483647 ? value : Number.NaN;
}

function explicitFloat(text: string): number | undefined {
  return pythonFloat(text);
}

type CsvInput = string | AsyncIterable<Uint8Array | string>;

/**
 * CSV (S8 dialect, or any RFC 4180 CSV) → SCBF, streaming: the CSV is parsed once with
 * papaparse, each column is deflated into a spill file as it grows (on the thread pool, in
 * parallel with parsing), and the output is assembled from the spills and renamed into
 * place. Memory stays bounded whatever the CSV's size. Types follow S7 unless given.
 */
export async function csvToScbf(
  input: CsvInput,
  output: string,
  options: CsvToScbfOptions = {},
): Promise<CsvToScbfResult> {
  const inputName = options.inputName ?? (typeof input === 'string' ? path.basename(input) : 'csv');
  // The temp file exists from the start; spills go in a folder named after it, so a killed
  // conversion leaves nothing that the next successful write to `output` does not remove.
  const file = AtomicFile.create(output);
  let scratchDir: string;
  try {
    scratchDir = options.scratchDir
      ? fs.mkdtempSync(path.join(options.scratchDir, 'scbf-spill-'))
      : `${file.tempPath}-spill`;
    if (!options.scratchDir) fs.mkdirSync(scratchDir);
  } catch (cause) {
    file.abort();
    throw new SourceError(
      `cannot create a scratch folder for ${output}: ${(cause as Error).message}`,
      output,
      { cause },
    );
  }
  let columns: ColumnWriter[] | undefined;
  let rows = 0;
  let csvBytes = 0;
  const records = new CsvRecords(inputName);
  const take = (batch: string[][]): void => {
    let r = 0;
    if (!columns && batch.length) columns = makeColumns(batch[r++], options, scratchDir);
    if (!columns) return;
    const width = columns.length;
    const first = r;
    for (; r < batch.length; r++) {
      if (batch[r].length !== width) {
        throw csvError(
          `record ${rows + r - first + 1} has ${batch[r].length} fields, the header has ${width}`,
          inputName,
        );
      }
    }
    // A column at a time: each column's cells go through one code path in a row.
    for (let c = 0; c < width; c++) {
      const column = columns[c];
      for (let k = first; k < batch.length; k++) column.add(batch[k][c], rows + k - first);
    }
    rows += batch.length - first;
  };

  try {
    let lastProgress = 0;
    for await (const chunk of readInput(input, options.signal)) {
      for (let pos = 0; pos < chunk.byteLength; pos += PARSE_SLICE) {
        take(records.push(chunk.subarray(pos, pos + PARSE_SLICE)));
        // The deflaters' finished work is handed back (and their next chunk started) only
        // when this thread returns to the event loop: do so often, or the thread pool idles.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (columns) for (const column of columns) for (const spill of column.spills()) await spill.settle();
      }
      csvBytes += chunk.byteLength;
      if (options.onProgress && csvBytes - lastProgress >= 8 << 20) {
        lastProgress = csvBytes;
        options.onProgress({
          phase: 'convert',
          done: csvBytes,
          total: typeof input === 'string' ? fileSize(input) : undefined,
          unit: 'bytes',
        });
      }
    }
    take(records.end());
    if (!columns) throw csvError('the CSV is empty: it has no header row', inputName);
    for (const column of columns) await column.finish();

    const plans: ColumnPlan[] = columns.map((c) => ({
      name: c.name,
      type: c.type!,
      blocks: c.blocks.map((b) => ({
        uncompressedSize: b.uncompressedSize,
        compressedSize: b.compressedSize,
      })),
    }));
    const { head } = encodeHead(plans, rows);
    file.writeSync(head);
    const buffer = Buffer.allocUnsafe(4 << 20);
    for (const column of columns) for (const block of column.blocks) appendFile(file, block.path, buffer);
    // Spills go before the rename, so a crash after it leaves nothing behind.
    fs.rmSync(scratchDir, { recursive: true, force: true });
    await file.commit();
    options.onProgress?.({ phase: 'convert', done: csvBytes, total: csvBytes, unit: 'bytes' });
    return {
      rows,
      columns: plans.map((p) => ({ name: p.name, type: p.type })),
      csvBytes,
      scbfBytes:
        head.byteLength +
        plans.reduce((sum, p) => sum + p.blocks.reduce((s, b) => s + b.compressedSize, 0), 0),
    };
  } catch (error) {
    if (columns) for (const column of columns) column.abort();
    file.abort();
    throw error;
  } finally {
    fs.rmSync(scratchDir, { recursive: true, force: true });
  }
}

function makeColumns(header: string[], options: CsvToScbfOptions, dir: string): ColumnWriter[] {
  const { types } = options;
  if (Array.isArray(types) && types.length !== header.length) {
    throw csvError(`${types.length} types given for ${header.length} columns`);
  }
  if (types && !Array.isArray(types)) {
    for (const name of Object.keys(types)) {
      if (!header.includes(name))
        throw csvError(`a type is given for column "${name}", which the CSV does not have`);
    }
  }
  return header.map((name, index) => {
    const type = Array.isArray(types)
      ? types[index]
      : (types as Record<string, ScbfType> | undefined)?.[name];
    if (type !== undefined && type !== 'int32' && type !== 'float64' && type !== 'utf8') {
      throw csvError(`column "${name}": unknown type ${JSON.stringify(type)} (int32, float64 or utf8)`);
    }
    if (!isWellFormed(name)) throw csvError(`column name ${JSON.stringify(name)} contains a lone surrogate`);
    return new ColumnWriter(name, index, type, dir, {
      level: options.level,
      pythonZlib: options.pythonZlib,
    });
  });
}

/** What papaparse's low-level parser returns for one call (its typings say `any`). */
interface PapaChunk {
  data: string[][];
  errors: { code: string; message: string; row: number }[];
  meta: { cursor: number };
}

const QUOTED = /"[^"]*"/g;

/**
 * The line end a CSV uses: the first one outside quotes (\n, \r\n or \r), as csv-parse
 * decided it; undefined while the text holds none yet (or ends in a \r that may be a \r\n).
 */
function firstLineEnd(text: string): '\n' | '\r\n' | '\r' | undefined {
  // Quoted sections ("" escapes included) out of the way; an unclosed one hides the rest.
  const open = text.replace(QUOTED, '');
  const quote = open.indexOf('"');
  const head = quote === -1 ? open : open.slice(0, quote);
  const lf = head.indexOf('\n');
  const cr = head.indexOf('\r');
  if (cr === -1 || (lf !== -1 && lf < cr)) return lf === -1 ? undefined : '\n';
  if (cr === head.length - 1 && quote === -1) return undefined;
  return head[cr + 1] === '\n' ? '\r\n' : '\r';
}

/**
 * CSV bytes → records with papaparse's parser, a chunk at a time. Each call parses the
 * unfinished last record of the previous chunk again together with the new text (as
 * papaparse's own streaming does), so a record split across chunks, even inside quotes,
 * comes out whole.
 */
class CsvRecords {
  // ignoreBOM: a BOM stays part of the first header name, as the bytes say.
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  private parser: Papa.Parser | undefined;
  private pending = '';
  private newline: '\n' | '\r\n' | '\r' = '\n';
  /** Records handed out so far, the header included (for error messages). */
  private records = 0;
  constructor(private readonly inputName: string) {}

  push(bytes: Uint8Array): string[][] {
    return this.parse(this.pending + this.decoder.decode(bytes, { stream: true }), false);
  }

  end(): string[][] {
    return this.parse(this.pending + this.decoder.decode(), true);
  }

  private parse(text: string, last: boolean): string[][] {
    this.pending = '';
    if (!text) return [];
    if (!this.parser) {
      const newline = firstLineEnd(text);
      if (!newline && !last) {
        this.pending = text;
        return [];
      }
      this.newline = newline ?? '\n';
      this.parser = new Papa.Parser({ delimiter: ',', newline: this.newline, quoteChar: '"' });
    }
    const result = this.parser.parse(text, 0, !last) as PapaChunk;
    for (const error of result.errors) {
      // Errors in the unfinished last record are not final: it is parsed again with more text.
      if (!last && error.row >= result.data.length) continue;
      throw csvError(
        `${this.inputName}: CSV row ${this.records + error.row + 1}: ${error.message} (${error.code})`,
        this.inputName,
      );
    }
    // Only text with quotes can be malformed in ways papaparse lets through.
    if (text.indexOf('"') !== -1) this.checkQuoting(text, result.data);
    if (!last) this.pending = text.substring(result.meta.cursor);
    this.records += result.data.length;
    return result.data;
  }

  /**
   * papaparse reads a stray `"` inside an unquoted field as text and skips spaces after a
   * closing quote; RFC 4180 (and S8) allow neither, and taking them would change the data
   * silently. The records must spell out `text` exactly: each field as it is, or quoted
   * with its quotes doubled, then `,` or the line end.
   */
  private checkQuoting(text: string, records: string[][]): void {
    const newline = this.newline;
    let pos = 0;
    for (let r = 0; r < records.length; r++) {
      const fields = records[r];
      for (let f = 0; f < fields.length; f++) {
        if (f > 0) pos++; // the comma papaparse split at
        const field = fields[f];
        if (text.charCodeAt(pos) === 34) {
          const quoted = `"${field.replaceAll('"', '""')}"`;
          if (!text.startsWith(quoted, pos)) this.quotingError(r, 'a closing quote is followed by text');
          pos += quoted.length;
          if (pos < text.length && text[pos] !== ',' && !text.startsWith(newline, pos))
            this.quotingError(r, 'a closing quote is followed by text');
        } else {
          if (field.indexOf('"') !== -1) this.quotingError(r, 'a quote inside an unquoted field');
          pos += field.length;
        }
      }
      pos += newline.length;
    }
  }

  private quotingError(record: number, what: string): never {
    throw csvError(
      `${this.inputName}: CSV row ${this.records + record + 1}: ${what} (quote fields that hold quotes, as RFC 4180 says)`,
      this.inputName,
    );
  }
}

async function* readInput(input: CsvInput, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  if (typeof input !== 'string') {
    for await (const chunk of input) {
      signal?.throwIfAborted();
      yield typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    }
    return;
  }
  let fd: number;
  try {
    fd = fs.openSync(input, 'r');
  } catch (cause) {
    throw new SourceError(`${input}: ${(cause as Error).message}`, input, { cause });
  }
  try {
    // One buffer for every read: its bytes are decoded into strings before the next one.
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (let position = 0; ; ) {
      signal?.throwIfAborted();
      const n = fs.readSync(fd, buffer, 0, buffer.byteLength, position);
      if (n === 0) break;
      position += n;
      yield buffer.subarray(0, n);
    }
  } finally {
    fs.closeSync(fd);
  }
}

function appendFile(file: AtomicFile, from: string, buffer: Buffer): void {
  const fd = fs.openSync(from, 'r');
  try {
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, buffer.byteLength, null);
      if (n === 0) break;
      file.writeSync(buffer.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
}

function fileSize(p: string): number | undefined {
  try {
    return fs.statSync(p).size;
  } catch {
    return undefined;
  }
}
