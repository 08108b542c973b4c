import {
  type ByteSource,
  type ErrorCode,
  FormatError,
  type Problem,
  type ReadOptions,
  readExact,
  readU64,
  readU64Big,
} from '@binscope/core';
import type { XXHashAPI } from 'xxhash-wasm';
import { groupRows, type RowGroups } from './groups.js';
import { hashKey } from './hash.js';
import {
  FLAG_CONTIGUOUS,
  FORMAT,
  H,
  HEADER_SIZE,
  MAGIC,
  MAJOR,
  MINOR,
  R,
  ROW_SIZE,
  TAR_BLOCK,
  type TaridxHeader,
} from './layout.js';

/** What open() learns without reading rows: header and both text blocks, every check of T7/T8. */
export interface ParsedIndex {
  header: TaridxHeader;
  extensions: string[];
  crashStems: string[];
  warnings: Problem[];
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses and checks everything before the rows, in the order of A2: magic → version →
 * header fields → region bounds → counts → UTF-8. Throws the first defect.
 */
export async function parseIndex(source: ByteSource, options: ReadOptions = {}): Promise<ParsedIndex> {
  const file = source.name;
  const fail = (code: ErrorCode, message: string, offset: number) =>
    new FormatError(code, message, { offset, file, format: FORMAT });
  const size = source.size;

  const head = await source.read(0, Math.min(HEADER_SIZE, size), options);
  for (let i = 0; i < Math.min(MAGIC.byteLength, head.byteLength); i++) {
    if (head[i] !== MAGIC[i])
      throw fail('BadMagic', `not a TARIDX file: magic is ${describeMagic(head)}, expected "TARIDX"`, 0);
  }
  if (head.byteLength < HEADER_SIZE) {
    throw fail('Truncated', `the 64-byte header needs ${HEADER_SIZE} bytes but the file has ${size}`, 0);
  }
  const view = new DataView(head.buffer, head.byteOffset, HEADER_SIZE);
  const warnings: Problem[] = [];
  const warn = (code: string, message: string, offset: number) =>
    warnings.push({ code, message, offset, file, format: FORMAT });

  const header: TaridxHeader = {
    magic: 'TARIDX',
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

  if (header.major !== MAJOR) {
    throw fail(
      'UnsupportedVersion',
      `TARIDX major version ${header.major}; this reader implements ${MAJOR}`,
      H.major,
    );
  }
  if (header.minor > MINOR) {
    warn(
      'NewerMinor',
      `TARIDX ${header.major}.${header.minor} is newer than ${MAJOR}.${MINOR}; reading the fields 1.0 defines`,
      H.minor,
    );
  }
  if (header.recSize !== ROW_SIZE)
    throw fail('InvalidValue', `rec_size is ${header.recSize}, must be ${ROW_SIZE}`, H.recSize);
  if (header.hdrSize !== HEADER_SIZE)
    throw fail('InvalidValue', `hdr_size is ${header.hdrSize}, must be ${HEADER_SIZE}`, H.hdrSize);
  if (header.flags & ~FLAG_CONTIGUOUS)
    warn('ReservedFlags', `reserved flag bits are set (flags = ${header.flags}); ignored`, H.flags);
  if (header.reserved.some((b) => b !== 0))
    warn('ReservedBytes', 'reserved header bytes are not zero; ignored', H.reserved);

  // Region bounds: [64, off_crash) extensions, [off_crash, off_arr) crash stems, [off_arr, EOF) rows.
  // 64-bit fields in messages: the exact value, not the nearest double.
  const exact = (at: number) => readU64Big(view, at, true).toString();
  if (header.offCrash < HEADER_SIZE) {
    throw fail('OutOfBounds', `off_crash ${exact(H.offCrash)} points into the 64-byte header`, H.offCrash);
  }
  if (header.offCrash > size) {
    throw fail(
      'OutOfBounds',
      `off_crash ${exact(H.offCrash)} is past the end of the file (${size} bytes)`,
      H.offCrash,
    );
  }
  if (header.offArr < header.offCrash) {
    throw fail(
      'OutOfBounds',
      `off_arr ${exact(H.offArr)} lies before off_crash ${exact(H.offCrash)}`,
      H.offArr,
    );
  }
  if (header.offArr > size) {
    throw fail(
      'OutOfBounds',
      `off_arr ${exact(H.offArr)} is past the end of the file (${size} bytes)`,
      H.offArr,
    );
  }
  const rowBytes = size - header.offArr;
  const wholeRows = Math.floor(rowBytes / ROW_SIZE);
  if (rowBytes % ROW_SIZE !== 0) {
    throw fail(
      'Truncated',
      `the row region (${rowBytes} bytes from off_arr ${exact(H.offArr)}) is not a multiple of ${ROW_SIZE}: the last row is cut after ${rowBytes % ROW_SIZE} bytes`,
      header.offArr + wholeRows * ROW_SIZE,
    );
  }
  if (header.nRows !== wholeRows) {
    throw fail(
      'CountMismatch',
      `n_rows is ${exact(H.nRows)} but the row region holds ${wholeRows} rows`,
      H.nRows,
    );
  }
  if (header.nStems > header.nRows || (header.nStems === 0 && header.nRows > 0)) {
    throw fail(
      'CountMismatch',
      `n_stems ${exact(H.nStems)} is impossible for ${exact(H.nRows)} rows`,
      H.nStems,
    );
  }

  const extBytes = await readExact(source, HEADER_SIZE, header.offCrash - HEADER_SIZE, {
    ...options,
    format: FORMAT,
    what: 'extension block',
  });
  const extParts = splitBlock(extBytes, header.nExt);
  if (extParts.length !== header.nExt) {
    throw fail(
      'CountMismatch',
      `n_ext is ${header.nExt} but the extension block holds ${extParts.length} entries`,
      H.nExt,
    );
  }
  const crashBytes = await readExact(source, header.offCrash, header.offArr - header.offCrash, {
    ...options,
    format: FORMAT,
    what: 'crash-stem block',
  });
  const crashParts = splitBlock(crashBytes, header.nCrash);
  if (crashParts.length !== header.nCrash) {
    throw fail(
      'CountMismatch',
      `n_crash is ${header.nCrash} but the crash-stem block holds ${crashParts.length} entries`,
      H.nCrash,
    );
  }

  const decode = (bytes: Uint8Array, parts: Array<[number, number]>, base: number, what: string) =>
    parts.map(([start, end]) => {
      try {
        return strictUtf8.decode(bytes.subarray(start, end));
      } catch {
        throw fail('InvalidValue', `${what} is not valid UTF-8`, base + start);
      }
    });
  const extensions = decode(extBytes, extParts, HEADER_SIZE, 'an extension');
  const crashStems = decode(crashBytes, crashParts, header.offCrash, 'a crash stem');
  if (new Set(extensions).size !== extensions.length)
    warn('DuplicateExtension', 'the extension table lists an extension twice', HEADER_SIZE);
  if (new Set(crashStems).size !== crashStems.length)
    warn('DuplicateCrashStem', 'the crash-stem table lists a stem twice', header.offCrash);
  return { header, extensions, crashStems, warnings };
}

/**
 * Entry ranges of a "\n"-joined block (T7): split on "\n" only; an empty block is no
 * entries when the count is 0 and one "" entry otherwise.
 */
export function splitBlock(bytes: Uint8Array, count: number): Array<[number, number]> {
  if (bytes.byteLength === 0) return count === 0 ? [] : [[0, 0]];
  const parts: Array<[number, number]> = [];
  let start = 0;
  for (let i = 0; i < bytes.byteLength; i++) {
    if (bytes[i] === 0x0a) {
      parts.push([start, i]);
      start = i + 1;
    }
  }
  parts.push([start, bytes.byteLength]);
  return parts;
}

function describeMagic(head: Uint8Array): string {
  const bytes = head.subarray(0, 8);
  return JSON.stringify(String.fromCharCode(...bytes).replace(/\0+$/, ''));
}

/** Rows loaded, checked and grouped into samples. */
export interface LoadedRows {
  bytes: Uint8Array;
  view: DataView;
  groups: RowGroups;
}

/** Reads the row region (one pass, exact size: its length was checked against the file). */
export async function readRows(
  source: ByteSource,
  header: TaridxHeader,
  options: ReadOptions = {},
): Promise<Uint8Array> {
  const length = header.nRows * ROW_SIZE;
  const out = new Uint8Array(length);
  const chunk = 16 << 20;
  for (let pos = 0; pos < length; pos += chunk) {
    const part = await readExact(source, header.offArr + pos, Math.min(chunk, length - pos), {
      ...options,
      format: FORMAT,
      what: 'rows',
    });
    out.set(part, pos);
  }
  return out;
}

export type Report = (code: ErrorCode, message: string, offset: number) => void;

/**
 * The row checks (T8 and the invariants of spec section 9), in A2 order per row: alignment
 * of the tar offset, then bounds (offsets, ids), then cross-references (a crash row's
 * keyhash is its crash stem's hash); then the counts n_stems and flags. `report` throws
 * (readers) or collects (validate).
 */
export function checkRows(
  parsed: ParsedIndex,
  rows: Uint8Array,
  hasher: XXHashAPI,
  report: Report,
): RowGroups {
  const { header, crashStems } = parsed;
  const view = new DataView(rows.buffer, rows.byteOffset, rows.byteLength);
  const crashLo = new Uint32Array(crashStems.length + 1);
  const crashHi = new Uint32Array(crashStems.length + 1);
  crashStems.forEach((stem, i) => {
    [crashLo[i + 1], crashHi[i + 1]] = hashKey(hasher, stem);
  });
  const nExt = header.nExt;
  const nCrash = header.nCrash;
  for (let i = 0; i < header.nRows; i++) {
    const at = i * ROW_SIZE;
    const fileAt = header.offArr + at;
    const offset = readU64(view, at + R.offset);
    const size = readU64(view, at + R.size);
    if (!Number.isSafeInteger(offset))
      report('OutOfBounds', `row ${i}: offset is beyond any file size`, fileAt + R.offset);
    else if (offset % TAR_BLOCK !== 0) {
      report(
        'Misaligned',
        `row ${i}: tar header offset ${offset} is not a multiple of 512`,
        fileAt + R.offset,
      );
    }
    if (!Number.isSafeInteger(size))
      report('OutOfBounds', `row ${i}: size is beyond any file size`, fileAt + R.size);
    const extid = view.getUint16(at + R.extid, true);
    if (extid >= nExt)
      report('OutOfBounds', `row ${i}: extid ${extid} is not below n_ext ${nExt}`, fileAt + R.extid);
    const crashid = view.getUint32(at + R.crashid, true);
    if (crashid > nCrash)
      report(
        'OutOfBounds',
        `row ${i}: crashid ${crashid} is past the crash table (n_crash ${nCrash})`,
        fileAt + R.crashid,
      );
    else if (
      crashid > 0 &&
      (view.getUint32(at + R.keyhash, true) !== crashLo[crashid] ||
        view.getUint32(at + R.keyhash + 4, true) !== crashHi[crashid])
    ) {
      report(
        'InvalidValue',
        `row ${i}: keyhash is not the hash of crash stem ${crashid} (${JSON.stringify(crashStems[crashid - 1])})`,
        fileAt + R.keyhash,
      );
    }
  }
  const groups = groupRows(rows, header.nRows);
  if (groups.count !== header.nStems) {
    report(
      'CountMismatch',
      `n_stems is ${header.nStems} but the rows hold ${groups.count} distinct (keyhash, crashid) keys`,
      H.nStems,
    );
  }
  const contiguous = groups.runs === groups.count;
  if (contiguous !== ((header.flags & FLAG_CONTIGUOUS) !== 0)) {
    report(
      'InvalidValue',
      contiguous
        ? 'flags bit 0 is clear but every sample’s rows are contiguous (T5 requires the bit)'
        : `flags bit 0 says rows are contiguous by sample, but they form ${groups.runs} runs for ${groups.count} samples`,
      H.flags,
    );
  }
  return groups;
}
