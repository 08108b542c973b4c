import { FormatError } from '@binscope/core';
import type { FileMetaData } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { chunkRange } from './footer.js';

/** A column chunk's bytes and what its pages may add up to. */
interface Chunk {
  start: number;
  end: number;
  /** The footer's value count for the chunk: its pages' counts add up to it. */
  values: number;
  path: string;
}

/** Every column chunk of the file, by start. */
export function chunksOf(metadata: FileMetaData): Chunk[] {
  const out: Chunk[] = [];
  for (const group of metadata.row_groups)
    for (const c of group.columns) {
      if (!c.meta_data) continue;
      const { start, end } = chunkRange(c.meta_data);
      out.push({
        start,
        end,
        values: Number(c.meta_data.num_values),
        path: c.meta_data.path_in_schema.join('.'),
      });
    }
  return out.sort((a, b) => a.start - b.start);
}

/**
 * Checks the page headers of every column chunk inside bytes [base, base + bytes.length) before
 * hyparquet decodes them: hyparquet sizes arrays and loops by a page's value count and moves by
 * its stated sizes without checking them (a count of 2^32 - 1 fills an array for minutes). Each
 * page must lie inside its chunk and the chunk's pages must not count more values than the
 * footer gives the chunk (A4: a length is checked against what exists before it is used).
 */
export function checkPages(chunks: readonly Chunk[], bytes: Uint8Array, base: number, file: string): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const chunk of chunks) {
    if (chunk.start < base || chunk.end > base + bytes.length) continue;
    const where = (offset: number) => ({ offset, file, format: 'parquet' });
    const reader = { view, offset: chunk.start - base };
    let values = 0;
    while (reader.offset < chunk.end - base) {
      const at = base + reader.offset;
      let header: ReturnType<typeof parquetHeader>;
      try {
        header = parquetHeader(reader);
      } catch (error) {
        throw new FormatError(
          'InvalidValue',
          `column ${chunk.path}: a page header does not decode (${(error as Error).message})`,
          where(at),
        );
      }
      const size = header.compressed_page_size;
      if (!Number.isSafeInteger(size) || size < 0 || base + reader.offset + size > chunk.end)
        throw new FormatError(
          'OutOfBounds',
          `column ${chunk.path}: a page of ${size} bytes runs past its column chunk (ending at ${chunk.end})`,
          where(at),
        );
      const count = header.data_page_header?.num_values ?? header.data_page_header_v2?.num_values ?? 0;
      values += count;
      if (!Number.isSafeInteger(count) || count < 0 || values > chunk.values)
        throw new FormatError(
          'CountMismatch',
          `column ${chunk.path}: its pages count ${values} values, its chunk ${chunk.values}`,
          where(at),
        );
      const dictionary = header.dictionary_page_header?.num_values ?? 0;
      // A dictionary entry takes at least a byte of the page's data.
      if (!Number.isSafeInteger(dictionary) || dictionary < 0 || dictionary > header.uncompressed_page_size)
        throw new FormatError(
          'InvalidValue',
          `column ${chunk.path}: a dictionary of ${dictionary} values in ${header.uncompressed_page_size} bytes`,
          where(at),
        );
      reader.offset += size;
    }
  }
}
