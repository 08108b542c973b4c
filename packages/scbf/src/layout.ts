import {
  type ByteSource,
  Cursor,
  checkRange,
  decodeUtf8,
  type ErrorCode,
  FormatError,
  type ReadOptions,
  readExact,
  readU64,
  readU64Big,
} from '@binscope/core';
import { SCBF_MAGIC } from './magic.js';

/**
 * The parsed header and column metadata table, and every structural check on them
 * (S1, S2, S5's counts, block bounds), shared by the reader and by `validate`.
 */

export const FORMAT = 'scbf';
export type ScbfType = 'int32' | 'float64' | 'utf8';
export const TYPE_CODES: Record<ScbfType, number> = { int32: 1, float64: 2, utf8: 3 };
export const TYPE_NAMES: Record<number, ScbfType> = { 1: 'int32', 2: 'float64', 3: 'utf8' };
export const TYPE_WIDTH: Record<'int32' | 'float64', number> = { int32: 4, float64: 8 };

/** magic(8) + schema_len(4): what comes before schema_json. */
export const PREFIX_LENGTH = 12;
/** num_columns(4) + total_rows(8) + meta_table_offset(8): what follows schema_json. */
export const SUFFIX_LENGTH = 20;
/** A metadata entry without its name: name_len(2) + type_code(1) + count(8). */
export const ENTRY_FIXED = 11;
/** The smallest possible entry (numeric, empty name): fixed part + three u64. */
export const MIN_ENTRY = ENTRY_FIXED + 24;
/**
 * zlib cannot expand data more than ~1032:1, so a declared uncompressed size beyond this
 * ratio is a lie: refuse it before anything is allocated for it (A4).
 */
export const MAX_DEFLATE_RATIO = 1032;

export type BlockRole = 'values' | 'offsets' | 'strings';

export interface ScbfBlock {
  role: BlockRole;
  /** Absolute offset of the compressed block. */
  offset: number;
  compressedSize: number;
  /** Declared inflated length. */
  uncompressedSize: number;
  /** Absolute offset of this block's (uncomp, comp, offset) triple in the metadata entry. */
  fieldOffset: number;
}

export interface ScbfColumn {
  index: number;
  name: string;
  type: ScbfType;
  typeCode: number;
  /** Row count as stored (S5: equals total_rows in a valid file). */
  count: number;
  /** Absolute offset and length of the metadata entry. */
  entryOffset: number;
  /** Length of the stored name in bytes (col_name_len). */
  nameLength: number;
  entryLength: number;
  /** Numeric: [values]; utf8: [offsets, strings]. */
  blocks: ScbfBlock[];
}

export interface ScbfSchemaColumn {
  name: string;
  type: string;
}

export interface ScbfHeader {
  magic: string;
  schemaLength: number;
  /** The schema text exactly as stored. */
  schemaJson: string;
  /** Parsed schema_json (undefined when it is not valid JSON). */
  schema: { columns: ScbfSchemaColumn[] } | undefined;
  numColumns: number;
  totalRows: number;
  metaTableOffset: number;
  metaTableEnd: number;
  /** Where the header ends (= 32 + schema_len). */
  headerLength: number;
}

/** A2's natural order: earlier phases are reported first. */
export const Phase = {
  magic: 0,
  version: 1,
  header: 2,
  alignment: 3,
  bounds: 4,
  crossref: 5,
  payload: 6,
} as const;

export interface Finding {
  phase: number;
  error: FormatError;
}

export interface ScbfLayout {
  source: ByteSource;
  header: ScbfHeader;
  columns: ScbfColumn[];
  /** Every structural defect found, in A2 order (empty for a sound file). */
  findings: Finding[];
  /** Indexes of columns whose blocks cannot be read as declared (out of bounds, wrong counts). */
  defective: Set<number>;
}

export function scbfError(
  code: ErrorCode,
  message: string,
  source: { name: string },
  offset?: number,
): FormatError {
  return new FormatError(code, message, { offset, file: source.name, format: FORMAT });
}

/** Sorts by phase, then offset, keeping discovery order for ties. */
export function sortFindings(findings: Finding[]): Finding[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => a.f.phase - b.f.phase || (a.f.error.offset ?? 0) - (b.f.error.offset ?? 0) || a.i - b.i)
    .map(({ f }) => f);
}

