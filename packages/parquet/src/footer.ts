import { type ByteSource, type ProblemList, type ReadOptions, readExact } from '@binscope/core';
import { type FileMetaData, parquetMetadata } from 'hyparquet';

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
  checkMetadata(layout, layout.metadata, problems);
  return layout;
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
