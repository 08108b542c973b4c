import {
  type ByteSource,
  type ErrorCode,
  type FindingWhere,
  isBinscopeError,
  Phase,
  type ReadOptions,
} from '@binscope/core';
import { readU64 } from '@binscope/core/binary';
import { RequestPool } from '@binscope/core/http';
import type { XXHashAPI } from 'xxhash-wasm';
import { hashKey } from './hash.js';
import { R, ROW_SIZE, TAR_BLOCK } from './layout.js';
import type { ParsedIndex } from './parse.js';
import type { CappedErrors } from './rows.js';
import { visitHeaders } from './shard-headers.js';
import type { ShardSet } from './shards.js';
import {
  checksumProblem,
  isZeroBlock,
  nameEnd,
  OCTAL_SIZE_LIMIT,
  paxSize,
  sizeField,
  splitName,
  typeflagOf,
} from './tar.js';

/** Shards checked at once: enough to keep a remote link busy, few enough for one connection pool. */
const SHARDS_IN_FLIGHT = 8;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

export interface ShardCheck {
  parsed: ParsedIndex;
  rows: Uint8Array;
  shards: ShardSet;
  hasher: XXHashAPI;
  errors: CappedErrors;
  /** Called with the number of rows checked so far. */
  progress: (rowsDone: number) => void;
  options: ReadOptions;
}

/** The scope of a shard's findings: one bad shard never hides the others. */
export const shardScope = (name: string) => `shard ${name}`;

/**
 * One shard's findings, kept apart while shards are checked at once and reported afterwards
 * in fid order: the report does not depend on which shard answered first.
 */
class ShardFindings {
  private readonly found: Array<(errors: CappedErrors) => void> = [];

  constructor(
    readonly file: string,
    readonly scope: string,
  ) {}

  error(code: ErrorCode, message: string, where: FindingWhere): void {
    const at = { file: this.file, scope: this.scope, ...where };
    this.found.push((errors) => errors.error(code, message, at));
  }

  /** A FormatError a check threw, as one of this shard's findings; anything else is rethrown. */
  capture(error: unknown, phase: number): void {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    this.error(error.code, error.message, { offset: error.offset, file: error.file ?? this.file, phase });
  }

  warn(code: string, message: string, where: FindingWhere): void {
    this.found.push((errors) => errors.problems.warn(code, message, where));
  }

  reportTo(errors: CappedErrors): void {
    for (const report of this.found) report(errors);
  }
}

/**
 * That each row's tar header is really at its offset in its shard, has its size, and names the
 * row's stem and extension; then members appended after indexing. Shards are checked
 * concurrently, each into its own list, and their findings reported in fid order, so the
 * report does not depend on which shard answered first.
 */
export async function checkShards(check: ShardCheck): Promise<void> {
  const { parsed, rows, shards, errors } = check;
  const problems = errors.problems;
  if (shards.count === 0) {
    if (parsed.header.nRows > 0)
      problems.warn(
        'ShardsNotFound',
        `no ${shards.fold}_*.tar shards beside the index; shard checks skipped`,
      );
    return;
  }
  const gap = shards.firstGap();
  if (gap)
    problems.warn(
      'ShardMissing',
      `${gap} seems to be missing: the shard numbering skips it, so later fids shift`,
    );

  const view = new DataView(rows.buffer, rows.byteOffset, rows.byteLength);
  const byFid: number[][] = Array.from({ length: shards.count }, () => []);
  const reported = new Set<number>();
  for (let i = 0; i < parsed.header.nRows; i++) {
    const fid = view.getUint16(i * ROW_SIZE + R.fid, true);
    if (fid < shards.count) byFid[fid].push(i);
    else if (!reported.has(fid)) {
      reported.add(fid);
      const name = shards.guessName(fid) ?? `fid ${fid}`;
      errors.error('OutOfBounds', `row ${i}: ${shards.missingMessage(fid)}`, {
        offset: parsed.header.offArr + i * ROW_SIZE + R.fid,
        phase: Phase.payload,
        scope: shardScope(name),
      });
    }
  }
  let done = 0;
  // Each shard's findings go to its own list; merged below in fid order, whichever finished first.
  const pool = new RequestPool(SHARDS_IN_FLIGHT);
  const found = await Promise.all(
    byFid.map((rowIds, fid) =>
      pool.run(() => checkShard(check, fid, rowIds, view, () => check.progress(++done))),
    ),
  );
  for (const shard of found) shard.reportTo(errors);
}

