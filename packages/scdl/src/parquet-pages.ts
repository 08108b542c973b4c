import type { AsyncBuffer, FileMetaData } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';

const isLength = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/**
 * Walks the page headers of the given row groups' column chunks and refuses what hyparquet
 * would not survive: a DATA_PAGE_V2 header without its level lengths makes its decoder seek
 * to offset NaN and loop for ever, and a page larger than its chunk reads past it.
 */
export async function checkPageHeaders(
  file: AsyncBuffer,
  metadata: FileMetaData,
  groups: number[],
): Promise<void> {
  for (const g of groups) {
    for (const column of metadata.row_groups[g]?.columns ?? []) {
      const meta = column.meta_data;
      if (!meta) continue;
      const dictionary = Number(meta.dictionary_page_offset ?? 0);
      const start = dictionary > 0 ? dictionary : Number(meta.data_page_offset);
      const size = Number(meta.total_compressed_size);
      if (!isLength(start) || !isLength(size) || start + size > file.byteLength)
        throw new Error(`column chunk at ${start} (${size} bytes) lies outside the file`);
      const bytes = new Uint8Array(await file.slice(start, start + size));
      const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
      while (reader.offset < bytes.length) {
        const at = start + reader.offset;
        const header = parquetHeader(reader);
        const pageSize = header.compressed_page_size;
        if (!isLength(pageSize) || reader.offset + pageSize > bytes.length)
          throw new Error(`page at ${at}: size ${pageSize} runs past its column chunk`);
        if (header.type === 'DATA_PAGE_V2') {
          const v2 = header.data_page_header_v2;
          const levels = [v2?.definition_levels_byte_length, v2?.repetition_levels_byte_length];
          if (
            !v2 ||
            !isLength(v2.num_values) ||
            !levels.every(isLength) ||
            Number(levels[0]) + Number(levels[1]) > pageSize
          )
            throw new Error(`page at ${at}: data page v2 header without valid value count and level lengths`);
        }
        reader.offset += pageSize;
      }
    }
  }
}
