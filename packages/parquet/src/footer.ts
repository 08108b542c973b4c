import { type ByteSource, type ProblemList, type ReadOptions, readExact } from '@binscope/core';
import type { Schema } from '@binscope/core';
import { type FileMetaData, parquetMetadata } from 'hyparquet';
import { type ColumnPlan, readSchema } from './read-schema.js';

/** `PAR1`, little-endian: the first and the last four bytes of every (unencrypted) Parquet file. */
const MAGIC = 0x31524150;
/** `PARE`: a file whose footer is encrypted. */
const MAGIC_ENCRYPTED = 0x45524150;
/** Magic, footer length and magic: the least a Parquet file holds. */
export const MIN_SIZE = 12;

/** What the structural parse found: each part as far as the file allowed. */
export interface ParquetLayout {
  readonly source: ByteSource;
  readonly size: number;
  /** The footer's (thrift FileMetaData) range, once its length is known to fit. */
  footer?: { offset: number; length: number };
  metadata?: FileMetaData;
  /** The records' schema made from the footer's, once it is known to make one. */
  columns?: { schema: Schema; columns: ColumnPlan[] };
}

function u32(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at, true);
}

/**
 * The structure in A2's order: leading magic, trailing magic, the footer length against the
 * file, then the footer's metadata (decoded by hyparquet from the footer's bytes alone: the
 * data is not read) and its row groups' ranges against the file. Problems are recorded, with
 * their offsets; in read mode the first one throws at the caller's checkpoint.
 */
export async function parseLayout(
  source: ByteSource,
  problems: ProblemList,
  options: ReadOptions,
): Promise<ParquetLayout> {
  const layout: ParquetLayout = { source, size: source.size };
  const head = await readExact(source, 0, Math.min(4, source.size), options);
  if (head.length < 4 || u32(head, 0) !== MAGIC) {
    problems.error('BadMagic', 'a Parquet file starts with PAR1', { offset: 0 });
    return layout;
  }
  if (source.size < MIN_SIZE) {
    problems.error(
      'Truncated',
      `a Parquet file of ${source.size} bytes: the footer needs at least ${MIN_SIZE}`,
      {
        offset: source.size,
      },
    );
    return layout;
  }
  const tail = await readExact(source, source.size - 8, 8, options);
  const closing = u32(tail, 4);
  if (closing === MAGIC_ENCRYPTED) {
    problems.error('UnsupportedFeature', 'the footer is encrypted (PARE): binscope reads plain Parquet', {
      offset: source.size - 4,
    });
    return layout;
  }
  if (closing !== MAGIC) {
    // A file that starts as Parquet but does not end as one was cut short (or is still being written).
    problems.error(
      'Truncated',
      'the file does not end with PAR1: its footer is missing (a cut-short file?)',
      {
        offset: source.size,
      },
    );
    return layout;
  }
  const length = u32(tail, 0);
  const offset = source.size - 8 - length;
  if (offset < 4) {
    problems.error('OutOfBounds', `a footer of ${length} bytes in a file of ${source.size}`, {
      offset: source.size - 8,
    });
    return layout;
  }
  layout.footer = { offset, length };
  // Reading the footer with the 8 bytes after it lets hyparquet parse it as it parses a file's end.
  const bytes = await readExact(source, offset, length + 8, options);
  try {
    layout.metadata = parquetMetadata(bytes);
  } catch (error) {
    problems.error('InvalidValue', `the footer does not decode: ${(error as Error).message}`, { offset });
    return layout;
  }
  const malformed = malformedMetadata(layout.metadata);
  if (malformed) {
    layout.metadata = undefined;
    problems.error('InvalidValue', `the footer's metadata is malformed: ${malformed}`, { offset });
    return layout;
  }
  checkMetadata(layout, layout.metadata, problems);
  try {
    layout.columns = readSchema(layout.metadata);
  } catch (error) {
    // A schema whose elements do not nest as their child counts say (a damaged footer).
    problems.error('InvalidValue', `the footer's schema does not nest: ${(error as Error).message}`, {
      offset,
    });
  }
  return layout;
}