async function checkShard(
  check: ShardCheck,
  fid: number,
  rowIds: number[],
  view: DataView,
  rowDone: () => void,
): Promise<ShardFindings> {
  const name = check.shards.names[fid];
  const found = new ShardFindings(name, shardScope(name));
  let source: ByteSource | undefined;
  try {
    source = await check.shards.open(fid);
    await checkMembers(check, source, rowIds, view, found, rowDone);
  } catch (error) {
    if (!isBinscopeError(error, 'SourceError')) throw error;
    // A shard no row points into is not needed: failing to open it is not the index's defect.
    if (!source && rowIds.length === 0) return found;
    const what = source ? `cannot read shard ${name}` : `row ${rowIds[0] ?? '-'}: cannot open shard ${name}`;
    found.error('OutOfBounds', `${what}: ${(error as Error).message}`, { phase: Phase.payload });
  }
  return found;
}

async function checkMembers(
  check: ShardCheck,
  source: ByteSource,
  rowIds: number[],
  view: DataView,
  found: ShardFindings,
  rowDone: () => void,
): Promise<void> {
  const offsetOf = (i: number) => readU64(view, i * ROW_SIZE + R.offset);
  const reachable = rowIds.filter((i) => offsetOf(i) + TAR_BLOCK <= source.size);
  // Rows whose header lies past the end are reported in row order among the others.
  let k = 0;
  const pastEndBefore = (limit: number) => {
    for (; k < rowIds.length && rowIds[k] < limit; k++) {
      const i = rowIds[k];
      const offset = offsetOf(i);
      if (offset + TAR_BLOCK <= source.size) continue;
      found.error(
        'OutOfBounds',
        `row ${i}: tar header offset ${offset} is past the end of ${source.name} (${source.size} bytes); the shard changed after indexing?`,
        { offset, phase: Phase.payload },
      );
      rowDone();
    }
  };
  /** End of the last indexed member, to spot members appended after indexing. */
  let end = -1;
  const crashIds = new Map(check.parsed.crashStems.map((s, i) => [s, i + 1]));
  await visitHeaders(
    source,
    reachable,
    offsetOf,
    async (i, block) => {
      pastEndBefore(i);
      const next = await checkMember(check, source, i, block, view, crashIds, found);
      if (next !== undefined && next > end) end = next;
      rowDone();
    },
    check.options,
  );
  pastEndBefore(Number.POSITIVE_INFINITY);
  await checkAppended(source, end >= 0, Math.max(end, 0), found);
}

/**
 * One row against its tar header. Records at most one problem (the first in A2 order: the
 * header itself, its size, the payload's bounds, the name) and returns where the member ends,
 * or undefined when it does not match.
 */
