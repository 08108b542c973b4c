import type { ParquetWriter } from 'hyparquet-writer';
import { deltaBinaryPacked, deltasLookSmall } from './delta.js';
import { buildDictionary, type Dictionary, type DictionaryValues, plainByteArray } from './dictionary.js';
import type { FastColumn } from './fast-column.js';
import { BoolLeaf, BytesLeaf, FloatLeaf, Int32Leaf, Int64Leaf, type Leaf } from './leaves.js';
import {
  ByteOut,
  bitWidth,
  type DataPageV2,
  ENCODING,
  pageHeader,
  writeHybrid,
  writeRun,
} from './page-bytes.js';
import type { SinkWriter } from './sink-writer.js';
import { extremes } from './statistics.js';

// The writer's own hyparquet types (it pins a hyparquet of its own).
type PageIndexes = ParquetWriter['pendingIndexes'][number];
type ColumnChunk = PageIndexes['chunk'];
type ColumnMetaData = NonNullable<ColumnChunk['meta_data']>;
type Codec = ColumnMetaData['codec'];

/** Uncompressed bytes of values a data page holds (hyparquet-writer's default). */
const PAGE_SIZE = 1 << 20;

export interface ChunkOptions {
  readonly writer: SinkWriter;
  readonly codec: Codec;
  /** The codec's compressor (none for UNCOMPRESSED). */
  readonly compress?: (bytes: Uint8Array) => Uint8Array;
}

interface Page {
  /** Level slots [from, to) and values [first, last). */
  from: number;
  to: number;
  first: number;
  last: number;
  rows: number;
}

type Encoding = keyof typeof ENCODING;

/**
 * Writes one column chunk of a row group, as hyparquet-writer would write it: a PLAIN dictionary
 * page when a dictionary pays (dictionary.ts), then DATA_PAGE_V2 pages of about 1 MiB of values
 * each, split only where a row starts: levels in the RLE / bit-packing hybrid, values as
 * RLE_DICTIONARY indexes, (booleans) RLE, PLAIN, or for INT32 DELTA_BINARY_PACKED where that
 * at least halves a page; compressed with the file's codec. Returns the chunk's metadata
 * (statistics and encoding stats as hyparquet-writer gives them) and its offset index, for
 * ParquetWriter's footer.
 */
export function writeChunk(column: FastColumn, path: string[], options: ChunkOptions): PageIndexes {
  const { writer } = options;
  const leaf = column.leaf;
  const start = writer.offset;
  if (leaf instanceof BytesLeaf) leaf.flush();
  const dictionary = leaf.physical === 'BOOLEAN' ? undefined : buildDictionary(dictionaryValues(leaf));
  let uncompressed = 0;
  let dictionaryOffset: bigint | undefined;
  if (dictionary) {
    dictionaryOffset = BigInt(writer.offset);
    uncompressed += writePage(options, dictionary.plain, new Uint8Array(0), { dictionary: dictionary.size });
  }
  const dataOffset = writer.offset;
  const pages = splitPages(column, dictionary);
  const locations = [];
  /** Data pages by encoding, in the order first used. */
  const used = new Map<Encoding, number>();
  let firstRow = 0;
  for (const page of pages) {
    const offset = writer.offset;
    const levels = pageLevels(column, page);
    const values = pageValues(leaf, page, column.slots, dictionary);
    used.set(values.encoding, (used.get(values.encoding) ?? 0) + 1);
    uncompressed += writePage(options, values.bytes, levels.bytes, {
      values: page.to - page.from,
      nulls: page.to - page.from - (page.last - page.first),
      rows: page.rows,
      encoding: ENCODING[values.encoding],
      definitionBytes: levels.definitionBytes,
      repetitionBytes: levels.repetitionBytes,
      compressed: true,
    });
    locations.push({
      offset: BigInt(offset),
      compressed_page_size: writer.offset - offset,
      first_row_index: BigInt(firstRow),
    });
    firstRow += page.rows;
  }
  const { min, max, nan } = extremes(leaf, dictionary?.firsts);
  const chunk: ColumnChunk = {
    file_offset: BigInt(start),
    meta_data: {
      type: leaf.physical,
      encodings: [...(dictionary ? ['PLAIN' as const] : []), ...used.keys()],
      path_in_schema: path,
      codec: options.codec,
      num_values: BigInt(column.slots),
      total_compressed_size: BigInt(writer.offset - start),
      total_uncompressed_size: BigInt(uncompressed),
      data_page_offset: BigInt(dataOffset),
      dictionary_page_offset: dictionaryOffset,
      statistics: {
        min_value: min,
        max_value: max,
        null_count: BigInt(column.nulls),
        ...(nan === undefined ? {} : { nan_count: BigInt(nan) }),
      } as ColumnMetaData['statistics'],
      encoding_stats: [
        ...(dictionary
          ? [{ page_type: 'DICTIONARY_PAGE' as const, encoding: 'PLAIN' as const, count: 1 }]
          : []),
        ...[...used].map(([encoding, count]) => ({ page_type: 'DATA_PAGE_V2' as const, encoding, count })),
      ],
    },
  };
  return { chunk, offsetIndex: pages.length > 1 ? { page_locations: locations } : undefined };
}

