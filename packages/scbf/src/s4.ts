import { FormatError, type Problem } from '@binscope/core';
import { FORMAT, MAX_DEFLATE_RATIO, type ScbfBlock, type ScbfColumn } from './layout.js';

/**
 * Rule S4's tolerance. The upstream writer stores the offsets block's offset in
 * `str_uncomp_size` in every file with a utf8 column, so that field is advisory: the size a
 * strings block must inflate to is the last offset. A disagreeing field is a warning when the
 * offsets and the inflated block agree; offsets and block disagreeing stays an error.
 */

/** One utf8 column whose str_uncomp_size disagrees with its (consistent) strings block. */
export interface StrUncompMismatch {
  column: string;
  /** str_uncomp_size as stored, and where. */
  stored: number | bigint;
  fieldOffset: number;
  inflated: number;
  /** The stored value is the offsets block's offset: the upstream writer's bug exactly. */
  upstreamBug: boolean;
}

/** Receives S4 mismatches found while decoding. */
export type MismatchSink = (mismatch: StrUncompMismatch) => void;

/** The most a strings block can inflate to: zlib's ratio limit, and u32 offsets (A4). */
export function stringsCap(block: ScbfBlock): number {
  return Math.min(block.compressedSize * MAX_DEFLATE_RATIO + 64, 0xffffffff);
}

/** The mismatch, when str_uncomp_size disagrees with a strings block its offsets agree with. */
export function strUncompMismatch(column: ScbfColumn, inflated: number): StrUncompMismatch | undefined {
  const [offsets, strings] = column.blocks;
  if (strings.uncompressedSize === inflated) return undefined;
  return {
    column: column.name,
    stored: strings.exactUncompressedSize ?? strings.uncompressedSize,
    fieldOffset: strings.fieldOffset,
    inflated,
    upstreamBug: strings.uncompressedSize === offsets.offset,
  };
}

/**
 * One warning (code `S4`) for a whole file, however many utf8 columns it concerns: the
 * upstream writer makes the same mistake in each, and it is one fact about the file.
 */
export function s4Warning(mismatches: readonly StrUncompMismatch[], file: string): Problem | undefined {
  if (mismatches.length === 0) return undefined;
  const parts = mismatches.map(
    (m) =>
      `"${m.column}" stores ${m.stored}${m.upstreamBug ? ' (its offsets block offset)' : ''}, its strings inflate to ${m.inflated} bytes`,
  );
  const bug = mismatches.every((m) => m.upstreamBug)
    ? ', as the upstream writer does in every file with strings'
    : '';
  return {
    code: 'S4',
    message: `str_uncomp_size disagrees with the strings block${bug}: ${parts.join('; ')}. The offsets agree with the inflated sizes, so the strings are read (S4)`,
    offset: mismatches[0].fieldOffset,
    file,
    format: FORMAT,
  };
}

/** The offsets end past what the strings block inflates to, or before its end. */
export function stringsEndError(
  column: ScbfColumn,
  last: number,
  inflated: number | `more than ${number}`,
  file: string,
): FormatError {
  return new FormatError(
    'CountMismatch',
    `column "${column.name}" offsets end at ${last}, but the strings block inflates to ${inflated} bytes (S4)`,
    { offset: column.blocks[1].fieldOffset, file, format: FORMAT },
  );
}