async function checkMember(
  check: ShardCheck,
  source: ByteSource,
  i: number,
  block: Uint8Array,
  view: DataView,
  crashIds: Map<string, number>,
  found: ShardFindings,
): Promise<number | undefined> {
  const file = source.name;
  const at = i * ROW_SIZE;
  const offset = readU64(view, at + R.offset);
  const size = readU64(view, at + R.size);
  const problem = (code: 'InvalidValue' | 'CountMismatch' | 'Truncated', message: string, where: number) => {
    found.error(code, `row ${i}: ${message}`, { offset: where, phase: Phase.payload });
    return undefined;
  };
  if (isZeroBlock(block, 0))
    return problem(
      'InvalidValue',
      `no tar header at offset ${offset} of ${file}; the shard changed after indexing?`,
      offset,
    );
  // The indexer's own rule (tar.ts): a header it would refuse is named for what it is.
  const badChecksum = checksumProblem(block, 0);
  if (badChecksum)
    return problem('InvalidValue', `the tar header at ${offset} of ${file}: ${badChecksum}`, offset + 148);
  let stored: number;
  try {
    stored = sizeField(block, 0, { file, offset });
  } catch (error) {
    found.capture(error, Phase.payload);
    return undefined;
  }
  if (stored !== size) {
    const pax =
      size >= OCTAL_SIZE_LIMIT || stored === 0 ? await precedingPaxSize(view, i, offset, source) : undefined;
    if (pax !== size)
      return problem(
        'CountMismatch',
        `the tar header at ${offset} of ${file} says ${stored} bytes, the index ${size}`,
        offset + 124,
      );
  }
  if (offset + TAR_BLOCK + size > source.size)
    return problem(
      'Truncated',
      `the payload (${size} bytes at ${offset + TAR_BLOCK}) runs past the end of ${file}`,
      offset,
    );
  const end = nameEnd(block, 0);
  const { stemStart, dot } = splitName(block, 0, end);
  const name = JSON.stringify(decoder.decode(block.subarray(0, end)));
  const stem = decoder.decode(block.subarray(stemStart, dot < 0 ? end : dot));
  const ext = dot < 0 ? '' : decoder.decode(block.subarray(dot + 1, end)).toLowerCase();
  const indexExt = check.parsed.extensions[view.getUint16(at + R.extid, true)];
  if (indexExt !== ext)
    return problem(
      'InvalidValue',
      `member ${name} in ${file} has extension "${ext}", the index "${indexExt}"`,
      offset,
    );
  const [lo, hi] = hashKey(check.hasher, stem);
  const hashOk =
    lo === view.getUint32(at + R.keyhash, true) && hi === view.getUint32(at + R.keyhash + 4, true);
  const crashOk = view.getUint32(at + R.crashid, true) === (crashIds.get(stem) ?? 0);
  if (!hashOk || !crashOk)
    return problem(
      'InvalidValue',
      `member ${name} in ${file} has stem ${JSON.stringify(stem)}, which is not the row's key`,
      offset,
    );
  return offset + TAR_BLOCK + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
}

/** A warning when a tar header follows the last indexed member (or any, in a shard the index skips). */
async function checkAppended(
  source: ByteSource,
  indexed: boolean,
  end: number,
  found: ShardFindings,
): Promise<void> {
  if (end + TAR_BLOCK > source.size) return;
  const after = await source.read(end, TAR_BLOCK);
  if (isZeroBlock(after, 0)) return;
  found.warn(
    'UnindexedMembers',
    indexed
      ? `${source.name} has tar members after the last indexed one (at ${end}); appended after indexing?`
      : `${source.name} holds tar members but the index has none for it; added after indexing?`,
    { offset: end, file: source.name },
  );
}

/** The PAX `size` of the `x` header right before row `i`, if there is one. */
async function precedingPaxSize(
  view: DataView,
  i: number,
  offset: number,
  source: ByteSource,
): Promise<number | undefined> {
  if (i === 0) return undefined;
  const at = (i - 1) * ROW_SIZE;
  const prevOffset = readU64(view, at + R.offset);
  const prevSize = readU64(view, at + R.size);
  if (
    view.getUint16(at + R.fid, true) !== view.getUint16(i * ROW_SIZE + R.fid, true) ||
    prevOffset + TAR_BLOCK + Math.ceil(prevSize / TAR_BLOCK) * TAR_BLOCK !== offset
  ) {
    return undefined;
  }
  if (prevOffset + TAR_BLOCK + prevSize > source.size || prevSize > 16 << 20) return undefined;
  const bytes = await source.read(prevOffset, TAR_BLOCK + prevSize);
  if (typeflagOf(bytes, 0) !== 'x') return undefined;
  try {
    return paxSize(bytes.subarray(TAR_BLOCK), { file: source.name, offset: prevOffset });
  } catch {
    return undefined;
  }
}