/** Raised inside parseLayout for a defect that makes the rest unreadable. */
class Fatal extends Error {
  constructor(readonly finding: Finding) {
    super(finding.error.message);
  }
}

/**
 * Reads the header and the metadata table (nothing else) and checks them. Structural defects
 * are collected as findings; a defect that makes the rest unreadable stops the parse with the
 * findings so far. Never allocates more than the file holds.
 */
export async function parseLayout(
  source: ByteSource,
  options: ReadOptions = {},
): Promise<ScbfLayout | { fatal: Finding[] }> {
  const findings: Finding[] = [];
  const add = (phase: number, code: ErrorCode, message: string, offset?: number) =>
    findings.push({ phase, error: scbfError(code, message, source, offset) });
  const fatal = (phase: number, code: ErrorCode, message: string, offset?: number): never => {
    throw new Fatal({ phase, error: scbfError(code, message, source, offset) });
  };
  const read = (offset: number, length: number, what: string) =>
    readExact(source, offset, length, { format: FORMAT, what, signal: options.signal });
  const rethrowAsFatal = (error: unknown, phase: number): never => {
    if (error instanceof Fatal) throw error;
    if (error instanceof FormatError) throw new Fatal({ phase, error });
    throw error;
  };

  try {
    // Magic and version (S1).
    const head = await source.read(0, Math.min(source.size, PREFIX_LENGTH), options);
    checkMagic(head, fatal);

    const schemaLength = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(8, true);
    const headerLength = PREFIX_LENGTH + schemaLength + SUFFIX_LENGTH;
    const headerBytes = await read(0, headerLength, `header (schema_len ${schemaLength})`).catch(
      (error: unknown) => rethrowAsFatal(error, Phase.bounds),
    );
    const cursor = new Cursor(headerBytes, { file: source.name, format: FORMAT });
    cursor.seek(PREFIX_LENGTH);
    const schemaBytes = cursor.bytesView(schemaLength);
    const schemaJson = new TextDecoder('utf-8', { ignoreBOM: true }).decode(schemaBytes);
    const schema = parseSchema(schemaBytes, source, add);
    const numColumns = cursor.u32();
    const totalRowsAt = cursor.offset;
    // 64-bit fields in messages: the exact value, not the nearest double.
    const totalRowsText = readU64Big(cursor.view, cursor.pos, true).toString();
    const totalRows = readU64(cursor.view, cursor.pos, true);
    cursor.skip(8);
    const metaAt = cursor.offset;
    const metaText = readU64Big(cursor.view, cursor.pos, true).toString();
    const metaTableOffset = readU64(cursor.view, cursor.pos, true);
    cursor.skip(8);
    if (!Number.isSafeInteger(totalRows))
      add(Phase.header, 'InvalidValue', `total_rows ${totalRowsText} is beyond any file`, totalRowsAt);

    // The metadata table: inside the file and not over the header (S1: readers seek to it).
    if (metaTableOffset < headerLength) {
      fatal(
        Phase.bounds,
        'OutOfBounds',
        `meta_table_offset ${metaText} points into the header (which ends at ${headerLength})`,
        metaAt,
      );
    }
    if (
      !Number.isSafeInteger(metaTableOffset) ||
      metaTableOffset > source.size ||
      (metaTableOffset === source.size && numColumns > 0)
    ) {
      fatal(
        Phase.bounds,
        'OutOfBounds',
        `meta_table_offset ${metaText} is past the end of the file (${source.size} bytes)`,
        metaAt,
      );
    }
    // A4: the column count must fit the bytes that exist before anything is sized by it.
    if (numColumns * MIN_ENTRY > source.size - metaTableOffset) {
      fatal(
        Phase.bounds,
        'Truncated',
        `num_columns ${numColumns} needs at least ${numColumns * MIN_ENTRY} bytes of metadata from ${metaText}, but the file ends at ${source.size}`,
        metaTableOffset,
      );
    }

    const { columns, end: metaTableEnd } = await parseMetaTable(
      source,
      metaTableOffset,
      numColumns,
      tableLengthFromSchema(schema, numColumns),
      add,
      fatal,
      read,
    );

    const header: ScbfHeader = {
      magic: SCBF_MAGIC,
      schemaLength,
      schemaJson,
      schema,
      numColumns,
      totalRows,
      metaTableOffset,
      metaTableEnd,
      headerLength,
    };
    const defective = new Set<number>();
    checkBlocks(source, header, columns, add, defective);
    checkCrossReferences(header, columns, add, defective);
    return { source, header, columns, findings: sortFindings(findings), defective };
  } catch (error) {
    if (error instanceof Fatal) return { fatal: sortFindings([...findings, error.finding]) };
    throw error;
  }
}