/** A page's repetition then definition levels, each in the hybrid encoding. */
function pageLevels(column: FastColumn, page: Page) {
  const levels = new ByteOut(64);
  const repetitionBytes = column.maxRep > 0 ? writeHybrid(levels, column.reps, page.from, page.to, 1) : 0;
  const width = bitWidth(column.maxDef);
  const definitionBytes =
    column.maxDef === 0
      ? 0
      : column.nulls === 0
        ? writeRun(levels, page.to - page.from, column.maxDef, width)
        : writeHybrid(levels, column.defs, page.from, page.to, width);
  return { bytes: levels.take(), repetitionBytes, definitionBytes };
}

/**
 * Writes a page: its header, its levels (never compressed) and its values, compressed. Returns
 * its uncompressed size, header included, as hyparquet-writer counts it.
 */
function writePage(
  options: ChunkOptions,
  values: Uint8Array,
  levels: Uint8Array,
  page: { dictionary: number } | DataPageV2,
): number {
  // The values may be a view of the leaf's buffers, which the next row group reuses.
  const stored = options.compress ? options.compress(values) : values.slice();
  const header = pageHeader(levels.length + values.length, levels.length + stored.length, page);
  options.writer.appendBytes(header);
  options.writer.appendBytes(levels);
  options.writer.appendChunk(stored);
  return header.length + levels.length + values.length;
}

/** The leaf's values as the dictionary compares them. */
function dictionaryValues(leaf: Leaf): DictionaryValues {
  if (leaf instanceof BytesLeaf)
    return { kind: 'bytes', bytes: leaf.bytes, offsets: leaf.offsets, count: leaf.count };
  if (leaf instanceof Int64Leaf) return { kind: 'fixed', words: leaf.words, per: 2, count: leaf.count };
  if (leaf instanceof Int32Leaf) return { kind: 'fixed', words: leaf.data, per: 1, count: leaf.count };
  if (leaf instanceof FloatLeaf) {
    const { buffer } = leaf.data;
    return leaf.physical === 'FLOAT'
      ? { kind: 'fixed', words: new Int32Array(buffer), per: 1, count: leaf.count }
      : { kind: 'fixed', words: new Int32Array(buffer), per: 2, count: leaf.count };
  }
  throw new Error(`no dictionary for ${leaf.physical}`);
}

/**
 * Pages of about PAGE_SIZE bytes of values (4 a dictionary index, a byte array its length),
 * each starting where a row starts. Sizes are counted in bits (a boolean is one).
 */
