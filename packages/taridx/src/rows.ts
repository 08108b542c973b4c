import {
  type ByteSource,
  type ErrorCode,
  type FindingWhere,
  Phase,
  type ProblemList,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { readU64, readU64Big } from '@binscope/core/binary';
import type { XXHashAPI } from 'xxhash-wasm';
import { groupRows, type RowGroups } from './groups.js';
import { hashKey } from './hash.js';
import {
  FLAG_CONTIGUOUS,
  FORMAT,
  H,
  joinHash,
  R,
  ROW_SIZE,
  TAR_BLOCK,
  type TaridxHeader,
  type TaridxRow,
} from './layout.js';
import type { ParsedIndex } from './parse.js';

/** Errors of one kind beyond this many are summarised, so a bad 10 GB index gives a readable report. */
export const MAX_PER_CODE = 20;

/**
 * A problem list that keeps at most MAX_PER_CODE errors of each code (then one summary): a
 * file where every row is wrong must not hold millions of findings in memory.
 */
export class CappedErrors {
  private readonly counts = new Map<string, number>();

  constructor(readonly problems: ProblemList) {}

  error(code: ErrorCode, message: string, where: FindingWhere): void {
    const n = (this.counts.get(code) ?? 0) + 1;
    this.counts.set(code, n);
    if (n <= MAX_PER_CODE) this.problems.error(code, message, where);
  }

  /** The "… and N more" summaries, ranked after everything found. */
  summarise(): void {
    for (const [code, n] of this.counts) {
      if (n > MAX_PER_CODE)
        this.problems.error(code as ErrorCode, `… and ${n - MAX_PER_CODE} more ${code} errors`, {});
    }
    this.counts.clear();
  }
}

/** Row `i` of packed rows. */
export function rowAt(view: DataView, i: number): TaridxRow {
  const at = i * ROW_SIZE;
  return {
    fid: view.getUint16(at + R.fid, true),
    offset: readU64(view, at + R.offset),
    size: readU64(view, at + R.size),
    extid: view.getUint16(at + R.extid, true),
    crashid: view.getUint32(at + R.crashid, true),
    keyhash: joinHash(view.getUint32(at + R.keyhash, true), view.getUint32(at + R.keyhash + 4, true)),
  };
}

/** Reads the first `count` rows (one pass, exact size: the region was checked against the file). */
export async function readRows(
  source: ByteSource,
  header: TaridxHeader,
  count: number,
  options: ReadOptions = {},
): Promise<Uint8Array> {
  const length = count * ROW_SIZE;
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

/**
 * The row checks (T8 and the invariants of spec section 9), ranked in A2 order: alignment of
 * the tar offset, bounds (offsets, ids), cross-references (a crash row's keyhash is its crash
 * stem's hash), then the counts n_stems and flags. Strict reads checkpoint after it.
 */
export function checkRows(
  parsed: ParsedIndex,
  rows: Uint8Array,
  hasher: XXHashAPI,
  errors: CappedErrors,
): RowGroups {
  const { header, crashStems } = parsed;
  const view = new DataView(rows.buffer, rows.byteOffset, rows.byteLength);
  const crashLo = new Uint32Array(crashStems.length + 1);
  const crashHi = new Uint32Array(crashStems.length + 1);
  crashStems.forEach((stem, i) => {
    [crashLo[i + 1], crashHi[i + 1]] = hashKey(hasher, stem);
  });
  const { nExt, nCrash } = header;
  const at = (offset: number, phase: number) => ({ offset, phase });
  for (let i = 0; i < header.nRows; i++) {
    const row = i * ROW_SIZE;
    const fileAt = header.offArr + row;
    const offset = readU64(view, row + R.offset);
    const size = readU64(view, row + R.size);
    if (!Number.isSafeInteger(offset))
      errors.error(
        'OutOfBounds',
        `row ${i}: offset ${readU64Big(view, row + R.offset)} is beyond any file size`,
        at(fileAt + R.offset, Phase.bounds),
      );
    else if (offset % TAR_BLOCK !== 0) {
      errors.error(
        'Misaligned',
        `row ${i}: tar header offset ${offset} is not a multiple of 512`,
        at(fileAt + R.offset, Phase.alignment),
      );
    }
    if (!Number.isSafeInteger(size))
      errors.error(
        'OutOfBounds',
        `row ${i}: size ${readU64Big(view, row + R.size)} is beyond any file size`,
        at(fileAt + R.size, Phase.bounds),
      );
    const extid = view.getUint16(row + R.extid, true);
    if (extid >= nExt)
      errors.error(
        'OutOfBounds',
        `row ${i}: extid ${extid} is not below n_ext ${nExt}`,
        at(fileAt + R.extid, Phase.bounds),
      );
    const crashid = view.getUint32(row + R.crashid, true);
    if (crashid > nCrash)
      errors.error(
        'OutOfBounds',
        `row ${i}: crashid ${crashid} is past the crash table (n_crash ${nCrash})`,
        at(fileAt + R.crashid, Phase.bounds),
      );
    else if (
      crashid > 0 &&
      (view.getUint32(row + R.keyhash, true) !== crashLo[crashid] ||
        view.getUint32(row + R.keyhash + 4, true) !== crashHi[crashid])
    ) {
      errors.error(
        'InvalidValue',
        `row ${i}: keyhash is not the hash of crash stem ${crashid} (${JSON.stringify(crashStems[crashid - 1])})`,
        at(fileAt + R.keyhash, Phase.reference),
      );
    }
  }
  const groups = groupRows(rows, header.nRows);
  checkSampleCounts(header, groups, errors);
  return groups;
}

/** T5: n_stems is the number of samples, flags bit 0 says whether their rows are contiguous. */
function checkSampleCounts(header: TaridxHeader, groups: RowGroups, errors: CappedErrors): void {
  if (groups.count !== header.nStems) {
    errors.error(
      'CountMismatch',
      `n_stems is ${header.nStems} but the rows hold ${groups.count} distinct (keyhash, crashid) keys`,
      { offset: H.nStems, phase: Phase.reference },
    );
  }
  const contiguous = groups.runs === groups.count;
  if (contiguous !== ((header.flags & FLAG_CONTIGUOUS) !== 0)) {
    errors.error(
      'InvalidValue',
      contiguous
        ? 'flags bit 0 is clear but every sample’s rows are contiguous (T5 requires the bit)'
        : `flags bit 0 says rows are contiguous by sample, but they form ${groups.runs} runs for ${groups.count} samples`,
      { offset: H.flags, phase: Phase.reference },
    );
  }
}
