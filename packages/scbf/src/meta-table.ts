import { type ByteSource, type ErrorCode, Phase, type ProblemList } from '@binscope/core';
import { Cursor, decodeUtf8, readU64, readU64Big } from '@binscope/core/binary';
import {
  type BlockRole,
  type ScbfBlock,
  ENTRY_FIXED,
  FORMAT,
  type ScbfColumn,
  type ScbfHeader,
  TYPE_NAMES,
} from './layout.js';

/** The metadata table's length if it agrees with schema_json, so open reads exactly the table. */
export function tableLengthFromSchema(schema: ScbfHeader['schema'], numColumns: number): number | undefined {
  if (!schema || schema.columns.length !== numColumns) return undefined;
  let length = 0;
  for (const column of schema.columns) {
    if (column.type !== 'int32' && column.type !== 'float64' && column.type !== 'utf8') return undefined;
    length += ENTRY_FIXED + utf8Length(column.name) + (column.type === 'utf8' ? 48 : 24);
  }
  return length;
}

const encoder = new TextEncoder();
function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

/**
 * The column metadata table: one variable-length entry per column. Entries parsed before a
 * fatal defect stay in `columns` (inspect shows them).
 */
export async function parseMetaTable(
  source: ByteSource,
  start: number,
  numColumns: number,
  expectedLength: number | undefined,
  problems: ProblemList,
  read: (offset: number, length: number, what: string) => Promise<Uint8Array>,
  columns: ScbfColumn[],
): Promise<number> {
  const add = (phase: number, code: ErrorCode, message: string, offset: number) =>
    problems.error(code, message, { phase, offset });
  const fatal = (phase: number, code: ErrorCode, message: string, offset: number): never => {
    throw problems.error(code, message, { phase, offset });
  };
  const available = source.size - start;
  // Entries are variable-length (names); read a window that usually holds the whole table
  // and widen it only if a long name runs past it.
  let windowLength = Math.min(available, expectedLength ?? numColumns * 96 + 4096);
  for (;;) {
    const bytes = await read(start, windowLength, 'column metadata table');
    const cursor = new Cursor(bytes, { base: start, file: source.name, format: FORMAT });
    columns.length = 0;
    const pending: Array<() => void> = [];
    let needMore = false;
    for (let index = 0; index < numColumns; index++) {
      const entryOffset = cursor.offset;
      if (cursor.remaining < ENTRY_FIXED) {
        needMore = true;
        break;
      }
      const nameLength = cursor.u16();
      if (cursor.remaining < nameLength + 9) {
        needMore = true;
        break;
      }
      const nameAt = cursor.offset;
      const nameBytes = cursor.bytesView(nameLength);
      let name: string;
      try {
        name = decodeUtf8(nameBytes, { what: `column ${index} name` });
      } catch {
        name = new TextDecoder('utf-8', { ignoreBOM: true }).decode(nameBytes);
        const shownName = name;
        pending.push(() =>
          add(Phase.header, 'InvalidValue', `column ${index} name "${shownName}" is not valid UTF-8`, nameAt),
        );
      }
      const typeAt = cursor.offset;
      const typeCode = cursor.u8();
      const type = TYPE_NAMES[typeCode];
      if (!type) {
        // Without a known type the entry's length is unknown: nothing after it can be read.
        for (const f of pending) f();
        fatal(
          Phase.header,
          'InvalidValue',
          `column ${index} ("${name}") has type_code ${typeCode}; known codes are 1=int32, 2=float64, 3=utf8`,
          typeAt,
        );
      }
      const countAt = cursor.offset;
      const countText = readU64Big(cursor.view, cursor.pos, true).toString();
      const count = readU64(cursor.view, cursor.pos, true);
      cursor.skip(8);
      const nBlocks = type === 'utf8' ? 2 : 1;
      if (cursor.remaining < nBlocks * 24) {
        needMore = true;
        break;
      }
      if (!Number.isSafeInteger(count)) {
        pending.push(() =>
          add(
            Phase.header,
            'InvalidValue',
            `column "${name}" count ${countText} is beyond any file`,
            countAt,
          ),
        );
      }
      const roles: BlockRole[] = type === 'utf8' ? ['offsets', 'strings'] : ['values'];
      const blocks = roles.map((role) => {
        const fieldOffset = cursor.offset;
        const uncompressedSize = readU64(cursor.view, cursor.pos, true);
        const compressedSize = readU64(cursor.view, cursor.pos + 8, true);
        const offset = readU64(cursor.view, cursor.pos + 16, true);
        const block: ScbfBlock = { role, offset, compressedSize, uncompressedSize, fieldOffset };
        // Above 2^53 a size or offset is beyond any file; it is named exactly here, and the
        // later checks leave the block alone (their numbers would print the nearest double).
        // str_uncomp_size is advisory (S4): only kept exactly, for the S4 warning.
        const prefix = role === 'values' ? '' : role === 'offsets' ? 'off_' : 'str_';
        for (const [field, rel, value] of [
          ['uncomp_size', 0, uncompressedSize],
          ['comp_size', 8, compressedSize],
          [role === 'values' ? 'block_offset' : 'offset', 16, offset],
        ] as const) {
          if (Number.isSafeInteger(value)) continue;
          const exact = readU64Big(cursor.view, cursor.pos + rel, true);
          if (role === 'strings' && rel === 0) {
            block.exactUncompressedSize = exact;
            continue;
          }
          const fieldName = `${prefix}${field}`;
          pending.push(() =>
            add(
              Phase.header,
              'OutOfBounds',
              `column "${name}" ${fieldName} ${exact} is beyond any file`,
              fieldOffset + rel,
            ),
          );
        }
        cursor.skip(24);
        return block;
      });
      columns.push({
        index,
        name,
        type,
        typeCode,
        count,
        entryOffset,
        nameLength,
        entryLength: cursor.offset - entryOffset,
        blocks,
      });
    }
    if (!needMore) {
      for (const f of pending) f();
      return cursor.offset;
    }
    if (windowLength >= available) {
      for (const f of pending) f();
      fatal(
        Phase.bounds,
        'Truncated',
        `the column metadata table (${numColumns} entries from ${start}) runs past the end of the file (${source.size} bytes)`,
        cursor.offset,
      );
    }
    windowLength = Math.min(available, windowLength * 4 + 4096);
  }
}
