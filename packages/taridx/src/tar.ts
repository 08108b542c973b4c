import type { FormatError } from '@binscope/core';
import { TAR_BLOCK, fail } from './layout.js';

/**
 * Tar header blocks, read the way TARIDX needs them (T1, T2, T6): the 100-byte name
 * field, the size (octal, GNU base-256 or a preceding PAX `size` record) and the typeflag.
 * Payloads are never read, except PAX extended headers, which carry sizes. The walk over a
 * tar's headers is tar-walk.ts.
 */

/** Members at least this large need a PAX or base-256 size (the octal field tops out below). */
export const OCTAL_SIZE_LIMIT = 0o77777777777 + 1;

/** End of the NUL-terminated name in the first 100 bytes of the header at `at`. */
export function nameEnd(block: Uint8Array, at: number): number {
  const limit = at + 100;
  for (let i = at; i < limit; i++) if (block[i] === 0) return i;
  return limit;
}

/**
 * Where the stem and extension of a name lie: base = after the last '/', stem = up to the
 * first '.', extension = the rest. Works on bytes: '/' and '.' are ASCII, so U+FFFD
 * replacement of invalid UTF-8 never moves them.
 */
export function splitName(block: Uint8Array, start: number, end: number): Readonly<NameParts> {
  let stemStart = start;
  for (let i = end - 1; i >= start; i--) {
    if (block[i] === 0x2f) {
      stemStart = i + 1;
      break;
    }
  }
  let dot = -1;
  for (let i = stemStart; i < end; i++) {
    if (block[i] === 0x2e) {
      dot = i;
      break;
    }
  }
  // One shared result, read right away by every caller: the indexer and the sample reader
  // split a name per header, and an object each would be garbage on that hot path.
  nameParts.stemStart = stemStart;
  nameParts.dot = dot;
  nameParts.end = end;
  return nameParts;
}

interface NameParts {
  /** Where the stem starts (after the last '/'). */
  stemStart: number;
  /** The first '.' of the base name, -1 when it has none. */
  dot: number;
  /** Where the name ends. */
  end: number;
}

const nameParts: NameParts = { stemStart: 0, dot: -1, end: 0 };

/**
 * `splitName(block, at, nameEnd(block, at))` in one pass over the header's name field, plus
 * the name's end: for the random-read path, which checks every member's header. Shares
 * splitName's result object.
 */
export function scanName(block: Uint8Array, at: number): Readonly<NameParts> {
  const limit = at + 100;
  let end = limit;
  let stemStart = at;
  let dot = -1;
  for (let i = at; i < limit; i++) {
    const b = block[i];
    if (b === 0) {
      end = i;
      break;
    }
    if (b === 0x2f) {
      stemStart = i + 1;
      dot = -1;
    } else if (b === 0x2e && dot < 0) dot = i;
  }
  nameParts.stemStart = stemStart;
  nameParts.dot = dot;
  nameParts.end = end;
  return nameParts;
}

/** The typeflag character of the header at `at` ('0', '5', 'L', 'x', ...; NUL reads as '0'). */
export function typeflagOf(block: Uint8Array, at: number): string {
  const t = block[at + 156];
  return t === 0 ? '0' : String.fromCharCode(t);
}

/**
 * Whether the header at `at` is a tar extended header (PAX `x`/`g`, GNU long name `L`/`K`):
 * records about the member that follows (or the archive), never a member itself. The index
 * records them as rows, as upstream's indexer does (T2); readers leave them out.
 */
export function isExtendedHeader(block: Uint8Array, at: number): boolean {
  const t = block[at + 156];
  return t === 0x78 || t === 0x67 || t === 0x4c || t === 0x4b;
}

export function isZeroBlock(block: Uint8Array, at: number): boolean {
  for (let i = at; i < at + TAR_BLOCK; i++) if (block[i] !== 0) return false;
  return true;
}

