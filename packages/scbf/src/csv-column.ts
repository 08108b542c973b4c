/** One CSV column on its way to SCBF blocks (see csv-convert.ts). Browser-safe. */
import { FormatError } from '@binscope/core';
import type { ScbfType } from './layout.js';
import { canonicalFloatValue, canonicalInt32Value, pyFloatRepr, pythonFloat, pythonInt } from './python.js';
import { type BlockSpill, ChunkBuffer, type RawSpill, type SpillSpace } from './spill.js';

const encoder = new TextEncoder();
const MAX_TEXT = 0xffffffff;

export function csvError(message: string, file?: string, offset?: number): FormatError {
  return new FormatError('InvalidValue', message, { format: 'csv', file, offset });
}

interface Utf8Sinks {
  offsets: ChunkBuffer;
  strings: ChunkBuffer;
  offsetSpill: BlockSpill | RawSpill;
  stringSpill: BlockSpill | RawSpill;
  /** Bytes of text so far (the next offset). */
  total: number;
}

interface NumericSink {
  spill: BlockSpill;
  buffer: Uint8Array;
  view: DataView;
  pos: number;
}

/**
 * One CSV column. A column whose type is inferred starts as the type of its first cell and
 * is written as that type right away (no second pass). If a later cell rules the type out,
 * the column becomes utf8: the numbers already written stay in their spill (their text is
 * exactly recoverable: S7 only accepts canonical text) and are turned back into text when
 * the file is assembled.
 */
export class ColumnWriter {
  type: ScbfType | undefined;
  rows = 0;
  private numeric: NumericSink | undefined;
  private utf8: Utf8Sinks | undefined;
  /** Set when a numeric start was ruled out: the numbers written before that row. */
  private prefix: { type: 'int32' | 'float64'; spill: BlockSpill } | undefined;
  /** Final blocks, once assembled. */
  blocks: BlockSpill[] = [];

  constructor(
    readonly name: string,
    readonly index: number,
    readonly explicitType: ScbfType | undefined,
    private readonly space: SpillSpace,
  ) {
    if (explicitType) this.start(explicitType);
  }

  private get chunk(): number {
    return this.space.chunkSize;
  }

  private spillName(role: string): string {
    return `c${this.index}-${role}`;
  }

