import {
  type ByteSource,
  type ErrorCode,
  FormatError,
  formatErrors,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { Cursor } from '@binscope/core/binary';
import { FORMAT, type ScbfColumn, type ScbfType, TYPE_CODES, TYPE_NAMES } from './layout.js';
import { decodeDictionaries, type Dictionaries, encodeDictionaries } from './dictionary.js';
import { recordColumn } from './footer-record.js';
import type { ColumnStatistics } from './statistics.js';

/**
 * The SCBF extension footer (scbf.md §10; layout tables in the README). It follows the last
 * column block, so readers that only follow block offsets (upstream's) never see it (S5), and
 * it is found from the end of the file through a fixed 16-byte trailer:
 *
 *   body: records, each kind u16 | version u16 | length u32 | payload[length]
 *   trailer: body_length u64 | footer_version u16 | record_count u16 | magic "SCBX"
 *
 * A record of an unknown kind, or a known kind with a newer version, is skipped with a
 * warning: its length says where the next one starts.
 */
export const FOOTER_MAGIC = 'SCBX';
export const TRAILER_LENGTH = 16;
export const FOOTER_VERSION = 1;
export const RECORD_HEADER = 8;

export const EXTENSION_KINDS = { checksums: 1, statistics: 2, nulls: 3, dictionaries: 4 } as const;
const CHECKSUM_CRC32 = 1;

export interface ScbfExtensions {
  footerVersion: number;
  /** Absolute offset of the first record. */
  bodyOffset: number;
  /** CRC-32 of each block's compressed bytes, blocks in metadata-table order. */
  checksums?: Uint32Array;
  /** One entry per column, in column order. */
  statistics?: ColumnStatistics[];
  /**
   * Null bitmaps by column index (kind 3): bit r (byte r >> 3, least significant bit first)
   * set when row r is null; the column block holds a placeholder 0 there.
   */
  nulls?: Map<number, Uint8Array>;
  /** Dictionaries by column index (kind 4, dictionary.ts): the int32 codes index them. */
  dictionaries?: Map<number, string[]>;
  /** Records this reader skipped (unknown kind or version). */
  skipped: Array<{ kind: number; version: number; offset: number; length: number }>;
}

const encoder = new TextEncoder();

/** Every block of the file in metadata-table order, the order checksums are stored in. */
export function blocksInOrder(columns: readonly ScbfColumn[]) {
  return columns.flatMap((column) => column.blocks.map((block) => ({ column, block })));
}

/** Where the column blocks end: the footer must start at or after it. */
export function blocksEnd(columns: readonly ScbfColumn[], metaTableEnd: number): number {
  let end = metaTableEnd;
  for (const { block } of blocksInOrder(columns)) end = Math.max(end, block.offset + block.compressedSize);
  return end;
}

class Growable {
  private bytes = new Uint8Array(256);
  private view = new DataView(this.bytes.buffer);
  length = 0;
  private reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const bigger = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    bigger.set(this.bytes.subarray(0, this.length));
    this.bytes = bigger;
    this.view = new DataView(bigger.buffer);
  }
  u8(v: number) {
    this.reserve(1);
    this.view.setUint8(this.length++, v);
  }
  u16(v: number) {
    this.reserve(2);
    this.view.setUint16(this.length, v, true);
    this.length += 2;
  }
  u32(v: number) {
    this.reserve(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }
  u64(v: number) {
    this.reserve(8);
    this.view.setBigUint64(this.length, BigInt(v), true);
    this.length += 8;
  }
  f64(v: number) {
    this.reserve(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }
  raw(b: Uint8Array) {
    this.reserve(b.length);
    this.bytes.set(b, this.length);
    this.length += b.length;
  }
  text(s: string) {
    const b = encoder.encode(s);
    this.u32(b.length);
    this.raw(b);
  }
  done(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

function encodeStatistics(stats: readonly ColumnStatistics[]): Uint8Array {
  const out = new Growable();
  out.u32(stats.length);
  for (const s of stats) {
    const numeric = s.type !== 'utf8';
    const hasRange = numeric ? s.min !== undefined : s.minText !== undefined;
    out.u8(TYPE_CODES[s.type]);
    out.u8(hasRange ? 1 : 0);
    out.u16(0);
    out.u64(s.nullCount);
    out.u64(s.distinct);
    if (!hasRange) continue;
    if (numeric) {
      out.f64(s.min!);
      out.f64(s.max!);
    } else {
      out.u32(s.minLength!);
      out.u32(s.maxLength!);
      out.text(s.minText!);
      out.text(s.maxText!);
    }
  }
  return out.done();
}

/** The footer bytes (body + trailer) for the given extensions. */
export function encodeFooter(ext: {
  checksums?: ArrayLike<number>;
  statistics?: readonly ColumnStatistics[];
  nulls?: ReadonlyMap<number, Uint8Array>;
  dictionaries?: Dictionaries;
}): Uint8Array {
  const records: Array<[kind: number, payload: Uint8Array]> = [];
  if (ext.checksums) {
    const payload = new Growable();
    payload.u8(CHECKSUM_CRC32);
    payload.u8(0);
    payload.u16(0);
    payload.u32(ext.checksums.length);
    for (let i = 0; i < ext.checksums.length; i++) payload.u32(ext.checksums[i]);
    records.push([EXTENSION_KINDS.checksums, payload.done()]);
  }
  if (ext.statistics) records.push([EXTENSION_KINDS.statistics, encodeStatistics(ext.statistics)]);
  if (ext.nulls && ext.nulls.size > 0) {
    const payload = new Growable();
    payload.u32(ext.nulls.size);
    for (const [column, bitmap] of [...ext.nulls].sort((a, b) => a[0] - b[0])) {
      payload.u32(column);
      payload.u32(bitmap.length);
      payload.raw(bitmap);
    }
    records.push([EXTENSION_KINDS.nulls, payload.done()]);
  }
  if (ext.dictionaries && ext.dictionaries.size > 0)
    records.push([EXTENSION_KINDS.dictionaries, encodeDictionaries(ext.dictionaries)]);
  const out = new Growable();
  for (const [kind, payload] of records) {
    out.u16(kind);
    out.u16(1);
    out.u32(payload.length);
    out.raw(payload);
  }
  const bodyLength = out.length;
  out.u64(bodyLength);
  out.u16(FOOTER_VERSION);
  out.u16(records.length);
  for (let i = 0; i < 4; i++) out.u8(FOOTER_MAGIC.charCodeAt(i));
  return out.done();
}

export interface FooterWarning {
  code: string;
  message: string;
  offset: number;
}

/**
 * Reads the footer if the file has one (undefined otherwise). Structural defects of a
 * present footer are FormatErrors; skipped records and a newer footer version are warnings.
 */
export async function readExtensions(
  source: ByteSource,
  columns: readonly ScbfColumn[],
  metaTableEnd: number,
  warnings: FooterWarning[] = [],
  options: ReadOptions = {},
): Promise<ScbfExtensions | undefined> {
  const end = blocksEnd(columns, metaTableEnd);
  if (source.size - end < TRAILER_LENGTH) return undefined;
  const trailerAt = source.size - TRAILER_LENGTH;
  const trailer = await source.read(trailerAt, TRAILER_LENGTH, options);
  const magic = String.fromCharCode(...trailer.subarray(12, 16));
  if (magic !== FOOTER_MAGIC) return undefined;
  const view = new DataView(trailer.buffer, trailer.byteOffset, TRAILER_LENGTH);
  const footerError = formatErrors(FORMAT, source.name);
  const fail = (code: ErrorCode, message: string, at: number) =>
    footerError(code, `extension footer: ${message}`, at);
  const bodyLength = Number(view.getBigUint64(0, true));
  const footerVersion = view.getUint16(8, true);
  const count = view.getUint16(10, true);
  if (!Number.isSafeInteger(bodyLength) || bodyLength > trailerAt - end) {
    throw fail(
      'OutOfBounds',
      `body of ${bodyLength} bytes would start inside the column blocks (they end at ${end})`,
      trailerAt,
    );
  }
  if (footerVersion > FOOTER_VERSION) {
    warnings.push({
      code: 'NewerExtensionFooter',
      message: `extension footer version ${footerVersion}, this reader knows ${FOOTER_VERSION}: records it does not know are skipped`,
      offset: trailerAt + 8,
    });
  }
  const bodyOffset = trailerAt - bodyLength;
  const body = await readExact(source, bodyOffset, bodyLength, {
    format: FORMAT,
    what: 'extension footer',
    signal: options.signal,
  });
  const out: ScbfExtensions = { footerVersion, bodyOffset, skipped: [] };
  let pos = 0;
  for (let r = 0; r < count; r++) {
    if (pos + RECORD_HEADER > bodyLength)
      throw fail('Truncated', `record ${r} of ${count} starts past the footer body`, bodyOffset + pos);
    const rv = new DataView(body.buffer, body.byteOffset + pos, RECORD_HEADER);
    const kind = rv.getUint16(0, true);
    const version = rv.getUint16(2, true);
    const length = rv.getUint32(4, true);
    const at = bodyOffset + pos + RECORD_HEADER;
    if (pos + RECORD_HEADER + length > bodyLength)
      throw fail('Truncated', `record ${r} (kind ${kind}) runs past the footer body`, at - RECORD_HEADER);
    const payload = body.subarray(pos + RECORD_HEADER, pos + RECORD_HEADER + length);
    const known =
      kind === EXTENSION_KINDS.checksums ||
      kind === EXTENSION_KINDS.statistics ||
      kind === EXTENSION_KINDS.nulls ||
      kind === EXTENSION_KINDS.dictionaries;
    if (!known || version !== 1) {
      out.skipped.push({ kind, version, offset: at - RECORD_HEADER, length });
      warnings.push({
        code: 'UnknownExtension',
        message: `extension record kind ${kind} version ${version} is not known to this reader: ignored`,
        offset: at - RECORD_HEADER,
      });
    } else if (kind === EXTENSION_KINDS.checksums) {
      out.checksums = decodeChecksums(payload, blocksInOrder(columns).length, at, fail);
    } else if (kind === EXTENSION_KINDS.statistics) {
      out.statistics = decodeStatistics(payload, columns, at, source.name);
    } else if (kind === EXTENSION_KINDS.nulls) {
      out.nulls = decodeNulls(payload, columns, at, source.name);
    } else {
      out.dictionaries = decodeDictionaries(payload, columns, at, source.name);
    }
    pos += RECORD_HEADER + length;
  }
  if (pos !== bodyLength)
    throw fail(
      'CountMismatch',
      `${count} records use ${pos} of the body's ${bodyLength} bytes`,
      bodyOffset + pos,
    );
  return out;
}

function decodeChecksums(
  payload: Uint8Array,
  blocks: number,
  at: number,
  fail: (code: 'CountMismatch' | 'InvalidValue', message: string, at: number) => FormatError,
): Uint32Array {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  if (payload.length < 8) throw fail('CountMismatch', 'checksum record shorter than its 8-byte head', at);
  const algorithm = view.getUint8(0);
  if (algorithm !== CHECKSUM_CRC32)
    throw fail('InvalidValue', `checksum algorithm ${algorithm} is not CRC-32 (1)`, at);
  const count = view.getUint32(4, true);
  if (count !== blocks || payload.length !== 8 + 4 * count)
    throw fail(
      'CountMismatch',
      `checksum record holds ${count} checksums in ${payload.length} bytes for ${blocks} blocks`,
      at + 4,
    );
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getUint32(8 + 4 * i, true);
  return out;
}

function decodeStatistics(
  payload: Uint8Array,
  columns: readonly ScbfColumn[],
  at: number,
  file: string,
): ColumnStatistics[] {
  const cursor = new Cursor(payload, { format: FORMAT, file, base: at });
  const count = cursor.u32();
  if (count !== columns.length)
    throw new FormatError(
      'CountMismatch',
      `statistics for ${count} columns, the file has ${columns.length}`,
      { offset: at, file, format: FORMAT },
    );
  const out: ColumnStatistics[] = [];
  for (const column of columns) {
    const typeAt = at + cursor.pos;
    const type = TYPE_NAMES[cursor.u8()] as ScbfType | undefined;
    if (type !== column.type)
      throw new FormatError(
        'SchemaMismatch',
        `statistics of column "${column.name}" are for type ${type}, the column is ${column.type}`,
        { offset: typeAt, file, format: FORMAT },
      );
    const hasRange = cursor.u8() === 1;
    cursor.skip(2);
    const s: ColumnStatistics = { type, nullCount: cursor.u64Number(), distinct: cursor.u64Number() };
    if (hasRange) {
      if (type === 'utf8') {
        s.minLength = cursor.u32();
        s.maxLength = cursor.u32();
        s.minText = cursor.utf8(cursor.u32());
        s.maxText = cursor.utf8(cursor.u32());
      } else {
        s.min = cursor.f64();
        s.max = cursor.f64();
      }
    }
    out.push(s);
  }
  if (cursor.pos !== payload.length)
    throw new FormatError(
      'CountMismatch',
      `statistics record has ${payload.length - cursor.pos} bytes left over`,
      { offset: at + cursor.pos, file, format: FORMAT },
    );
  return out;
}

function decodeNulls(
  payload: Uint8Array,
  columns: readonly ScbfColumn[],
  at: number,
  file: string,
): Map<number, Uint8Array> {
  const cursor = new Cursor(payload, { format: FORMAT, file, base: at });
  const where = (offset: number) => ({ offset, file, format: FORMAT });
  const count = cursor.u32();
  const out = new Map<number, Uint8Array>();
  for (let i = 0; i < count; i++) {
    const { column, index, columnAt } = recordColumn(cursor, columns, 'null bitmap', file);
    if (column.type === 'utf8')
      throw new FormatError(
        'SchemaMismatch',
        `null bitmap for utf8 column "${column.name}" (nulls are for int32/float64)`,
        where(columnAt),
      );
    if (out.has(index))
      throw new FormatError(
        'InvalidValue',
        `second null bitmap for column "${column.name}"`,
        where(columnAt),
      );
    const length = cursor.u32();
    if (length !== Math.ceil(column.count / 8))
      throw new FormatError(
        'CountMismatch',
        `null bitmap of column "${column.name}" has ${length} bytes, ${column.count} rows need ${Math.ceil(column.count / 8)}`,
        where(columnAt + 4),
      );
    out.set(index, cursor.bytesView(length).slice());
  }
  if (cursor.remaining !== 0)
    throw new FormatError(
      'CountMismatch',
      `null bitmap record has ${cursor.remaining} bytes left over`,
      where(cursor.offset),
    );
  return out;
}
