import type { FormatError } from '@binscope/core';
import type { XXHashAPI } from 'xxhash-wasm';
import { sampleHashMatches } from './hash.js';
import { fail } from './layout.js';
import type { TaridxMember, TaridxSample } from './reader-types.js';
import type { MemberRead } from './sample-read.js';
import { OCTAL_SIZE_LIMIT, plainOctalSize, scanName, sizeField } from './tar.js';

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** What the verifier needs of a read: the sample it is for and the first member's stem (kept). */
type VerifyRun = Pick<MemberRead, 'sample' | 'stem'>;

/** Whether `b[bStart, bStart + length)` equals all of `a`. */
function equalBytesAt(a: Uint8Array, b: Uint8Array, bStart: number, length: number): boolean {
  if (a.byteLength !== length) return false;
  for (let i = 0; i < length; i++) if (a[i] !== b[bStart + i]) return false;
  return true;
}

function changedError(member: TaridxMember, file: string, what: string): FormatError {
  return fail(
    'InvalidValue',
    `row ${member.row}: ${what} (the shard changed after indexing?)`,
    member.offset,
    file,
  );
}

/** Whether name bytes [start, end) lower-case to `expected` (ASCII compared in place). */
function extMatches(
  block: Uint8Array,
  start: number,
  end: number,
  none: boolean,
  expected: Uint8Array,
  text: string,
): boolean {
  if (none) return text === '';
  const length = expected.byteLength;
  if (end - start === length) {
    let ascii = true;
    for (let i = 0; i < length; i++) {
      let b = block[start + i];
      if (b >= 0x80) {
        ascii = false;
        break;
      }
      if (b >= 0x41 && b <= 0x5a) b += 0x20;
      if (b !== expected[i]) return false;
    }
    if (ascii) return true;
  }
  return decoder.decode(block.subarray(start, end)).toLowerCase() === text;
}

/**
 * Checks a member's tar header against its row as payloads are read: a shard that changed
 * after indexing raises InvalidValue instead of handing out the wrong bytes.
 */
export class MemberVerifier {
  /** Where a header being verified is, for sizeField's errors (reused: the read path is hot). */
  private readonly where = { file: '', offset: 0 };

  constructor(
    private readonly hasher: XXHashAPI,
    private readonly crashIds: ReadonlyMap<string, number>,
    private readonly extBytes: readonly Uint8Array[],
  ) {}

  /**
   * Checks that the header at `at` is the member the row describes. The first member's stem
   * is checked against the sample's key (hash) and kept in `run.stem`, so the sample's other
   * members only need a byte comparison. This runs per member on the random-read path, so the
   * name is scanned once, in place.
   */
  verify(block: Uint8Array, at: number, member: TaridxMember, file: string, run: VerifyRun): void {
    const size = plainOctalSize(block, at);
    if (size !== member.size) this.checkSizeField(block, at, member, file);
    const { end, stemStart, dot } = scanName(block, at);
    const stemEnd = dot < 0 ? end : dot;
    if (!extMatches(block, dot < 0 ? end : dot + 1, end, dot < 0, this.extBytes[member.extid], member.ext)) {
      throw changedError(
        member,
        file,
        `member name ${JSON.stringify(decoder.decode(block.subarray(at, end)))} does not have extension "${member.ext}"`,
      );
    }
    const stem = run.stem;
    if (stem) {
      if (!equalBytesAt(stem, block, stemStart, stemEnd - stemStart))
        throw changedError(member, file, 'members of one sample have different stems');
      return;
    }
    const stemBytes = new Uint8Array(block.buffer, block.byteOffset + stemStart, stemEnd - stemStart);
    if (run.sample && !this.stemIsKey(stemBytes, run.sample)) {
      throw changedError(
        member,
        file,
        `member name's stem ${JSON.stringify(decoder.decode(stemBytes))} is not the sample's key`,
      );
    }
    run.stem = stemBytes;
  }

  /** The size field disagrees with the row (or is not plain octal): the full parse decides which. */
  private checkSizeField(block: Uint8Array, at: number, member: TaridxMember, file: string): void {
    let size: number;
    const where = this.where;
    where.file = file;
    where.offset = member.offset;
    try {
      size = sizeField(block, at, where);
    } catch {
      throw changedError(member, file, 'no tar header at the row offset');
    }
    if (size !== member.size && member.size < OCTAL_SIZE_LIMIT)
      throw changedError(member, file, `tar header says ${size} bytes, the index ${member.size}`);
  }

  /** Whether a member's stem bytes name this sample: its key, or (no key) its keyhash and crash id 0. */
  private stemIsKey(stemBytes: Uint8Array, sample: TaridxSample): boolean {
    let ascii = true;
    const length = stemBytes.byteLength;
    for (let i = 0; i < length; i++) {
      if (stemBytes[i] >= 0x80) {
        ascii = false;
        break;
      }
    }
    // Crash stems, keys and non-ASCII stems compare as text; plain ASCII stems hash in place.
    if (sample.key !== undefined || !ascii || this.crashIds.size > 0) {
      const text = decoder.decode(stemBytes);
      const ok =
        sample.key !== undefined ? text === sample.key : sampleHashMatches(this.hasher, text, sample.keyhash);
      return ok && !(sample.crashid === 0 && this.crashIds.has(text));
    }
    return this.hasher.h64Raw(stemBytes, 0n) === sample.keyhash;
  }
}
