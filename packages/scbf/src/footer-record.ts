import { FormatError } from '@binscope/core';
import type { Cursor } from '@binscope/core/binary';
import { FORMAT, type ScbfColumn } from './layout.js';

/** The column a per-column footer record names (its leading u32), which must exist. */
export function recordColumn(
  cursor: Cursor,
  columns: readonly ScbfColumn[],
  what: string,
  file: string,
): { column: ScbfColumn; index: number; columnAt: number } {
  const columnAt = cursor.offset;
  const index = cursor.u32();
  const column = columns[index];
  if (!column)
    throw new FormatError('OutOfBounds', `${what} for column ${index}, the file has ${columns.length}`, {
      offset: columnAt,
      file,
      format: FORMAT,
    });
  return { column, index, columnAt };
}
