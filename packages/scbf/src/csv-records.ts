/** CSV bytes → records, in linear time and bounded memory (for csv-convert.ts). Browser-safe. */
import Papa from 'papaparse';
import { csvError } from './csv-column.js';

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/** Default for the longest record (an unfinished quoted field counts) held while reading. */
export const DEFAULT_MAX_RECORD_BYTES = 256 << 20;
/**
 * Default for the most columns a CSV may have. Converting holds a little state per column
 * (its buffers and block records: about 3 KB each, 0.5 GB at this limit), so memory stays
 * bounded whatever the CSV; a wider one is refused while its header is read.
 */
export const DEFAULT_MAX_COLUMNS = 100_000;

/** What papaparse's low-level parser returns for one call (its typings say `any`). */
interface PapaChunk {
  data: string[][];
  errors: { code: string; message: string; row: number }[];
  meta: { cursor: number };
}

/**
 * CSV bytes → records with papaparse's parser. The bytes are first cut at the last line end
 * outside quotes (`"`, CR and LF are ASCII, so they never occur inside a UTF-8 sequence), and
 * only whole records are decoded and parsed: each byte is looked at once, however a record
 * is split across chunks. An unfinished record waits as bytes, up to `maxRecordBytes`; a
 * quote that is never closed is reported at the byte where it opened.
 */
export class CsvRecords {
  // ignoreBOM: a BOM stays part of the first header name, as the bytes say.
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  private parser: Papa.Parser | undefined;
  private newline: '\n' | '\r\n' | '\r' | undefined;
  /** The previous chunk ended in a CR outside quotes before the line end was known. */
  private crAtEnd = false;
  private inQuote = false;
  /** Byte offset of the quote that opened the field we are in. */
  private quoteAt = 0;
  /** Bytes seen so far. */
  private seen = 0;
  /** The unfinished record's bytes. */
  private carry: Uint8Array[] = [];
  private carryBytes = 0;
  /** Records handed out so far, the header included (for error messages). */
  private records = 0;
  /** Commas outside quotes in the header line so far: its columns, less one. */
  private headerCommas = 0;

  constructor(
    private readonly inputName: string,
    private readonly maxRecordBytes = DEFAULT_MAX_RECORD_BYTES,
    private readonly maxColumns = DEFAULT_MAX_COLUMNS,
  ) {}

  /** Records completed by `bytes` (which may be reused by the caller afterwards). */
  push(bytes: Uint8Array): string[][] {
    const cut = this.scan(bytes);
    this.seen += bytes.byteLength;
    if (cut < 0) {
      this.keep(bytes);
      return [];
    }
    const whole = this.take(bytes.subarray(0, cut));
    this.keep(bytes.subarray(cut));
    return this.parse(this.decoder.decode(whole, { stream: true }), false);
  }

  end(): string[][] {
    if (this.inQuote) {
      throw csvError(
        `${this.inputName}: CSV row ${this.records + 1}: unterminated quote: the quoted field opened at byte ${this.quoteAt} is never closed`,
        this.inputName,
        this.quoteAt,
      );
    }
    if (this.crAtEnd) this.newline ??= '\r';
    const rest = this.take(new Uint8Array(0));
    return this.parse(this.decoder.decode(rest), true);
  }

  /** Index just past the last record end in `bytes`, or -1; updates the quote state. */
  private scan(bytes: Uint8Array): number {
    let cut = -1;
    let i = 0;
    if (this.crAtEnd && bytes.byteLength > 0) {
      this.crAtEnd = false;
      this.newline = bytes[0] === LF ? '\r\n' : '\r';
      if (this.newline === '\r') cut = 0;
    }
    if (!this.newline) {
      // The header line, byte by byte: its columns are counted as they come, so a CSV too
      // wide to convert is refused before its header is held or split.
      for (; i < bytes.byteLength; i++) {
        const b = bytes[i];
        if (b === QUOTE) this.toggleQuote(i);
        else if (b === COMMA && !this.inQuote) {
          if (++this.headerCommas >= this.maxColumns) this.tooManyColumns(i);
        } else if (!this.inQuote && (b === LF || b === CR)) {
          if (b === LF) this.newline = '\n';
          else if (i + 1 < bytes.byteLength) this.newline = bytes[i + 1] === LF ? '\r\n' : '\r';
          else {
            this.crAtEnd = true;
            return -1;
          }
          break;
        }
      }
      if (!this.newline) return -1;
    }
    const end = this.newline === '\r' ? CR : LF;
    // Most chunks hold no quote: the last line end is the cut.
    if (!this.inQuote && bytes.indexOf(QUOTE, i) === -1) {
      const last = bytes.lastIndexOf(end);
      return last >= i ? last + 1 : cut;
    }
    for (; i < bytes.byteLength; i++) {
      const b = bytes[i];
      if (b === QUOTE) this.toggleQuote(i);
      else if (b === end && !this.inQuote) cut = i + 1;
    }
    return cut;
  }

  private tooManyColumns(index: number): never {
    throw csvError(
      `${this.inputName}: the header has more than ${this.maxColumns} columns, the most a conversion takes (its memory grows with the columns); raise maxColumns (binscope convert --max-columns N) to convert it anyway`,
      this.inputName,
      this.seen + index,
    );
  }

  // "" inside a quoted field closes and reopens it: the parity is what matters.
  private toggleQuote(index: number): void {
    this.inQuote = !this.inQuote;
    if (this.inQuote) this.quoteAt = this.seen + index;
  }

  private keep(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    this.carryBytes += bytes.byteLength;
    if (this.carryBytes > this.maxRecordBytes) {
      const why = this.inQuote
        ? `the quoted field opened at byte ${this.quoteAt} is still open after ${this.carryBytes} bytes (an unterminated quote?)`
        : `the record is longer than ${this.maxRecordBytes} bytes`;
      throw csvError(
        `${this.inputName}: CSV row ${this.records + 1}: ${why}`,
        this.inputName,
        this.inQuote ? this.quoteAt : this.seen - this.carryBytes,
      );
    }
    // The caller reuses its buffer: keep a copy (Buffer#slice would be a view).
    const copy = new Uint8Array(bytes.byteLength);
    copy.set(bytes);
    this.carry.push(copy);
  }

  /** The carried bytes followed by `tail`, as one array; the carry is emptied. */
  private take(tail: Uint8Array): Uint8Array {
    if (this.carry.length === 0) return tail;
    const out = new Uint8Array(this.carryBytes + tail.byteLength);
    let at = 0;
    for (const piece of this.carry) {
      out.set(piece, at);
      at += piece.byteLength;
    }
    out.set(tail, at);
    this.carry = [];
    this.carryBytes = 0;
    return out;
  }

  private parse(text: string, last: boolean): string[][] {
    if (!text) return [];
    this.parser ??= new Papa.Parser({ delimiter: ',', newline: this.newline ?? '\n', quoteChar: '"' });
    // Not the last text: it ends in a line end, and the empty "record" after it is not one.
    const result = this.parser.parse(text, 0, !last) as PapaChunk;
    // The text holds whole records only, so every error is final.
    const error = result.errors[0];
    if (error) {
      throw csvError(
        `${this.inputName}: CSV row ${this.records + error.row + 1}: ${error.message} (${error.code})`,
        this.inputName,
      );
    }
    if (!last && result.meta.cursor < text.length)
      this.quotingError(result.data.length, 'the record does not end where its quotes say it does');
    // Only text with quotes can be malformed in ways papaparse lets through.
    if (text.indexOf('"') !== -1) this.checkQuoting(text, result.data);
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
    const newline = this.newline ?? '\n';
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