/**
 * The one header-checksum rule (the unsigned sum, or the signed sum some old tars wrote), shared by the indexer and `validate --deep`: undefined when
 * the stored checksum matches, else what is wrong, in words.
 */
export function checksumProblem(block: Uint8Array, at: number, total = -1): string | undefined {
  // The indexer checks every header, so the common case is one tight sum with the checksum
  // field counted as eight spaces; the signed sum is only computed when that one disagrees.
  let unsigned: number;
  if (total >= 0) unsigned = total - fieldSum(block, at) + 8 * 0x20;
  else {
    unsigned = 8 * 0x20;
    for (let i = at; i < at + 148; i++) unsigned += block[i];
    for (let i = at + 156; i < at + TAR_BLOCK; i++) unsigned += block[i];
  }
  const stored = plainOctalField(block, at + 148);
  if (stored === unsigned) return undefined;
  return checksumMismatch(block, at, unsigned);
}

/**
 * The sum of the 512 bytes `words` views, four words a step: each word's even and odd bytes
 * are masked into two 16-bit lanes and added (≤ 1,020 per lane a step, ≤ 32,640 after 32 steps,
 * ≤ 65,280 for both accumulators together: no lane carries into the next). Unrolled, it ran
 * ~1.7× faster than a word a step. The indexer's walk sums in WebAssembly where it can.
 */
export function wordSum(words: Uint32Array): number {
  let a = 0;
  let b = 0;
  for (let i = 0; i < TAR_BLOCK / 4; i += 4) {
    const w0 = words[i];
    const w1 = words[i + 1];
    const w2 = words[i + 2];
    const w3 = words[i + 3];
    a += (w0 & 0x00ff00ff) + ((w0 >>> 8) & 0x00ff00ff) + (w1 & 0x00ff00ff) + ((w1 >>> 8) & 0x00ff00ff);
    b += (w2 & 0x00ff00ff) + ((w2 >>> 8) & 0x00ff00ff) + (w3 & 0x00ff00ff) + ((w3 >>> 8) & 0x00ff00ff);
  }
  const sum = a + b;
  return (sum & 0xffff) + (sum >>> 16);
}

/** The sum of the checksum field's own eight bytes. */
function fieldSum(block: Uint8Array, at: number): number {
  let sum = 0;
  for (let i = at + 148; i < at + 156; i++) sum += block[i];
  return sum;
}

/** The slow side of checksumProblem: the general octal parse and the signed sum. */
function checksumMismatch(block: Uint8Array, at: number, unsigned: number): string | undefined {
  let signed = 8 * 0x20;
  for (let i = at; i < at + TAR_BLOCK; i++) {
    if (i >= at + 148 && i < at + 156) continue;
    const b = block[i];
    signed += b > 127 ? b - 256 : b;
  }
  const stored = parseOctal(block, at + 148, 8);
  if (stored === unsigned || stored === signed) return undefined;
  if (stored < 0)
    return `bad header checksum: the checksum field is not octal (the header sums to ${unsigned})`;
  return `bad header checksum: stored ${stored}, the header sums to ${unsigned}`;
}

/**
 * The 8-byte checksum field as tar writers emit it (octal digits, then NUL and/or spaces, no
 * leading space), else -1, which sends checksumProblem to the general parse.
 */
function plainOctalField(block: Uint8Array, start: number): number {
  const end = start + 8;
  let i = start;
  let value = 0;
  for (; i < end; i++) {
    const d = block[i] - 0x30;
    if (d < 0 || d > 7) break;
    value = value * 8 + d;
  }
  if (i === start) return -1;
  for (; i < end; i++) {
    const b = block[i];
    if (b === 0) return value;
    if (b !== 0x20) return -1;
  }
  return value;
}

