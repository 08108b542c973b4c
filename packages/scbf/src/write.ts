import { type ByteSink, FormatError, formatErrors } from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { deflateBlock } from '#zlib';
import { type ExtensionChoice, footerForBlocks } from './extend.js';
import { deflatePython } from './zlib.js';
import { FORMAT, PREFIX_LENGTH, type ScbfType, SUFFIX_LENGTH, TYPE_CODES } from './layout.js';
import { SCBF_MAGIC } from './magic.js';
import { pyJsonDumps } from './python.js';

/** A column to write: values as a typed array or a plain array, with an optional type. */
export interface ColumnInput {
  name: string;
  /** Inferred when absent: Int32Array → int32, Float64Array → float64, strings → utf8, numbers → int32 if all fit, else float64. */
  type?: ScbfType;
  values: Int32Array | Float64Array | readonly number[] | readonly string[];
}

export interface WriteOptions {
  /** zlib level 0–9 (default 6, what Python's zlib.compress uses). */
  level?: number;
  /**
   * Deflate as Python's zlib.compress does (classic zlib via pako), so the file is byte-identical
   * to the upstream writer's for the same content. Slower: pako on the calling thread instead of
   * node:zlib. Off by default; readers accept either.
   */
  pythonZlib?: boolean;
  /**
   * Append the extension footer (block checksums and column statistics; README "Extensions").
   * Off by default: without it the file is exactly what it always was.
   */
  extensions?: boolean | ExtensionChoice;
}

/** Sizes of one block, as the metadata table records them. */
export interface BlockSizes {
  uncompressedSize: number;
  compressedSize: number;
}

export interface ColumnPlan {
  name: string;
  type: ScbfType;
  /** Numeric: [values]; utf8: [offsets, strings]. */
  blocks: BlockSizes[];
}

const encoder = new TextEncoder();

/** schema_json as S2 writes it: Python json.dumps, keys `name` then `type`. */
export function schemaJson(columns: readonly { name: string; type: ScbfType }[]): string {
  return pyJsonDumps({ columns: columns.map((c) => ({ name: c.name, type: c.type })) });
}

const writerError = formatErrors(FORMAT);

/** Rejects a name the file cannot hold exactly: lone surrogates (not UTF-8) or more than 65535 bytes. */
export function checkName(name: string): Uint8Array {
  if (typeof name !== 'string')
    throw writerError('InvalidValue', `a column name must be a string, got ${typeof name}`);
  if (!isWellFormed(name))
    throw writerError(
      'InvalidValue',
      `column name ${JSON.stringify(name)} contains a lone surrogate, which UTF-8 cannot hold`,
    );
  const bytes = encoder.encode(name);
  if (bytes.byteLength > 0xffff)
    throw writerError('InvalidValue', `column name is ${bytes.byteLength} bytes; SCBF allows at most 65535`);
  return bytes;
}

export function isWellFormed(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  if (native) return native.call(text);
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/**
 * The header and metadata table for columns whose block sizes are known, with blocks laid
 * out contiguously right after the table in column order (S1). Returns the bytes and where
 * each block goes.
 */
export function encodeHead(
  columns: readonly ColumnPlan[],
  totalRows: number,
): { head: Uint8Array; blockOffsets: number[][] } {
  const schemaBytes = encoder.encode(schemaJson(columns));
  const names = columns.map((c) => checkName(c.name));
  const headerLength = PREFIX_LENGTH + schemaBytes.byteLength + SUFFIX_LENGTH;
  let tableLength = 0;
  for (let i = 0; i < columns.length; i++)
    tableLength += 11 + names[i].byteLength + 24 * columns[i].blocks.length;
  const head = new Uint8Array(headerLength + tableLength);
  const view = new DataView(head.buffer);
  let pos = 0;
  for (let i = 0; i < 8; i++) head[pos++] = SCBF_MAGIC.charCodeAt(i);
  view.setUint32(pos, schemaBytes.byteLength, true);
  pos += 4;
  head.set(schemaBytes, pos);
  pos += schemaBytes.byteLength;
  view.setUint32(pos, columns.length, true);
  setU64(view, pos + 4, totalRows);
  setU64(view, pos + 12, headerLength);
  pos += SUFFIX_LENGTH;
  let blockAt = head.byteLength;
  const blockOffsets: number[][] = [];
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i];
    view.setUint16(pos, names[i].byteLength, true);
    head.set(names[i], pos + 2);
    pos += 2 + names[i].byteLength;
    head[pos] = TYPE_CODES[column.type];
    setU64(view, pos + 1, totalRows);
    pos += 9;
    const offsets: number[] = [];
    for (const block of column.blocks) {
      setU64(view, pos, block.uncompressedSize);
      setU64(view, pos + 8, block.compressedSize);
      setU64(view, pos + 16, blockAt);
      offsets.push(blockAt);
      blockAt += block.compressedSize;
      pos += 24;
    }
    blockOffsets.push(offsets);
  }
  return { head, blockOffsets };
}

function setU64(view: DataView, pos: number, value: number): void {
  view.setUint32(pos, value % 0x100000000, true);
  view.setUint32(pos + 4, Math.floor(value / 0x100000000), true);
}