function splitPages(column: FastColumn, dictionary: Dictionary | undefined): Page[] {
  const { leaf, defs, reps, maxDef, maxRep, slots } = column;
  const offsets = leaf instanceof BytesLeaf && !dictionary ? leaf.offsets : undefined;
  const bits = dictionary ? 32 : leaf.physical === 'BOOLEAN' ? 1 : valueWidth(leaf) * 8;
  const limit = PAGE_SIZE * 8;
  const pages: Page[] = [];
  if (!offsets && column.nulls === 0) {
    // Each slot a value of the same size: pages of a fixed count, moved on to a row's start.
    const per = Math.max(1, Math.ceil(limit / bits) - 1);
    if (maxRep === 0) {
      for (let from = 0; from < slots || from === 0; from += per) {
        const to = Math.min(slots, from + per);
        pages.push({ from, to, first: from, last: to, rows: to - from });
      }
      return pages;
    }
    const starts = column.rowStarts;
    for (let row = 0; row < column.rows; ) {
      const from = starts[row];
      let next = row + 1;
      while (next < column.rows && starts[next] - from < per) next++;
      const to = next < column.rows ? starts[next] : slots;
      pages.push({ from, to, first: from, last: to, rows: next - row });
      row = next;
    }
    return pages;
  }
  let from = 0;
  let first = 0;
  let rows = 0;
  let size = 0;
  let value = 0;
  for (let slot = 0; slot < slots; slot++) {
    const present = maxDef === 0 || defs[slot] === maxDef;
    const valueBits = present ? (offsets ? (offsets[value + 1] - offsets[value]) * 8 : bits) : 0;
    size += valueBits;
    if (maxRep === 0 || reps[slot] === 0) {
      if (size >= limit && slot > from) {
        pages.push({ from, to: slot, first, last: value, rows });
        from = slot;
        first = value;
        rows = 0;
        size = valueBits;
      }
      rows++;
    }
    if (present) value++;
  }
  pages.push({ from, to: slots, first, last: value, rows });
  return pages;
}

function valueWidth(leaf: Leaf): number {
  return leaf.physical === 'INT32' || leaf.physical === 'FLOAT' ? 4 : leaf.physical === 'BYTE_ARRAY' ? 0 : 8;
}

/** A page's values, encoded: PLAIN straight from the leaf's buffer where it can be. */
function pageValues(
  leaf: Leaf,
  page: Page,
  slots: number,
  dictionary: Dictionary | undefined,
): { encoding: Encoding; bytes: Uint8Array } {
  const { first, last } = page;
  if (dictionary) {
    let max = 0;
    for (let i = first; i < last; i++) if (dictionary.indexes[i] > max) max = dictionary.indexes[i];
    const out = new ByteOut(16 + (last - first));
    const width = bitWidth(max);
    out.byte(width);
    writeHybrid(out, dictionary.indexes, first, last, width);
    return { encoding: 'RLE_DICTIONARY', bytes: out.bytes.subarray(0, out.length) };
  }
  // hyparquet-writer's choice for booleans: RLE for a chunk of more than 16 values.
  if (leaf instanceof BoolLeaf)
    return slots > 16
      ? { encoding: 'RLE', bytes: booleans(leaf.data, first, last, true) }
      : { encoding: 'PLAIN', bytes: booleans(leaf.data, first, last, false) };
  if (leaf instanceof BytesLeaf) {
    const { bytes, offsets } = leaf;
    const out = new Uint8Array(offsets[last] - offsets[first] + 4 * (last - first));
    for (let i = first, at = 0; i < last; i++)
      at = plainByteArray(out, at, bytes, offsets[i], offsets[i + 1]);
    return { encoding: 'PLAIN', bytes: out };
  }
  if (leaf instanceof Int32Leaf && deltasLookSmall(leaf.data, first, last)) {
    const delta = deltaBinaryPacked(leaf.data, first, last);
    if (delta.length * 2 <= (last - first) * 4) return { encoding: 'DELTA_BINARY_PACKED', bytes: delta };
  }
  const data = leaf instanceof Int64Leaf ? leaf.words : (leaf as Int32Leaf | FloatLeaf).data;
  const size = data.BYTES_PER_ELEMENT * (leaf instanceof Int64Leaf ? 2 : 1);
  return {
    encoding: 'PLAIN',
    bytes: new Uint8Array(data.buffer, data.byteOffset + first * size, (last - first) * size),
  };
}

/** Booleans PLAIN (bit-packed, least significant bit first) or RLE (the hybrid, length first). */
function booleans(data: Uint8Array, first: number, last: number, rle: boolean): Uint8Array {
  const out = new ByteOut(16 + ((last - first) >> 3));
  if (rle) {
    out.ensure(4);
    out.length = 4;
    const length = writeHybrid(out, data, first, last, 1);
    new DataView(out.bytes.buffer).setUint32(0, length, true);
  } else {
    out.ensure((last - first + 7) >> 3);
    for (let i = first; i < last; i++) if (data[i]) out.bytes[(i - first) >> 3] |= 1 << ((i - first) & 7);
    out.length = (last - first + 7) >> 3;
  }
  return out.bytes.subarray(0, out.length);
}