  private start(type: ScbfType): void {
    this.type = type;
    if (type === 'utf8') {
      // After a numeric prefix the text waits raw: its offsets shift once the prefix's text is known.
      const offsetSpill = this.prefix
        ? this.space.raw(this.spillName('offsets'))
        : this.space.block(this.spillName('offsets'));
      const stringSpill = this.prefix
        ? this.space.raw(this.spillName('strings'))
        : this.space.block(this.spillName('strings'));
      this.utf8 = {
        offsetSpill,
        stringSpill,
        offsets: new ChunkBuffer(this.chunk, (b) => offsetSpill.write(b)),
        strings: new ChunkBuffer(this.chunk, (b) => stringSpill.write(b)),
        total: 0,
      };
      // The offsets block starts with 0; a converted prefix writes its own offsets first.
      if (!this.prefix) this.utf8.offsets.u32(0);
      return;
    }
    const spill = this.space.block(this.spillName(type));
    const buffer = new Uint8Array(this.chunk);
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
        this.pushInt32(value);
        break;
      }
      case 'float64': {
        const value = this.explicitType ? pythonFloat(text) : canonicalFloatValue(text);
        if (value === undefined || (Number.isNaN(value) && !this.explicitType)) {
          this.reject(text, row);
          return;
        }
        this.pushFloat64(value);
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

  /**
   * A typed value of a column made with an explicit type (records → SCBF): an int32 or a
   * float64 as a number, a utf8 cell as well-formed text. Nothing is parsed or inferred.
   */
  put(value: number | string): void {
    if (this.type === 'utf8') this.addText(value as string);
    else if (this.type === 'int32') this.pushInt32(value as number);
    else this.pushFloat64(value as number);
    this.rows++;
  }

  private pushInt32(value: number): void {
    const n = this.numeric!;
    if (n.pos + 4 > n.buffer.byteLength) this.flushNumeric();
    n.view.setInt32(n.pos, value, true);
    n.pos += 4;
  }

  private pushFloat64(value: number): void {
    const n = this.numeric!;
    if (n.pos + 8 > n.buffer.byteLength) this.flushNumeric();
    n.view.setFloat64(n.pos, value, true);
    n.pos += 8;
  }

  /** `text` is well-formed UTF-16 (from TextDecoder, or checked by the caller): no lone surrogates to reject. */
  private addText(text: string): void {
    const u = this.utf8!;
    const strings = u.strings;
    const length = text.length;
    // Worst case 3 bytes per UTF-16 unit.
    if (length * 3 > strings.size - strings.pos) {
      strings.flush();
      if (length * 3 > strings.size) {
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
    if (total > MAX_TEXT) throw this.tooMuchText();
    this.utf8!.offsets.u32(total);
  }

  private tooMuchText(): FormatError {
    return csvError(
      `column "${this.name}" holds more than 4 GiB of text; SCBF's u32 offsets cannot address it`,
    );
  }

  private flushNumeric(): void {
    const n = this.numeric!;
    if (n.pos === 0) return;
    n.spill.write(n.buffer.subarray(0, n.pos));
    n.buffer = new Uint8Array(n.buffer.byteLength);
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
    this.prefix = { type: this.type as 'int32' | 'float64', spill: this.numeric!.spill };
    this.numeric = undefined;
    this.start('utf8');
    this.add(text, row);
  }

  /** Blocks still being fed, for backpressure. */
  spills(): BlockSpill[] {
    const out: BlockSpill[] = [];
    if (this.numeric) out.push(this.numeric.spill);
    if (this.utf8 && !this.prefix)
      out.push(this.utf8.offsetSpill as BlockSpill, this.utf8.stringSpill as BlockSpill);
    return out;
  }

  /**
   * Flushes everything and leaves the column's final zlib blocks in `blocks`. `pace` is
   * awaited between chunks of a long column (core's pacer: event-loop turns, the abort).
   */
  async finish(pace: () => Promise<void> = async () => {}): Promise<void> {
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
      const offsets = u.offsetSpill as BlockSpill;
      const strings = u.stringSpill as BlockSpill;
      await offsets.end();
      await strings.end();
      this.blocks = [offsets, strings];
      return;
    }
    this.blocks = await this.assembleDemoted(u.offsetSpill as RawSpill, u.stringSpill as RawSpill, pace);
  }

  /** utf8 blocks = the numeric prefix as text, then the text cells that followed. */
  private async assembleDemoted(
    suffixOffsets: RawSpill,
    suffixStrings: RawSpill,
    pace: () => Promise<void>,
  ): Promise<BlockSpill[]> {
    const prefix = this.prefix!;
    const offsets = this.space.block(this.spillName('offsets'));
    const strings = this.space.block(this.spillName('strings'));
    const offsetChunks = new ChunkBuffer(this.chunk, (b) => offsets.write(b));
    const stringChunks = new ChunkBuffer(this.chunk, (b) => strings.write(b));
    offsetChunks.u32(0);
    let total = 0;
    const width = prefix.type === 'int32' ? 4 : 8;
    let carry = new Uint8Array(0);
    for await (const chunk of prefix.spill.contents()) {
      const bytes = carry.byteLength ? concat(carry, chunk) : chunk;
      const whole = bytes.byteLength - (bytes.byteLength % width);
      const view = new DataView(bytes.buffer, bytes.byteOffset, whole);
      for (let p = 0; p < whole; p += width) {
        const text =
          prefix.type === 'int32' ? String(view.getInt32(p, true)) : pyFloatRepr(view.getFloat64(p, true));
        // Numbers are ASCII: one byte per character.
        if (stringChunks.pos + text.length > stringChunks.size) stringChunks.flush();
        for (let i = 0; i < text.length; i++) stringChunks.bytes[stringChunks.pos++] = text.charCodeAt(i);
        total += text.length;
        offsetChunks.u32(total);
      }
      carry = bytes.slice(whole);
      await offsets.settle();
      await strings.settle();
      await pace();
    }
    stringChunks.flush();
    prefix.spill.release();
    // The text cells after the prefix: strings as they are, offsets shifted by the prefix's text.
    for await (const chunk of suffixStrings.chunks()) {
      strings.write(chunk);
      await strings.settle();
      await pace();
    }
    if (total + suffixStrings.size > MAX_TEXT) throw this.tooMuchText();
    let offsetCarry = new Uint8Array(0);
    for await (const chunk of suffixOffsets.chunks()) {
      const bytes = offsetCarry.byteLength ? concat(offsetCarry, chunk) : chunk;
      const whole = bytes.byteLength - (bytes.byteLength % 4);
      const view = new DataView(bytes.buffer, bytes.byteOffset, whole);
      for (let p = 0; p < whole; p += 4) offsetChunks.u32(view.getUint32(p, true) + total);
      offsetCarry = bytes.slice(whole);
      await offsets.settle();
      await pace();
    }
    offsetChunks.flush();
    suffixOffsets.release();
    suffixStrings.release();
    await offsets.end();
    await strings.end();
    return [offsets, strings];
  }

  abort(): void {
    for (const spill of this.spills()) spill.abort();
    this.prefix?.spill.abort();
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

function explicitInt(text: string): number {
  const value = pythonInt(text);
  return value >= -2147483648 && value <= 2147483647 ? value : Number.NaN;
}