/** Octal text up to the first NUL, surrounding whitespace ignored, as Python's int(x, 8). -1 if not octal. */
function parseOctal(block: Uint8Array, start: number, width: number): number {
  let end = start + width;
  for (let i = start; i < end; i++) {
    if (block[i] === 0) {
      end = i;
      break;
    }
  }
  let i = start;
  while (i < end && isSpace(block[i])) i++;
  while (end > i && isSpace(block[end - 1])) end--;
  let value = 0;
  for (; i < end; i++) {
    const d = block[i] - 0x30;
    if (d < 0 || d > 7) return -1;
    value = value * 8 + d;
  }
  return value;
}

function isSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
}

/**
 * The size field when it is what tar writers emit (octal digits, then NUL or trailing spaces),
 * else -1. A cheap first look for hot paths; -1 sends the caller to `sizeField`.
 */
export function plainOctalSize(block: Uint8Array, at: number): number {
  const end = at + 136;
  let i = at + 124;
  let value = 0;
  for (; i < end; i++) {
    const d = block[i] - 0x30;
    if (d < 0 || d > 7) break;
    value = value * 8 + d;
  }
  if (i === at + 124) return -1;
  for (; i < end; i++) {
    const b = block[i];
    if (b === 0) return value;
    if (b !== 0x20) return -1;
  }
  return value;
}

/** The size field (bytes 124..136): octal text, or GNU base-256 when the high bit is set. */
export function sizeField(block: Uint8Array, at: number, where: { file: string; offset: number }): number {
  const first = block[at + 124];
  if (first & 0x80) {
    if (first === 0xff) throw sizeError('is a negative base-256 number', where);
    let value = first & 0x7f;
    for (let i = at + 125; i < at + 136; i++) {
      value = value * 256 + block[i];
      if (value > Number.MAX_SAFE_INTEGER) {
        throw fail('OutOfBounds', 'tar member size is beyond 2^53 bytes', where.offset, where.file);
      }
    }
    return value;
  }
  const value = parseOctal(block, at + 124, 12);
  if (value < 0) throw sizeError('is not octal text', where);
  return value;
}

function sizeError(what: string, where: { file: string; offset: number }): FormatError {
  return fail(
    'InvalidValue',
    `tar header size field ${what}; is this a tar file?`,
    where.offset + 124,
    where.file,
  );
}

/** The `size` record of a PAX extended header's payload, if any. */
export function paxSize(payload: Uint8Array, where: { file: string; offset: number }): number | undefined {
  let pos = 0;
  let found: number | undefined;
  while (pos < payload.byteLength) {
    let length = 0;
    let i = pos;
    while (i < payload.byteLength && payload[i] >= 0x30 && payload[i] <= 0x39) {
      length = length * 10 + payload[i] - 0x30;
      i++;
    }
    if (i === pos || payload[i] !== 0x20 || length <= i - pos || pos + length > payload.byteLength) {
      if (payload.subarray(pos).every((b) => b === 0)) break; // NUL padding after the records
      throw fail(
        'InvalidValue',
        'malformed PAX extended header record',
        where.offset + TAR_BLOCK + pos,
        where.file,
      );
    }
    const record = payload.subarray(i + 1, pos + length);
    if (
      record.byteLength > 5 &&
      record[0] === 0x73 &&
      record[1] === 0x69 &&
      record[2] === 0x7a &&
      record[3] === 0x65 &&
      record[4] === 0x3d
    ) {
      // "size=" then decimal digits and "\n"
      let value = 0;
      let digits = 0;
      for (let k = 5; k < record.byteLength && record[k] !== 0x0a; k++) {
        const d = record[k] - 0x30;
        if (d < 0 || d > 9) {
          digits = -1;
          break;
        }
        value = value * 10 + d;
        digits++;
      }
      if (digits <= 0 || !Number.isSafeInteger(value)) {
        throw fail(
          'InvalidValue',
          'PAX size record is not a decimal size below 2^53',
          where.offset + TAR_BLOCK + pos,
          where.file,
        );
      }
      found = value;
    }
    pos += length;
  }
  return found;
}