/** The type a column of JS values gets when none is given. */
export function inferValuesType(values: ColumnInput['values']): ScbfType {
  if (values instanceof Int32Array) return 'int32';
  if (values instanceof Float64Array) return 'float64';
  if (values.length === 0) return 'utf8';
  if (typeof values[0] === 'string') return 'utf8';
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (!(Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 && !Object.is(v, -0))) return 'float64';
  }
  return 'int32';
}

/** The uncompressed blocks of one column (numeric: [values]; utf8: [offsets, strings]). */
export function encodeColumnBlocks(column: ColumnInput, type: ScbfType): Uint8Array[] {
  const { values, name } = column;
  const n = values.length;
  if (type === 'int32') {
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) {
        throw writerError('InvalidValue', `column "${name}" row ${i}: ${JSON.stringify(v)} is not an int32`);
      }
      out[i] = v;
    }
    return [new Uint8Array(out.buffer)];
  }
  if (type === 'float64') {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (typeof v !== 'number')
        throw writerError('InvalidValue', `column "${name}" row ${i}: ${JSON.stringify(v)} is not a number`);
      out[i] = v;
    }
    return [new Uint8Array(out.buffer)];
  }
  const offsets = new Uint32Array(n + 1);
  const parts: Uint8Array[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v !== 'string')
      throw writerError('InvalidValue', `column "${name}" row ${i}: ${JSON.stringify(v)} is not a string`);
    if (!isWellFormed(v))
      throw writerError(
        'InvalidValue',
        `column "${name}" row ${i} contains a lone surrogate, which UTF-8 cannot hold`,
      );
    const bytes = encoder.encode(v);
    total += bytes.byteLength;
    if (total > 0xffffffff)
      throw writerError(
        'InvalidValue',
        `column "${name}" holds more than 4 GiB of text; u32 offsets cannot address it`,
      );
    parts.push(bytes);
    offsets[i + 1] = total;
  }
  const strings = new Uint8Array(total);
  let pos = 0;
  for (const part of parts) {
    strings.set(part, pos);
    pos += part.byteLength;
  }
  return [new Uint8Array(offsets.buffer), strings];
}

/** Checks names, lengths and types; returns each column's type. */
function planTypes(columns: readonly ColumnInput[]): { types: ScbfType[]; rows: number } {
  const rows = columns.length ? columns[0].values.length : 0;
  const types = columns.map((column) => {
    checkName(column.name);
    if (column.values.length !== rows) {
      throw new FormatError(
        'CountMismatch',
        `column "${column.name}" has ${column.values.length} values but "${columns[0].name}" has ${rows}`,
        { format: FORMAT },
      );
    }
    if (column.type !== undefined && !(column.type in TYPE_CODES))
      throw writerError(
        'InvalidValue',
        `column "${column.name}": unknown type ${JSON.stringify(column.type)}`,
      );
    return column.type ?? inferValuesType(column.values);
  });
  return { types, rows };
}

/** Writes an SCBF file into a sink (memory, or core/node's AtomicFile), one column at a time. */
export async function writeScbf(
  sink: ByteSink,
  columns: readonly ColumnInput[],
  options: WriteOptions = {},
): Promise<void> {
  const { types, rows } = planTypes(columns);
  const rawBlocks = columns.map((column, i) => encodeColumnBlocks(column, types[i]));
  const compressed = rawBlocks.map((blocks) =>
    blocks.map((raw) => ({
      raw: raw.byteLength,
      bytes: (options.pythonZlib ? deflatePython : deflateBlock)(raw, options.level),
    })),
  );
  const plans: ColumnPlan[] = columns.map((column, i) => ({
    name: column.name,
    type: types[i],
    blocks: compressed[i].map((b) => ({ uncompressedSize: b.raw, compressedSize: b.bytes.byteLength })),
  }));
  const { head } = encodeHead(plans, rows);
  await sink.write(head);
  for (const blocks of compressed) for (const block of blocks) await sink.write(block.bytes);
  if (options.extensions) {
    const choice = options.extensions === true ? {} : options.extensions;
    const stored = compressed.map((blocks) => blocks.map((b) => b.bytes));
    await sink.write(footerForBlocks(types, rawBlocks, stored, choice));
  }
}

/** An SCBF file in memory. */
export async function encodeScbf(
  columns: readonly ColumnInput[],
  options: WriteOptions = {},
): Promise<Uint8Array> {
  const sink = new MemorySink();
  await writeScbf(sink, columns, options);
  return sink.bytes();
}

/**
 * Row objects → columns. Column order is `columns` when given, else the keys of the first
 * row; every row must have every column.
 */
export function columnsFromRows(
  rows: readonly Record<string, number | string>[],
  options: { columns?: readonly string[]; types?: Record<string, ScbfType> } = {},
): ColumnInput[] {
  const names = options.columns ?? (rows.length ? Object.keys(rows[0]) : []);
  return names.map((name) => {
    const values = rows.map((row, i) => {
      if (!(name in row)) throw writerError('InvalidValue', `row ${i} has no value for column "${name}"`);
      return row[name];
    });
    return { name, type: options.types?.[name], values: values as number[] | string[] };
  });
}
