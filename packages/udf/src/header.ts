import { type ByteSource, Phase, type ProblemList, type ReadOptions } from '@binscope/core';
import { readU64 } from '@binscope/core/binary';
import { DATASET_SCOPE, decodeId, FILE_HEADER_SIZE, type FileOffset, STATIC_HEADER_SIZE } from './types.js';

export interface UdfFileHeader {
  /** "UDF0". */
  magic: string;
  id: string;
  idBytes: Uint8Array;
  /** Reserved for future use; reported, never interpreted. */
  next: bigint;
  /** Null when the file has no datasets (U7). */
  root: FileOffset | null;
  reserved: bigint[];
}

function u64Parts(view: DataView, pos: number): { value: number; safe: boolean; big: bigint } {
  const value = readU64(view, pos);
  return { value, safe: Number.isSafeInteger(value), big: view.getBigUint64(pos, true) };
}

/** The file header's bytes (fewer in a file shorter than it), a copy the caller may keep. */
export async function readFileHead(source: ByteSource, options: ReadOptions = {}): Promise<Uint8Array> {
  return (await source.read(0, Math.min(source.size, FILE_HEADER_SIZE), options)).slice();
}

/**
 * Parses the 64-byte file header from its bytes (`head`, cut short in a short file of
 * `fileSize` bytes), recording problems in `issues`; undefined when it cannot go on.
 */
export function parseFileHeader(
  head: Uint8Array,
  fileSize: number,
  issues: ProblemList,
): UdfFileHeader | undefined {
  const magic = [0x55, 0x44, 0x46];
  for (let i = 0; i < Math.min(3, head.byteLength); i++) {
    if (head[i] !== magic[i]) {
      issues.error('BadMagic', `not a UDF file: the first bytes are not "UDF"`, {
        offset: i,
        phase: Phase.magic,
      });
      return undefined;
    }
  }
  if (head.byteLength < 4) {
    issues.error('Truncated', `the file ends after ${head.byteLength} bytes, inside its magic`, {
      offset: 0,
      phase: Phase.bounds,
    });
    return undefined;
  }
  if (head[3] !== 0x30) {
    if (head[3] >= 0x31 && head[3] <= 0x39) {
      issues.error(
        'UnsupportedVersion',
        `UDF revision "UDF${String.fromCharCode(head[3])}" is not supported (this reader implements UDF0)`,
        { offset: 3, phase: Phase.version },
      );
    } else {
      issues.error('BadMagic', `not a UDF file: magic byte 3 is 0x${head[3].toString(16)}, not "0"`, {
        offset: 3,
        phase: Phase.magic,
      });
    }
    return undefined;
  }
  if (head.byteLength < FILE_HEADER_SIZE) {
    issues.error(
      'Truncated',
      `the ${FILE_HEADER_SIZE}-byte file header needs ${FILE_HEADER_SIZE} bytes but the file has ${fileSize}`,
      { offset: 0, phase: Phase.bounds },
    );
    return undefined;
  }
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const idBytes = head.slice(4, 8);
  const id = decodeId(idBytes);
  if (!id.valid)
    issues.error('InvalidValue', `file id bytes ${hex(idBytes)} are not printable ASCII padded with NULs`, {
      offset: 4,
      phase: Phase.header,
    });
  const next = view.getBigUint64(8, true);
  if (next !== 0n)
    issues.warn('ReservedNonZero', `file header "next" (reserved for future use) is ${next}`, { offset: 8 });
  const reserved: bigint[] = [];
  for (let i = 0; i < 4; i++) {
    const value = view.getBigUint64(0x20 + i * 8, true);
    reserved.push(value);
    if (value !== 0n) {
      issues.error('ReservedNonZero', `file header reserved[${i}] must be zero, found ${value}`, {
        offset: 0x20 + i * 8,
        phase: Phase.header,
      });
    }
  }
  const offset = u64Parts(view, 0x10);
  const size = u64Parts(view, 0x18);
  let root: FileOffset | null = null;
  if (!offset.safe || !size.safe) {
    // Beyond 2^53 the numbers would print the nearest double: name the exact values here,
    // in check order (alignment, then bounds), and locate nothing from them.
    const where = `root FileOffset (${offset.big}, ${size.big})`;
    if (offset.big % 16n !== 0n || size.big % 16n !== 0n)
      issues.error('Misaligned', `${where}: offset and size must be multiples of 16`, {
        offset: 0x10,
        phase: Phase.alignment,
      });
    else
      issues.error('OutOfBounds', `${where} is beyond any file (${fileSize} bytes)`, {
        offset: 0x10,
        phase: Phase.bounds,
      });
  } else if (offset.big !== 0n || size.big !== 0n) {
    if (offset.big === 0n) {
      issues.error('InvalidValue', `root FileOffset has offset 0 but size ${size.big} (null must be 0, 0)`, {
        offset: 0x10,
        phase: Phase.header,
      });
    }
    root = { offset: offset.value, size: size.value };
  }
  return { magic: 'UDF0', id: id.id, idBytes, next, root, reserved };
}

/**
 * Checks a FileOffset against the file (U1): 16-aligned, after the file header, inside the file.
 * Problems are reported at `from`, the field holding the reference.
 */
export function checkFileOffset(
  at: FileOffset,
  from: number,
  fileSize: number,
  issues: ProblemList,
): boolean {
  const where = `dataset FileOffset (${at.offset}, ${at.size})`;
  const before = issues.errors.length;
  if (at.offset === 0 && at.size !== 0) {
    issues.error('InvalidValue', `${where}: a null offset must have size 0`, {
      offset: from,
      phase: Phase.header,
      scope: DATASET_SCOPE,
    });
    return false;
  }
  if (at.offset % 16 !== 0 || at.size % 16 !== 0) {
    issues.error('Misaligned', `${where}: offset and size must be multiples of 16`, {
      offset: from,
      phase: Phase.alignment,
      scope: DATASET_SCOPE,
    });
    return false;
  }
  if (!Number.isSafeInteger(at.offset) || !Number.isSafeInteger(at.size) || at.offset >= fileSize) {
    issues.error('OutOfBounds', `${where} starts past the end of the file (${fileSize} bytes)`, {
      offset: from,
      phase: Phase.bounds,
      scope: DATASET_SCOPE,
    });
  } else if (at.offset < FILE_HEADER_SIZE) {
    issues.error('OutOfBounds', `${where} points into the ${FILE_HEADER_SIZE}-byte file header`, {
      offset: from,
      phase: Phase.bounds,
      scope: DATASET_SCOPE,
    });
  } else if (at.offset + at.size > fileSize) {
    issues.error(
      'Truncated',
      `${where} runs to ${at.offset + at.size}, past the end of the file (${fileSize} bytes)`,
      { offset: from, phase: Phase.bounds, scope: DATASET_SCOPE },
    );
  } else if (at.size < STATIC_HEADER_SIZE) {
    issues.error('OutOfBounds', `${where} is smaller than the ${STATIC_HEADER_SIZE}-byte dataset header`, {
      offset: from,
      phase: Phase.bounds,
      scope: DATASET_SCOPE,
    });
  }
  return issues.errors.length === before;
}

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
}
