import { checkRange, type ErrorCode, type FormatError, Phase, type ProblemList } from '@binscope/core';
import {
  FORMAT,
  MAX_DEFLATE_RATIO,
  PREFIX_LENGTH,
  type ScbfBlock,
  blockIsExact,
  type ScbfLayout,
  TYPE_WIDTH,
} from './layout.js';

/** Bounds (A3): every block inside the file and outside the header and metadata table. */
export function checkBlocks(layout: ScbfLayout, problems: ProblemList): void {
  const { source, header, columns, defective } = layout;
  const add = (block: ScbfBlock, code: ErrorCode, message: string, offset: number) => {
    const error = problems.error(code, message, { phase: Phase.bounds, offset });
    // A cut block is the structure at fault; an out-of-bounds one is its offset field's (marked by offset).
    if (code === 'Truncated') layout.blockErrors.set(block, error);
  };
  for (const column of columns) {
    for (const block of column.blocks) {
      const what = `column "${column.name}" ${block.role} block`;
      if (!blockIsExact(block)) {
        // Reported exactly when the metadata table was read.
        defective.add(column.index);
        continue;
      }
      try {
        checkRange(source, block.offset, block.compressedSize, { format: FORMAT, what });
      } catch (error) {
        const e = error as FormatError;
        // Truncated: where the cut-off block starts; OutOfBounds: the field that points out of the file.
        add(block, e.code, e.detail, e.code === 'Truncated' ? block.offset : block.fieldOffset + 16);
        defective.add(column.index);
        continue;
      }
      const end = block.offset + block.compressedSize;
      const overlaps = (a: number, b: number) => block.offset < b && end > a && block.compressedSize > 0;
      if (overlaps(0, header.headerLength) || overlaps(header.metaTableOffset, header.metaTableEnd)) {
        add(
          block,
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
export function checkCrossReferences(layout: ScbfLayout, problems: ProblemList): void {
  const { header, columns, defective } = layout;
  const add = (phase: number, code: ErrorCode, message: string, offset: number) =>
    problems.error(code, message, { phase, offset });
  const schemaColumns = header.schema?.columns;
  if (schemaColumns) {
    if (schemaColumns.length !== header.numColumns) {
      add(
        Phase.reference,
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
          Phase.reference,
          'SchemaMismatch',
          `column ${i} is "${s.name}" in schema_json but "${c.name}" in the metadata table`,
          c.entryOffset,
        );
      } else if (s.type !== c.type) {
        add(
          Phase.reference,
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
    if (
      !Number.isSafeInteger(column.count) ||
      !Number.isSafeInteger(header.totalRows) ||
      column.blocks.some((b) => !blockIsExact(b))
    ) {
      defective.add(column.index);
      continue;
    }
    if (column.count !== header.totalRows) {
      add(
        Phase.reference,
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
        Phase.reference,
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
          Phase.reference,
          'CountMismatch',
          `column "${column.name}" ${block.role} block declares ${block.uncompressedSize} bytes from ${block.compressedSize} compressed bytes, more than zlib can produce`,
          block.fieldOffset,
        );
        defective.add(column.index);
      }
    }
  }
}
