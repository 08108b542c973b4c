/**
 * Node-only SCBF: files on disk, atomic writes, and CSV ⇄ SCBF conversion. Everything here
 * may touch `node:` modules; the package's main entry never imports this file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { type ByteSource, FormatError, type ProgressCallback, SourceError } from '@binscope/core';
import { AtomicFile, NodeFileSource, writeFileAtomic } from '@binscope/core/node';
import { parse as parseCsv } from 'csv-parse';
import { scbfToCsvChunks } from './csv.js';
import type { ScbfType } from './layout.js';
import { canonicalFloatValue, canonicalInt32Value, pyFloatRepr, pythonFloat, pythonInt } from './python.js';
import { openScbf, type RowOptions, type ScbfReader } from './read.js';
import {
  type ColumnInput,
  type ColumnPlan,
  encodeHead,
  isWellFormed,
  type WriteOptions,
  writeScbf,
} from './write.js';

export { scbfPlugin } from './plugin.js';

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
): Promise<void> {
  const reader = typeof input === 'string' ? await openScbfFile(input) : await openScbf(input);
  try {
    await writeFileAtomic(output, async (sink) => {
      for await (const chunk of scbfToCsvChunks(reader, options))
        if (chunk) await sink.write(Buffer.from(chunk, 'utf8'));
    });
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
/** CSV bytes handed to the parser at a time. */
const FEED = 64 << 10;
const encoder = new TextEncoder();

/**
 * One zlib stream written to a spill file as it is produced. Deflating runs on libuv's
 * thread pool, so it overlaps with parsing on the main thread.
 */
class DeflateSpill {
  readonly path: string;
  uncompressedSize = 0;
  compressedSize = 0;
  private readonly stream: zlib.Deflate;
  private readonly fd: number;
  private readonly done: Promise<void>;
  private failure: unknown;

  constructor(dir: string, name: string, level: number | undefined) {
    this.path = path.join(dir, name);
    this.fd = fs.openSync(this.path, 'w');
    this.stream = zlib.createDeflate({ level: level ?? 6 });
    this.stream.on('data', (chunk: Buffer) => {
      try {
        let written = 0;
        while (written < chunk.byteLength)
          written += fs.writeSync(this.fd, chunk, written, chunk.byteLength - written);
        this.compressedSize += chunk.byteLength;
      } catch (error) {
        this.failure ??= error;
      }
    });
    this.done = new Promise((resolve, reject) => {
      this.stream.on('end', resolve);
      this.stream.on('error', reject);
    });
    this.done.catch(() => {});
  }

  write(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    this.uncompressedSize += bytes.byteLength;
    this.stream.write(bytes);
  }

  /** Resolves once the queue is short enough to keep feeding. */
  async settle(): Promise<void> {
    while (this.stream.writableLength > MAX_QUEUED && !this.stream.destroyed) await drained(this.stream);
    if (this.failure) throw this.failure;
  }

  async end(): Promise<void> {
    this.stream.end();
    try {
      await this.done;
    } finally {
      fs.closeSync(this.fd);
    }
    if (this.failure) throw this.failure;
  }

  abort(): void {
    this.stream.destroy();
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
    private readonly level: number | undefined,
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
        : new DeflateSpill(this.dir, this.spillName('offsets'), this.level);
      const stringSpill = this.prefix
        ? new RawSpill(this.dir, this.spillName('strings.raw'))
        : new DeflateSpill(this.dir, this.spillName('strings'), this.level);
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
    const spill = new DeflateSpill(this.dir, this.spillName(type), this.level);
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
        this.addText(text, row);
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

  private addText(text: string, row: number): void {
    const u = this.utf8!;
    if (!isWellFormed(text)) throw csvError(`column "${this.name}" row ${row + 1} contains a lone surrogate`);
    const strings = u.strings;
    // Worst case 3 bytes per UTF-16 unit.
    if (text.length * 3 > CHUNK - strings.pos) {
      strings.flush();
      if (text.length * 3 > CHUNK) {
        // Larger than a chunk: straight to the spill.
        const bytes = encoder.encode(text);
        u.stringSpill.write(bytes);
        u.total += bytes.byteLength;
        this.pushOffset(u.total);
        return;
      }
    }
    const { written } = encoder.encodeInto(text, strings.bytes.subarray(strings.pos));
    strings.pos += written;
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
    const offsets = new DeflateSpill(this.dir, this.spillName('offsets'), this.level);
    const strings = new DeflateSpill(this.dir, this.spillName('strings'), this.level);
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
 * csv-parse, each column is deflated into a spill file as it grows (on the thread pool, in
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
  let failure: unknown;
  const parser = parseCsv({ bom: false, relax_column_count: false, skip_empty_lines: false });
  parser.on('data', (record: string[]) => {
    if (failure) return;
    try {
      if (!columns) {
        columns = makeColumns(record, options, scratchDir);
        return;
      }
      if (record.length !== columns.length) {
        throw csvError(
          `record ${rows + 1} has ${record.length} fields, the header has ${columns.length}`,
          inputName,
        );
      }
      for (let c = 0; c < columns.length; c++) columns[c].add(record[c], rows);
      rows++;
    } catch (error) {
      failure = error;
      parser.destroy();
    }
  });
  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('end', resolve);
    // A parser destroyed after a failed record closes without 'end'; `failure` says why.
    parser.on('close', resolve);
    parser.on('error', reject);
  });
  parsed.catch((error) => {
    failure ??= error;
  });

  try {
    let lastProgress = 0;
    for await (const chunk of readInput(input, options.signal)) {
      for (let pos = 0; pos < chunk.byteLength; pos += FEED) {
        if (!parser.write(chunk.subarray(pos, pos + FEED))) await drained(parser);
        if (failure) throw failure;
      }
      csvBytes += chunk.byteLength;
      if (columns) for (const column of columns) for (const spill of column.spills()) await spill.settle();
      if (failure) throw failure;
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
    parser.end();
    await parsed;
    if (failure) throw failure;
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
    parser.destroy();
    if (columns) for (const column of columns) column.abort();
    file.abort();
    throw isCsvParseError(error) ? csvError(`${inputName}: ${(error as Error).message}`, inputName) : error;
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
    return new ColumnWriter(name, index, type, dir, options.level);
  });
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
    for (let position = 0; ; ) {
      signal?.throwIfAborted();
      // A fresh buffer per read: the parser may keep a reference to a partial record.
      const buffer = Buffer.allocUnsafe(1 << 20);
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

function isCsvParseError(error: unknown): boolean {
  return (
    (error as { name?: string })?.name === 'CsvError' ||
    (typeof (error as { code?: unknown })?.code === 'string' &&
      String((error as { code: string }).code).startsWith('CSV_'))
  );
}
