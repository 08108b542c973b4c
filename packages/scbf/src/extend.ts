import { FormatError, pacer, type ReadOptions, readExact } from '@binscope/core';
import { crc32 } from '@binscope/core/binary';
import {
  blocksInOrder,
  encodeFooter,
  type FooterWarning,
  readExtensions,
  type ScbfExtensions,
} from './extensions.js';
import { FORMAT } from './layout.js';
import type { ScbfReader } from './read.js';
import { type ColumnStatistics, numericStatistics, utf8Statistics } from './statistics.js';
import { Utf8Column } from './utf8.js';

export interface ExtensionChoice {
  /** CRC-32 of every block's compressed bytes (default true). */
  checksums?: boolean;
  /** Per-column min/max/null count/distinct estimate (default true). */
  statistics?: boolean;
  /**
   * Null bitmaps to store, by column index (int32/float64 columns; see `splitNulls`), in place
   * of the file's own. The column's block must hold a placeholder (0) at each null row.
   */
  nulls?: ReadonlyMap<number, Uint8Array>;
  /** Dictionaries of int32 code columns, by column index (see dictionary.ts). */
  dictionaries?: ReadonlyMap<number, readonly string[]>;
}

/** Statistics of one column's values, as the writer and `extendScbf` compute them. */
export function statisticsOf(
  values: Int32Array | Float64Array | Utf8Column,
  type: 'int32' | 'float64' | 'utf8',
  nulls?: Uint8Array,
): ColumnStatistics {
  if (values instanceof Utf8Column) return utf8Statistics(values);
  return numericStatistics(type as 'int32' | 'float64', values, nulls);
}

/**
 * The extension footer for an existing file: checksums of the stored compressed bytes and
 * statistics of the decoded columns, one column in memory at a time. Appending it to the
 * file's bytes (after the last block; anything after the blocks is dropped) gives a file
 * every SCBF reader still reads.
 */
export async function scbfExtensionFooter(
  reader: ScbfReader,
  choice: ExtensionChoice = {},
  options: ReadOptions = {},
): Promise<Uint8Array> {
  let checksums: number[] | undefined;
  let statistics: ColumnStatistics[] | undefined;
  // Null bitmaps describe the blocks' content: a new footer keeps them, unless new ones are given.
  const existing = await extensionsOf(reader, [], options);
  const nulls = choice.nulls ?? existing?.nulls;
  // Every block and column of a wide file: turns of the event loop for an abort or SIGTERM.
  const pace = pacer(options.signal);
  if (choice.checksums !== false) {
    checksums = [];
    for (const { block, column } of blocksInOrder(reader.columns)) {
      await pace();
      const bytes = await readExact(reader.source, block.offset, block.compressedSize, {
        format: FORMAT,
        what: `column "${column.name}" ${block.role} block`,
        signal: options.signal,
      });
      checksums.push(crc32(bytes));
    }
  }
  if (choice.statistics !== false) {
    statistics = [];
    for (const column of reader.columns) {
      await pace();
      statistics.push(
        statisticsOf(await reader.readColumn(column.index, options), column.type, nulls?.get(column.index)),
      );
    }
  }
  return encodeFooter({ checksums, statistics, nulls, dictionaries: existing?.dictionaries });
}

/** The file's extension footer, if any (warnings such as unknown records go to `warnings`). */
export function extensionsOf(
  reader: ScbfReader,
  warnings: FooterWarning[] = [],
  options: ReadOptions = {},
): Promise<ScbfExtensions | undefined> {
  return readExtensions(reader.source, reader.columns, reader.header.metaTableEnd, warnings, options);
}

/**
 * Recomputes each block's CRC-32 against the checksum extension: one `InvalidValue` per
 * corrupted block, naming its column and role, at the block's offset.
 */
export async function verifyBlockChecksums(
  reader: ScbfReader,
  checksums: Uint32Array,
  options: ReadOptions = {},
): Promise<FormatError[]> {
  const errors: FormatError[] = [];
  const blocks = blocksInOrder(reader.columns);
  for (let i = 0; i < blocks.length; i++) {
    const { block, column } = blocks[i];
    const bytes = await readExact(reader.source, block.offset, block.compressedSize, {
      format: FORMAT,
      what: `column "${column.name}" ${block.role} block`,
      signal: options.signal,
    });
    const computed = crc32(bytes);
    if (computed === checksums[i]) continue;
    const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
    errors.push(
      new FormatError(
        'InvalidValue',
        `column "${column.name}" ${block.role} block (block ${i}) is corrupted: CRC32 ${hex(computed)}, footer stores ${hex(checksums[i])}`,
        { offset: block.offset, file: reader.source.name, format: FORMAT },
      ),
    );
  }
  return errors;
}

/**
 * The footer for blocks the writer has just encoded: raw (uncompressed) blocks give the
 * statistics, compressed ones the checksums, so nothing is read back.
 */
export function footerForBlocks(
  types: readonly ('int32' | 'float64' | 'utf8')[],
  raw: readonly Uint8Array[][],
  compressed: readonly Uint8Array[][],
  choice: ExtensionChoice = {},
): Uint8Array {
  const nulls = choice.nulls;
  const checksums = choice.checksums === false ? undefined : compressed.flat().map((bytes) => crc32(bytes));
  const statistics =
    choice.statistics === false
      ? undefined
      : types.map((type, i) => {
          const [first, second] = raw[i];
          if (type === 'utf8') {
            const offsets = new Uint32Array(first.buffer, first.byteOffset, first.byteLength / 4);
            return utf8Statistics(new Utf8Column(offsets, second));
          }
          const values =
            type === 'int32'
              ? new Int32Array(first.buffer, first.byteOffset, first.byteLength / 4)
              : new Float64Array(first.buffer, first.byteOffset, first.byteLength / 8);
          return numericStatistics(type, values, nulls?.get(i));
        });
  return encodeFooter({ checksums, statistics, nulls, dictionaries: choice.dictionaries });
}