function checkMagic(
  head: Uint8Array,
  fatal: (phase: number, code: ErrorCode, message: string, offset?: number) => never,
): void {
  const magic = Uint8Array.from(SCBF_MAGIC, (c) => c.charCodeAt(0));
  const shown = Array.from(head.subarray(0, 8), (b) =>
    b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`,
  ).join('');
  const n = Math.min(head.byteLength, 8);
  let matches = true;
  for (let i = 0; i < n; i++) if (head[i] !== magic[i]) matches = false;
  if (!matches) {
    // "SCBFv<digits>" with another number is a version we do not read; anything else is not SCBF.
    const text = String.fromCharCode(...head.subarray(0, n));
    const version = /^SCBFv([0-9]+)\0*$/.exec(text);
    if (version && version[1] !== '1' && n === 8) {
      fatal(
        Phase.version,
        'UnsupportedVersion',
        `SCBF version ${version[1]} is not supported (this reader reads SCBFv1)`,
        5,
      );
    }
    fatal(
      Phase.magic,
      'BadMagic',
      `not an SCBF file: the first bytes are "${shown}", expected "SCBFv1\\0\\0"`,
      0,
    );
  }
  if (head.byteLength < PREFIX_LENGTH) {
    fatal(
      Phase.bounds,
      'Truncated',
      `the file ends after ${head.byteLength} bytes, inside the ${PREFIX_LENGTH}-byte header start`,
      head.byteLength >= 8 ? 8 : 0,
    );
  }
}

function parseSchema(
  bytes: Uint8Array,
  source: ByteSource,
  add: (phase: number, code: ErrorCode, message: string, offset?: number) => void,
): ScbfHeader['schema'] {
  let text: string;
  try {
    text = decodeUtf8(bytes, {
      offset: PREFIX_LENGTH,
      file: source.name,
      format: FORMAT,
      what: 'schema_json',
    });
  } catch (error) {
    add(Phase.header, 'InvalidValue', (error as FormatError).detail, PREFIX_LENGTH);
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    add(
      Phase.header,
      'InvalidValue',
      `schema_json is not valid JSON: ${(error as Error).message}`,
      PREFIX_LENGTH,
    );
    return undefined;
  }
  const columns = (parsed as { columns?: unknown })?.columns;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Array.isArray(columns)) {
    add(Phase.header, 'InvalidValue', 'schema_json must be an object with a "columns" array', PREFIX_LENGTH);
    return undefined;
  }
  for (const [i, column] of columns.entries()) {
    const c = column as { name?: unknown; type?: unknown };
    if (typeof c !== 'object' || c === null || typeof c.name !== 'string' || typeof c.type !== 'string') {
      add(
        Phase.header,
        'InvalidValue',
        `schema_json column ${i} must be an object with string "name" and "type"`,
        PREFIX_LENGTH,
      );
      return undefined;
    }
  }
  return { columns: columns as ScbfSchemaColumn[] };
}

/** The metadata table's length if it agrees with schema_json, so open reads exactly the table. */
function tableLengthFromSchema(schema: ScbfHeader['schema'], numColumns: number): number | undefined {
  if (!schema || schema.columns.length !== numColumns) return undefined;
  let length = 0;
  for (const column of schema.columns) {
    if (column.type !== 'int32' && column.type !== 'float64' && column.type !== 'utf8') return undefined;
    length += ENTRY_FIXED + utf8Length(column.name) + (column.type === 'utf8' ? 48 : 24);
  }
  return length;
}

const encoder = new TextEncoder();
function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

async function parseMetaTable(
  source: ByteSource,
  start: number,
  numColumns: number,
  expectedLength: number | undefined,
  add: (phase: number, code: ErrorCode, message: string, offset?: number) => void,
  fatal: (phase: number, code: ErrorCode, message: string, offset?: number) => never,
  read: (offset: number, length: number, what: string) => Promise<Uint8Array>,
): Promise<{ columns: ScbfColumn[]; end: number }> {
  const available = source.size - start;
  // Entries are variable-length (names); read a window that usually holds the whole table
  // and widen it only if a long name runs past it.
  let windowLength = Math.min(available, expectedLength ?? numColumns * 96 + 4096);
  for (;;) {
    const bytes = await read(start, windowLength, 'column metadata table');
    const cursor = new Cursor(bytes, { base: start, file: source.name, format: FORMAT });
    const columns: ScbfColumn[] = [];
    const pending: Array<() => void> = [];
    let needMore = false;
    for (let index = 0; index < numColumns; index++) {
      const entryOffset = cursor.offset;
      if (cursor.remaining < ENTRY_FIXED) {
        needMore = true;
        break;
      }
      const nameLength = cursor.u16();
      if (cursor.remaining < nameLength + 9) {
        needMore = true;
        break;
      }
      const nameAt = cursor.offset;
      const nameBytes = cursor.bytesView(nameLength);
      let name: string;
      try {
        name = decodeUtf8(nameBytes, { what: `column ${index} name` });
      } catch {
        name = new TextDecoder('utf-8', { ignoreBOM: true }).decode(nameBytes);
        const shownName = name;
        pending.push(() =>
          add(Phase.header, 'InvalidValue', `column ${index} name "${shownName}" is not valid UTF-8`, nameAt),
        );
      }
      const typeAt = cursor.offset;
      const typeCode = cursor.u8();
      const type = TYPE_NAMES[typeCode];
      if (!type) {
        // Without a known type the entry's length is unknown: nothing after it can be read.
        for (const f of pending) f();
        fatal(
          Phase.header,
          'InvalidValue',
          `column ${index} ("${name}") has type_code ${typeCode}; known codes are 1=int32, 2=float64, 3=utf8`,
          typeAt,
        );
      }
      const countAt = cursor.offset;
      const countText = readU64Big(cursor.view, cursor.pos, true).toString();
      const count = readU64(cursor.view, cursor.pos, true);
      cursor.skip(8);
      const nBlocks = type === 'utf8' ? 2 : 1;
      if (cursor.remaining < nBlocks * 24) {
        needMore = true;
        break;
      }
      if (!Number.isSafeInteger(count)) {
        pending.push(() =>
          add(
            Phase.header,
            'InvalidValue',
            `column "${name}" count ${countText} is beyond any file`,
            countAt,
          ),
        );
      }
      const roles: BlockRole[] = type === 'utf8' ? ['offsets', 'strings'] : ['values'];
      const blocks = roles.map((role) => {
        const fieldOffset = cursor.offset;
        const uncompressedSize = readU64(cursor.view, cursor.pos, true);
        const compressedSize = readU64(cursor.view, cursor.pos + 8, true);
        const offset = readU64(cursor.view, cursor.pos + 16, true);
        cursor.skip(24);
        return { role, offset, compressedSize, uncompressedSize, fieldOffset };
      });
      columns.push({
        index,
        name,
        type,
        typeCode,
        count,
        entryOffset,
        nameLength,
        entryLength: cursor.offset - entryOffset,
        blocks,
      });
    }
    if (!needMore) {
      for (const f of pending) f();
      return { columns, end: cursor.offset };
    }
    if (windowLength >= available) {
      for (const f of pending) f();
      fatal(
        Phase.bounds,
        'Truncated',
        `the column metadata table (${numColumns} entries from ${start}) runs past the end of the file (${source.size} bytes)`,
        cursor.offset,
      );
    }
    windowLength = Math.min(available, windowLength * 4 + 4096);
  }
}

/** Bounds (A3): every block inside the file and outside the header and metadata table. */
function checkBlocks(
  source: ByteSource,
  header: ScbfHeader,
  columns: ScbfColumn[],
  add: (phase: number, code: ErrorCode, message: string, offset?: number) => void,
  defective: Set<number>,
): void {
  for (const column of columns) {
    for (const block of column.blocks) {
      const what = `column "${column.name}" ${block.role} block`;
      try {
        checkRange(source, block.offset, block.compressedSize, { format: FORMAT, what });
      } catch (error) {
        const e = error as FormatError;
        // Truncated: where the cut-off block starts; OutOfBounds: the field that points out of the file.
        add(Phase.bounds, e.code, e.detail, e.code === 'Truncated' ? block.offset : block.fieldOffset + 16);
        defective.add(column.index);
        continue;
      }
      const end = block.offset + block.compressedSize;
      const overlaps = (a: number, b: number) => block.offset < b && end > a && block.compressedSize > 0;
      if (overlaps(0, header.headerLength) || overlaps(header.metaTableOffset, header.metaTableEnd)) {
        add(
          Phase.bounds,
          'OutOfBounds',
          `${what} [${block.offset}, ${end}) lies inside the header or the column metadata table [${header.metaTableOffset}, ${header.metaTableEnd})`,
          block.fieldOffset + 16,
        );
        defective.add(column.index);
      }
    }
  }
}

/** S2 (schema ↔ metadata) and S5 (counts, declared sizes). */
function checkCrossReferences(
  header: ScbfHeader,
  columns: ScbfColumn[],
  add: (phase: number, code: ErrorCode, message: string, offset?: number) => void,
  defective: Set<number>,
): void {
  const schemaColumns = header.schema?.columns;
  if (schemaColumns) {
    if (schemaColumns.length !== header.numColumns) {
      add(
        Phase.crossref,
        'SchemaMismatch',
        `schema_json lists ${schemaColumns.length} columns but num_columns is ${header.numColumns}`,
        PREFIX_LENGTH,
      );
    }
    const n = Math.min(schemaColumns.length, columns.length);
    for (let i = 0; i < n; i++) {
      const s = schemaColumns[i];
      const c = columns[i];
      if (s.name !== c.name) {
        add(
          Phase.crossref,
          'SchemaMismatch',
          `column ${i} is "${s.name}" in schema_json but "${c.name}" in the metadata table`,
          c.entryOffset,
        );
      } else if (s.type !== c.type) {
        add(
          Phase.crossref,
          'SchemaMismatch',
          `column "${c.name}" is ${s.type} in schema_json but ${c.type} (type_code ${c.typeCode}) in the metadata table`,
          c.entryOffset + 2 + c.nameLength,
        );
      }
    }
  }
  for (const column of columns) {
    const countAt = column.entryOffset + 3 + column.nameLength;
    // A count beyond 2^53 is already reported exactly; its rounded double would only mislead here.
    if (!Number.isSafeInteger(column.count) || !Number.isSafeInteger(header.totalRows)) {
      defective.add(column.index);
      continue;
    }
    if (column.count !== header.totalRows) {
      add(
        Phase.crossref,
        'CountMismatch',
        `column "${column.name}" has count ${column.count} but total_rows is ${header.totalRows}`,
        countAt,
      );
      defective.add(column.index);
      continue;
    }
    const expected =
      column.type === 'utf8' ? [(column.count + 1) * 4] : [column.count * TYPE_WIDTH[column.type]];
    const first = column.blocks[0];
    if (first.uncompressedSize !== expected[0]) {
      const field = column.type === 'utf8' ? 'off_uncomp_size' : 'uncomp_size';
      add(
        Phase.crossref,
        'CountMismatch',
        `column "${column.name}" declares ${field} ${first.uncompressedSize}, but ${column.count} ${column.type === 'utf8' ? 'rows need (count+1)×4 =' : `${column.type} values are`} ${expected[0]} bytes`,
        first.fieldOffset,
      );
      defective.add(column.index);
    }
    for (const block of column.blocks) {
      // S4: str_uncomp_size is advisory (the upstream writer stores an offset there); the
      // strings block is held to the ratio through its offsets when it is read.
      if (block.role === 'strings') continue;
      if (block.uncompressedSize > block.compressedSize * MAX_DEFLATE_RATIO + 64) {
        add(
          Phase.crossref,
          'CountMismatch',
          `column "${column.name}" ${block.role} block declares ${block.uncompressedSize} bytes from ${block.compressedSize} compressed bytes, more than zlib can produce`,
          block.fieldOffset,
        );
        defective.add(column.index);
      }
    }
  }
}