const isBig = (v: unknown) => typeof v === 'bigint';
const isOptionalBig = (v: unknown) => v === undefined || typeof v === 'bigint';

/**
 * hyparquet decodes the footer's thrift as it comes, without checking that each field has the
 * type the Parquet spec gives it: a damaged footer can hold a number where a bigint belongs,
 * or no row groups at all. What the reader relies on is checked here, once, so nothing later
 * meets a value of the wrong type.
 */
function malformedMetadata(metadata: FileMetaData): string | undefined {
  if (!isBig(metadata.num_rows)) return 'num_rows is not an integer';
  if (!Array.isArray(metadata.schema) || metadata.schema.length === 0) return 'it has no schema';
  for (const [i, e] of metadata.schema.entries()) {
    if (!e || typeof e.name !== 'string') return `schema element ${i} has no name`;
    if (e.num_children !== undefined && (!Number.isSafeInteger(e.num_children) || e.num_children < 0))
      return `schema element ${i} has ${e.num_children} children`;
  }
  if (!Array.isArray(metadata.row_groups)) return 'it has no row group list';
  for (const [g, group] of metadata.row_groups.entries()) {
    if (!group || !isBig(group.num_rows) || group.num_rows < 0n || !Array.isArray(group.columns))
      return `row group ${g} is not a row group`;
    for (const chunk of group.columns) {
      const meta = chunk?.meta_data;
      if (!meta) continue;
      const ranges = [
        meta.data_page_offset,
        meta.total_compressed_size,
        meta.total_uncompressed_size,
        meta.num_values,
      ];
      if (!ranges.every(isBig) || !isOptionalBig(meta.dictionary_page_offset))
        return `row group ${g}: a column chunk's offsets are not integers`;
      if (typeof meta.codec !== 'string' || !Array.isArray(meta.path_in_schema))
        return `row group ${g}: a column chunk has no codec or path`;
    }
  }
  return undefined;
}

/** Counts and ranges the footer states, against each other and against the file. */
function checkMetadata(layout: ParquetLayout, metadata: FileMetaData, problems: ProblemList): void {
  const footerOffset = layout.footer?.offset ?? layout.size;
  let rows = 0n;
  for (const [g, group] of metadata.row_groups.entries()) {
    rows += group.num_rows;
    for (const chunk of group.columns) {
      const meta = chunk.meta_data;
      if (!meta) {
        problems.error('UnsupportedFeature', `row group ${g}: a column chunk without metadata (encrypted?)`, {
          offset: footerOffset,
        });
        continue;
      }
      const { start, end } = chunkRange(meta);
      // A top-level column holds one value per row; a nested one more, but not past what its
      // levels can say in its bytes (8 per byte: a run-length level needs at least a bit).
      const path = meta.path_in_schema.join('.');
      if (
        meta.path_in_schema.length === 1
          ? meta.num_values > group.num_rows
          : meta.num_values > group.num_rows + meta.total_uncompressed_size * 8n
      )
        problems.error(
          'CountMismatch',
          `row group ${g}, column ${path}: ${meta.num_values} values in ${group.num_rows} rows`,
          { offset: start },
        );
      if (start < 4 || end > footerOffset)
        problems.error(
          'OutOfBounds',
          `row group ${g}, column ${meta.path_in_schema.join('.')}: bytes ${start}–${end} lie outside the data region (4–${footerOffset})`,
          { offset: Math.min(Math.max(start, 0), layout.size) },
        );
    }
  }
  if (rows !== metadata.num_rows)
    problems.error('CountMismatch', `the footer counts ${metadata.num_rows} rows, its row groups ${rows}`, {
      offset: footerOffset,
    });
}

/** A column chunk's bytes: from its dictionary page (when it has one) through its data pages. */
export function chunkRange(meta: {
  data_page_offset: bigint;
  dictionary_page_offset?: bigint;
  total_compressed_size: bigint;
}): { start: number; end: number } {
  const first =
    meta.dictionary_page_offset !== undefined && meta.dictionary_page_offset > 0n
      ? meta.dictionary_page_offset
      : meta.data_page_offset;
  const start = Number(first);
  return { start, end: start + Number(meta.total_compressed_size) };
}
