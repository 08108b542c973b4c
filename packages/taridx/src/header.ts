import { Phase, type ProblemList } from '@binscope/core';
import { readU64, readU64Big } from '@binscope/core/binary';
import {
  FLAG_CONTIGUOUS,
  H,
  HEADER_SIZE,
  MAGIC,
  MAJOR,
  MINOR,
  ROW_SIZE,
  type TaridxHeader,
} from './layout.js';

/** The 64-byte header decoded as stored, whatever its fields say (inspect shows a bad one too). */
export function decodeHeader(head: Uint8Array): TaridxHeader {
  const view = new DataView(head.buffer, head.byteOffset, HEADER_SIZE);
  return {
    magic: describeMagic(head),
    major: view.getUint16(H.major, true),
    minor: view.getUint16(H.minor, true),
    recSize: view.getUint16(H.recSize, true),
    hdrSize: view.getUint16(H.hdrSize, true),
    nStems: readU64(view, H.nStems),
    nRows: readU64(view, H.nRows),
    nExt: view.getUint32(H.nExt, true),
    nCrash: view.getUint32(H.nCrash, true),
    offCrash: readU64(view, H.offCrash),
    offArr: readU64(view, H.offArr),
    flags: head[H.flags],
    reserved: head.slice(H.reserved, HEADER_SIZE),
  };
}

/** The magic as text for messages and the tree ("TARIDX" when it is right). */
export function describeMagic(head: Uint8Array): string {
  return String.fromCharCode(...head.subarray(0, Math.min(8, head.byteLength))).replace(/\0+$/, '');
}

/** Magic (A2's first check): records BadMagic; true when the bytes there are TARIDX's. */
export function checkMagic(head: Uint8Array, problems: ProblemList): boolean {
  for (let i = 0; i < Math.min(MAGIC.byteLength, head.byteLength); i++) {
    if (head[i] !== MAGIC[i]) {
      problems.error(
        'BadMagic',
        `not a TARIDX file: magic is ${JSON.stringify(describeMagic(head))}, expected "TARIDX"`,
        { offset: 0, phase: Phase.magic },
      );
      return false;
    }
  }
  return true;
}

/**
 * Version and the fixed-size fields (A2: version → header fields). Returns false when the
 * rest of the file cannot be read as this version's layout.
 */
export function checkHeaderFields(header: TaridxHeader, problems: ProblemList): boolean {
  if (header.major !== MAJOR) {
    problems.error(
      'UnsupportedVersion',
      `TARIDX major version ${header.major}; this reader implements ${MAJOR}`,
      {
        offset: H.major,
        phase: Phase.version,
      },
    );
    return false;
  }
  if (header.minor > MINOR) {
    problems.warn(
      'NewerMinor',
      `TARIDX ${header.major}.${header.minor} is newer than ${MAJOR}.${MINOR}; reading the fields 1.0 defines`,
      { offset: H.minor },
    );
  }
  let ok = true;
  if (header.recSize !== ROW_SIZE) {
    problems.error('InvalidValue', `rec_size is ${header.recSize}, must be ${ROW_SIZE}`, {
      offset: H.recSize,
      phase: Phase.header,
    });
    ok = false;
  }
  if (header.hdrSize !== HEADER_SIZE) {
    problems.error('InvalidValue', `hdr_size is ${header.hdrSize}, must be ${HEADER_SIZE}`, {
      offset: H.hdrSize,
      phase: Phase.header,
    });
    ok = false;
  }
  if (header.flags & ~FLAG_CONTIGUOUS)
    problems.warn('ReservedFlags', `reserved flag bits are set (flags = ${header.flags}); ignored`, {
      offset: H.flags,
    });
  if (header.reserved.some((b) => b !== 0))
    problems.warn('ReservedBytes', 'reserved header bytes are not zero; ignored', { offset: H.reserved });
  return ok;
}

/** Where the rows are, as far as the file holds them. */
export interface RowRegion {
  /** Whole 32-byte rows present from off_arr (may be fewer than n_rows in a cut file). */
  wholeRows: number;
  /** Bytes of a cut last row after the whole ones (0 when the region is a multiple of 32). */
  cutBytes: number;
}

/**
 * Region bounds (A2 bounds, then counts): [64, off_crash) extensions, [off_crash, off_arr) crash
 * stems, [off_arr, EOF) rows. Undefined when the regions cannot be located.
 */
export function checkRegions(
  header: TaridxHeader,
  head: Uint8Array,
  size: number,
  problems: ProblemList,
): RowRegion | undefined {
  const view = new DataView(head.buffer, head.byteOffset, HEADER_SIZE);
  // 64-bit fields in messages: the exact value, not the nearest double.
  const exact = (at: number) => readU64Big(view, at, true).toString();
  const bounds = (message: string, offset: number) => {
    problems.error('OutOfBounds', message, { offset, phase: Phase.bounds });
    return undefined;
  };
  if (header.offCrash < HEADER_SIZE)
    return bounds(`off_crash ${exact(H.offCrash)} points into the 64-byte header`, H.offCrash);
  if (header.offCrash > size)
    return bounds(`off_crash ${exact(H.offCrash)} is past the end of the file (${size} bytes)`, H.offCrash);
  if (header.offArr < header.offCrash)
    return bounds(`off_arr ${exact(H.offArr)} lies before off_crash ${exact(H.offCrash)}`, H.offArr);
  if (header.offArr > size)
    return bounds(`off_arr ${exact(H.offArr)} is past the end of the file (${size} bytes)`, H.offArr);

  const rowBytes = size - header.offArr;
  const wholeRows = Math.floor(rowBytes / ROW_SIZE);
  const cutBytes = rowBytes % ROW_SIZE;
  if (cutBytes !== 0) {
    problems.error(
      'Truncated',
      `the row region (${rowBytes} bytes from off_arr ${exact(H.offArr)}) is not a multiple of ${ROW_SIZE}: the last row is cut after ${cutBytes} bytes`,
      { offset: header.offArr + wholeRows * ROW_SIZE, phase: Phase.bounds },
    );
  }
  // A cut last row is the Truncated above, not a second, count error.
  const rowsStored = wholeRows + (cutBytes ? 1 : 0);
  if (header.nRows !== rowsStored) {
    problems.error(
      'CountMismatch',
      `n_rows is ${exact(H.nRows)} but the row region holds ${wholeRows} rows`,
      {
        offset: H.nRows,
        phase: Phase.reference,
      },
    );
  }
  if (header.nStems > header.nRows || (header.nStems === 0 && header.nRows > 0)) {
    problems.error('CountMismatch', `n_stems ${exact(H.nStems)} is impossible for ${exact(H.nRows)} rows`, {
      offset: H.nStems,
      phase: Phase.reference,
    });
  }
  return { wholeRows, cutBytes };
}
