import { Phase, type ProblemList } from '@binscope/core';
import { readU64, readU64Big } from '@binscope/core/binary';
import {
  FIELD_DESC_PTR,
  FLAG_CHECKSUMMED,
  FLAG_COMPRESSED,
  FLAG_ENCRYPTED,
  FLAG_LITTLE_ENDIAN,
  HEADER_OFFSET,
  HEADER_SIZE,
  type MldfHeader,
  VERSION_MAJOR,
  VERSION_MINOR,
} from './layout.js';
import { MLDF_MAGIC } from './magic.js';

/**
 * Decodes the 64 header bytes after the magic without judging them (inspect shows them even
 * when the magic or version is wrong); undefined when the file is shorter than magic + header.
 */
export function decodeHeader(bytes: Uint8Array): MldfHeader | undefined {
  if (bytes.byteLength < FIELD_DESC_PTR) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset + HEADER_OFFSET, HEADER_SIZE);
  return {
    versionMajor: view.getUint16(0, true),
    versionMinor: view.getUint16(2, true),
    flags: view.getUint32(4, true),
    // Counts and pointers above 2^53 lose precision here but can only fail the bounds checks.
    numSamples: readU64(view, 8),
    numSamplesExact: view.getBigUint64(8, true),
    numFields: view.getUint16(16, true),
    pad1: view.getUint16(18, true),
    pageSize: view.getUint32(20, true),
    fieldDescPtr: readU64(view, 24),
    metadataPtr: readU64(view, 32),
    dataPtr: readU64(view, 40),
    allocTablePtr: readU64(view, 48),
    reserved: bytes.slice(HEADER_OFFSET + 56, HEADER_OFFSET + 64),
  };
}

/**
 * The header's 64-bit pointers, by offset from the header's start. (num_samples is not here:
 * a huge count is the metadata table running past the file, Truncated, named exactly there.)
 */
const U64_FIELDS: readonly [string, number][] = [
  ['field_desc_ptr', 24],
  ['metadata_ptr', 32],
  ['data_ptr', 40],
  ['alloc_table_ptr', 48],
];

/** The magic's first wrong byte, or -1 (only the bytes the file has are compared). */
export function magicMismatch(bytes: Uint8Array): number {
  const head = Math.min(bytes.byteLength, MLDF_MAGIC.byteLength);
  for (let i = 0; i < head; i++) if (bytes[i] !== MLDF_MAGIC[i]) return i;
  return -1;
}

/**
 * Checks magic + header (CONFORMANCE M1–M3) in A2 order, recording every problem. Returns the
 * header when the sections after it can be located from it; undefined when they cannot (bad
 * magic, a version this reader does not know, a header cut short, pointers that place nothing).
 */
export function checkHeader(
  bytes: Uint8Array,
  fileSize: number,
  problems: ProblemList,
): MldfHeader | undefined {
  const at = (rel: number) => HEADER_OFFSET + rel;
  const wrong = magicMismatch(bytes);
  if (wrong >= 0) {
    problems.error('BadMagic', `not an MLDF file: byte ${wrong} of the magic differs`, {
      offset: wrong,
      phase: Phase.magic,
    });
    return undefined;
  }
  if (fileSize === 0) {
    problems.error('BadMagic', 'empty file: no MLDF magic', { offset: 0, phase: Phase.magic });
    return undefined;
  }
  if (fileSize < MLDF_MAGIC.byteLength) {
    problems.error('Truncated', `file ends inside the MLDF magic (${fileSize} bytes)`, {
      offset: 0,
      phase: Phase.magic,
    });
    return undefined;
  }
  const header = decodeHeader(bytes);
  if (!header) {
    problems.error(
      'Truncated',
      `header needs 64 bytes at ${HEADER_OFFSET} but the file ends at ${fileSize}`,
      { offset: HEADER_OFFSET, phase: Phase.magic },
    );
    return undefined;
  }
  if (header.versionMajor !== VERSION_MAJOR) {
    problems.error(
      'UnsupportedVersion',
      `MLDF version ${header.versionMajor}.${header.versionMinor} is not supported (this reader reads 1.x)`,
      { offset: at(0), phase: Phase.version },
    );
    return undefined;
  }
  if (header.versionMinor > VERSION_MINOR) {
    problems.warn(
      'NewerMinorVersion',
      `file is version 1.${header.versionMinor}, this reader knows 1.${VERSION_MINOR}: newer features are ignored`,
      { offset: at(2) },
    );
  }
  checkFlagsAndPadding(header, problems);
  // A pointer above 2^53 is beyond any file; its exact value is named (the header's
  // numbers would print the nearest double), and nothing can be located from it.
  const view = new DataView(bytes.buffer, bytes.byteOffset + HEADER_OFFSET, HEADER_SIZE);
  for (const [name, rel] of U64_FIELDS) {
    const exact = readU64Big(view, rel);
    if (exact > BigInt(Number.MAX_SAFE_INTEGER)) {
      problems.error('OutOfBounds', `${name} ${exact} is beyond any file (${fileSize} bytes)`, {
        offset: at(rel),
        phase: Phase.header,
      });
      return undefined;
    }
  }
  if (header.fieldDescPtr !== FIELD_DESC_PTR) {
    problems.error(
      'InvalidValue',
      `field_desc_ptr is ${header.fieldDescPtr}, must be ${FIELD_DESC_PTR} (right after the header)`,
      { offset: at(24), phase: Phase.header },
    );
    return undefined;
  }
  if (header.pageSize === 0) {
    problems.error('InvalidValue', 'page_size is 0', { offset: at(20), phase: Phase.header });
    return undefined;
  }
  return header;
}

/** Flags and reserved bytes: wrong ones are errors, but the sections can still be located. */
function checkFlagsAndPadding(header: MldfHeader, problems: ProblemList): void {
  const at = (rel: number) => HEADER_OFFSET + rel;
  const header_ = { phase: Phase.header };
  if (header.flags & FLAG_COMPRESSED)
    problems.error('UnsupportedFeature', 'compressed data region (flag 0x2) is not supported', {
      offset: at(4),
      ...header_,
    });
  if (header.flags & FLAG_ENCRYPTED)
    problems.error('UnsupportedFeature', 'encrypted data region (flag 0x8) is not supported', {
      offset: at(4),
      ...header_,
    });
  if (!(header.flags & FLAG_LITTLE_ENDIAN) || header.flags & ~0xf) {
    problems.warn('UnknownFlags', `unexpected header flags 0x${header.flags.toString(16)} (expected 0x1)`, {
      offset: at(4),
    });
  }
  if (header.pad1 !== 0)
    problems.error('ReservedNonZero', `header padding at 18 is ${header.pad1}, must be 0`, {
      offset: at(18),
      ...header_,
    });
  // With FLAG_CHECKSUMMED the reserved bytes hold the two CRC-32s (checksum.ts).
  const firstReserved = header.flags & FLAG_CHECKSUMMED ? -1 : header.reserved.findIndex((b) => b !== 0);
  if (firstReserved >= 0)
    problems.error('ReservedNonZero', 'header reserved bytes must be zero', {
      offset: at(56) + firstReserved,
      ...header_,
    });
}
