import {
  type ByteSource,
  type FormatError,
  Phase,
  type ProblemList,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { Cursor, readU64, readU64Big } from '@binscope/core/binary';
import { checkBlocks, checkCrossReferences } from './layout-checks.js';
import { checkMagic, parseSchema } from './layout-header.js';
import { SCBF_MAGIC } from './magic.js';
import { parseMetaTable, tableLengthFromSchema } from './meta-table.js';

/**
 * The parsed header and column metadata table, and every structural check on them
 * (S1, S2, S5's counts, block bounds): one parse for the reader (read mode), `validate` and
 * `inspectTarget` (which draws whatever got parsed).
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
  /** The exact declared inflated length when it is above 2^53 (uncompressedSize is then rounded). */
  exactUncompressedSize?: bigint;
}

/**
 * A block whose offset and sizes are exact numbers: none above 2^53 (those are reported when
 * the metadata table is read). str_uncomp_size is advisory (S4) and not required.
 */
export function blockIsExact(block: ScbfBlock): boolean {
  return (
    Number.isSafeInteger(block.offset) &&
    Number.isSafeInteger(block.compressedSize) &&
    (block.role === 'strings' || Number.isSafeInteger(block.uncompressedSize))
  );
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

export interface ScbfLayout {
  source: ByteSource;
  header: ScbfHeader;
  columns: ScbfColumn[];
  /** Indexes of columns whose blocks cannot be read as declared (out of bounds, wrong counts). */
  defective: Set<number>;
  /** The bounds error of each block that lies outside the file or over the header (inspect marks it). */
  blockErrors: Map<ScbfBlock, FormatError>;
}

/** What the parse got to, kept when a defect stops it: inspect draws the header fields and entries. */
export interface LayoutProgress {
  /** The first bytes (magic, schema_len) as far as the file has them. */
  head?: Uint8Array;
  header: Partial<ScbfHeader>;
  columns: ScbfColumn[];
}

/**
 * Reads the header and the metadata table (nothing else) and checks them, recording each
 * structural defect in `problems`. A defect that makes the rest unreadable is thrown (it is
 * recorded too); `progress` then holds what was parsed. In read mode the first defect in A2
 * order is thrown at the end. Never allocates more than the file holds.
 */
export async function parseLayout(
  source: ByteSource,
  problems: ProblemList,
  options: ReadOptions = {},
  progress: LayoutProgress = { header: {}, columns: [] },
): Promise<ScbfLayout> {
  const fatal = (code: 'OutOfBounds' | 'Truncated', message: string, offset: number): never => {
    throw problems.error(code, message, { phase: Phase.bounds, offset });
  };
  const read = async (offset: number, length: number, what: string) => {
    try {
      return await readExact(source, offset, length, { format: FORMAT, what, signal: options.signal });
    } catch (error) {
      problems.capture(error, { phase: Phase.bounds });
      throw error;
    }
  };

  // Magic and version (S1).
  const head = await source.read(0, Math.min(source.size, PREFIX_LENGTH), options);
  progress.head = head;
  checkMagic(head, problems);

  const schemaLength = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(8, true);
  const headerLength = PREFIX_LENGTH + schemaLength + SUFFIX_LENGTH;
  const header = progress.header;
  Object.assign(header, { magic: SCBF_MAGIC, schemaLength, headerLength });
  const headerBytes = await read(0, headerLength, `header (schema_len ${schemaLength})`);
  const cursor = new Cursor(headerBytes, { file: source.name, format: FORMAT });
  cursor.seek(PREFIX_LENGTH);
  const schemaBytes = cursor.bytesView(schemaLength);
  header.schemaJson = new TextDecoder('utf-8', { ignoreBOM: true }).decode(schemaBytes);
  header.schema = parseSchema(schemaBytes, problems);
  const numColumns = cursor.u32();
  const totalRowsAt = cursor.offset;
  // 64-bit fields in messages: the exact value, not the nearest double.
  const totalRowsText = readU64Big(cursor.view, cursor.pos, true).toString();
  const totalRows = readU64(cursor.view, cursor.pos, true);
  cursor.skip(8);
  const metaAt = cursor.offset;
  const metaText = readU64Big(cursor.view, cursor.pos, true).toString();
  const metaTableOffset = readU64(cursor.view, cursor.pos, true);
  Object.assign(header, { numColumns, totalRows, metaTableOffset });
  if (!Number.isSafeInteger(totalRows)) {
    problems.error('InvalidValue', `total_rows ${totalRowsText} is beyond any file`, {
      phase: Phase.header,
      offset: totalRowsAt,
    });
  }

  // The metadata table: inside the file and not over the header (S1: readers seek to it).
  if (metaTableOffset < headerLength) {
    fatal(
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
      'OutOfBounds',
      `meta_table_offset ${metaText} is past the end of the file (${source.size} bytes)`,
      metaAt,
    );
  }
  // A4: the column count must fit the bytes that exist before anything is sized by it.
  if (numColumns * MIN_ENTRY > source.size - metaTableOffset) {
    fatal(
      'Truncated',
      `num_columns ${numColumns} needs at least ${numColumns * MIN_ENTRY} bytes of metadata from ${metaText}, but the file ends at ${source.size}`,
      metaTableOffset,
    );
  }

  const columns = progress.columns;
  header.metaTableEnd = await parseMetaTable(
    source,
    metaTableOffset,
    numColumns,
    tableLengthFromSchema(header.schema, numColumns),
    problems,
    read,
    columns,
  );
  const layout: ScbfLayout = {
    source,
    header: header as ScbfHeader,
    columns,
    defective: new Set(),
    blockErrors: new Map(),
  };
  checkBlocks(layout, problems);
  checkCrossReferences(layout, problems);
  problems.checkpoint();
  return layout;
}
