import {
  type ByteSource,
  type ErrorCode,
  isFormatError,
  isSourceError,
  percentProgress,
  ProblemList,
  readU64,
  type Target,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { hashKey, loadHasher } from './hash.js';
import { FORMAT, R, ROW_SIZE, TAR_BLOCK } from './layout.js';
import { checkRows, type ParsedIndex, parseIndex, readRows } from './parse.js';
import { foldOf, ShardSet } from './shards.js';
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

/** Errors of one kind beyond this many are summarised, so a bad 10 GB index gives a readable report. */
const MAX_PER_CODE = 20;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Every T-rule check (T7, T8, section 9 invariants) and, when the shards are reachable
 * (beside the index, `<fold>_*.tar`), that each row's tar header is really at its offset,
 * has its size, and that its name maps to the row's stem and extension. Never throws for
 * bad input. `deep: false` skips the shard checks.
 */
export async function validateTaridx(
  target: Target,
  options: ValidateOptions = {},
): Promise<ValidationReport> {
  const problems = new ProblemList(FORMAT);
  if (target.kind !== 'file') {
    problems.error('InvalidValue', 'a TARIDX index is a single file, not a directory');
    return problems.report();
  }
  const source = target.source;
  const counts = new Map<string, number>();
  const add = (code: ErrorCode, message: string, offset: number | undefined, file = source.name) => {
    const n = (counts.get(code) ?? 0) + 1;
    counts.set(code, n);
    if (n <= MAX_PER_CODE) problems.error(code, message, { offset, file });
  };

  let parsed: ParsedIndex;
  let rows: Uint8Array;
  try {
    parsed = await parseIndex(source, options);
    rows = await readRows(source, parsed.header, options);
  } catch (error) {
    problems.capture(error);
    return problems.report();
  }
  problems.warnings.push(...parsed.warnings);
  const hasher = await loadHasher();
  checkRows(parsed, rows, hasher, (code, message, offset) => add(code, message, offset));

  const fold = foldOf(source.name);
  const nRows = parsed.header.nRows;
  // The rows' own checks are one pass in memory; visiting each row's tar header is the long part.
  const withShards = options.deep !== false && !!target.siblings && !!fold && problems.errors.length === 0;
  const progress = percentProgress(options.onProgress, withShards ? 2 * nRows : nRows);
  progress(nRows);
  if (withShards && target.siblings && fold) {
    try {
      const shards = await ShardSet.fromDirectory(target.siblings, fold);
      if (shards.count === 0 && parsed.header.nRows > 0 && options.deep === true) {
        // Asked for explicitly, a deep check that can check nothing has failed, not passed.
        add(
          'OutOfBounds',
          `--deep: no ${fold}_*.tar shards beside the index, so none of its ${parsed.header.nRows} rows can be checked`,
          undefined,
        );
      } else
        await checkShards(parsed, rows, shards, problems, add, (i) => progress(nRows + i), options.signal);
    } catch (error) {
      if (isFormatError(error)) problems.capture(error);
      else if (isSourceError(error))
        add('OutOfBounds', `cannot read the shards: ${(error as Error).message}`, undefined);
      else throw error;
    }
  }
  progress(withShards ? 2 * nRows : nRows);
  for (const [code, n] of counts) {
    if (n > MAX_PER_CODE)
      problems.error(code as ErrorCode, `… and ${n - MAX_PER_CODE} more ${code} errors`, {
        file: source.name,
      });
  }
  return problems.report();
}

async function checkShards(
  parsed: ParsedIndex,
  rows: Uint8Array,
  shards: ShardSet,
  problems: ProblemList,
  add: (code: ErrorCode, message: string, offset: number | undefined, file?: string) => void,
  progress: (rowsDone: number) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { header, extensions, crashStems } = parsed;
  const hasher = await loadHasher();
  const view = new DataView(rows.buffer, rows.byteOffset, rows.byteLength);
  if (shards.count === 0) {
    if (header.nRows > 0) {
      problems.warn(
        'ShardsNotFound',
        `no ${shards.fold}_*.tar shards beside the index; shard checks skipped`,
      );
    }
    return;
  }
  const gap = shards.firstGap();
  if (gap)
    problems.warn(
      'ShardMissing',
      `${gap} seems to be missing: the shard numbering skips it, so later fids shift`,
    );

  const crashIds = new Map(crashStems.map((s, i) => [s, i + 1]));
  const block = new Uint8Array(TAR_BLOCK);
  const reportedFids = new Set<number>();
  /** End of the last indexed member per shard, to spot members appended after indexing. */
  const ends = new Map<number, number>();

  for (let i = 0; i < header.nRows; i++) {
    signal?.throwIfAborted();
    progress(i);
    const at = i * ROW_SIZE;
    const fid = view.getUint16(at + R.fid, true);
    const offset = readU64(view, at + R.offset);
    const size = readU64(view, at + R.size);
    if (fid >= shards.count) {
      if (!reportedFids.has(fid))
        add('OutOfBounds', `row ${i}: ${shards.missingMessage(fid)}`, header.offArr + at + R.fid);
      reportedFids.add(fid);
      continue;
    }
    let source: ByteSource;
    try {
      source = await shards.open(fid);
    } catch (error) {
      if (!isSourceError(error)) throw error;
      if (!reportedFids.has(fid))
        add(
          'OutOfBounds',
          `row ${i}: cannot open shard ${shards.names[fid]}: ${(error as Error).message}`,
          undefined,
        );
      reportedFids.add(fid);
      continue;
    }
    const file = source.name;
    if (offset + TAR_BLOCK > source.size) {
      add(
        'OutOfBounds',
        `row ${i}: tar header offset ${offset} is past the end of ${file} (${source.size} bytes); the shard changed after indexing?`,
        offset,
        file,
      );
      continue;
    }
    const header512 = await readBlock(source, offset, block);
    if (isZeroBlock(header512, 0)) {
      add(
        'InvalidValue',
        `row ${i}: no tar header at offset ${offset} of ${file}; the shard changed after indexing?`,
        offset,
        file,
      );
      continue;
    }
    // The indexer's own rule (tar.ts): a header it would refuse is named for what it is.
    const badChecksum = checksumProblem(header512, 0);
    if (badChecksum) {
      add(
        'InvalidValue',
        `row ${i}: the tar header at ${offset} of ${file}: ${badChecksum}`,
        offset + 148,
        file,
      );
      continue;
    }
    let stored: number;
    try {
      stored = sizeField(header512, 0, { file, offset });
    } catch (error) {
      problems.capture(error);
      continue;
    }
    if (stored !== size) {
      const pax =
        size >= OCTAL_SIZE_LIMIT || stored === 0
          ? await precedingPaxSize(view, i, fid, offset, source)
          : undefined;
      if (pax !== size) {
        add(
          'CountMismatch',
          `row ${i}: the tar header at ${offset} of ${file} says ${stored} bytes, the index ${size}`,
          offset + 124,
          file,
        );
        continue;
      }
    }
    if (offset + TAR_BLOCK + size > source.size) {
      add(
        'Truncated',
        `row ${i}: the payload (${size} bytes at ${offset + TAR_BLOCK}) runs past the end of ${file}`,
        offset,
        file,
      );
      continue;
    }
    const end = nameEnd(header512, 0);
    const { stemStart, dot } = splitName(header512, 0, end);
    const name = decoder.decode(header512.subarray(0, end));
    const stem = decoder.decode(header512.subarray(stemStart, dot < 0 ? end : dot));
    const ext = dot < 0 ? '' : decoder.decode(header512.subarray(dot + 1, end)).toLowerCase();
    const extid = view.getUint16(at + R.extid, true);
    if (extensions[extid] !== ext) {
      add(
        'InvalidValue',
        `row ${i}: member ${JSON.stringify(name)} in ${file} has extension "${ext}", the index "${extensions[extid]}"`,
        offset,
        file,
      );
      continue;
    }
    const [lo, hi] = hashKey(hasher, stem);
    const crashid = view.getUint32(at + R.crashid, true);
    const hashOk =
      lo === view.getUint32(at + R.keyhash, true) && hi === view.getUint32(at + R.keyhash + 4, true);
    const crashOk = crashid === (crashIds.get(stem) ?? 0);
    if (!hashOk || !crashOk) {
      add(
        'InvalidValue',
        `row ${i}: member ${JSON.stringify(name)} in ${file} has stem ${JSON.stringify(stem)}, which is not the row's key`,
        offset,
        file,
      );
      continue;
    }
    const next = offset + TAR_BLOCK + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
    if (next > (ends.get(fid) ?? 0)) ends.set(fid, next);
  }

  for (let fid = 0; fid < shards.count; fid++) {
    let source: ByteSource;
    try {
      source = await shards.open(fid);
    } catch {
      continue;
    }
    const end = ends.get(fid) ?? 0;
    if (end + TAR_BLOCK > source.size) continue;
    const after = await readBlock(source, end, block);
    if (!isZeroBlock(after, 0)) {
      problems.warn(
        'UnindexedMembers',
        ends.has(fid)
          ? `${source.name} has tar members after the last indexed one (at ${end}); appended after indexing?`
          : `${source.name} (fid ${fid}) holds tar members but the index has none for it; added after indexing?`,
        { offset: end, file: source.name },
      );
    }
  }
}

async function readBlock(source: ByteSource, offset: number, into: Uint8Array): Promise<Uint8Array> {
  const readInto = (source as { readInto?: (target: Uint8Array, offset: number) => Uint8Array }).readInto;
  if (readInto) return readInto.call(source, into, offset);
  return source.readSync ? source.readSync(offset, TAR_BLOCK) : source.read(offset, TAR_BLOCK);
}

/** The PAX `size` of the `x` header right before row `i`, if there is one. */
async function precedingPaxSize(
  view: DataView,
  i: number,
  fid: number,
  offset: number,
  source: ByteSource,
): Promise<number | undefined> {
  if (i === 0) return undefined;
  const at = (i - 1) * ROW_SIZE;
  const prevOffset = readU64(view, at + R.offset);
  const prevSize = readU64(view, at + R.size);
  if (
    view.getUint16(at + R.fid, true) !== fid ||
    prevOffset + TAR_BLOCK + Math.ceil(prevSize / TAR_BLOCK) * TAR_BLOCK !== offset
  ) {
    return undefined;
  }
  if (prevOffset + TAR_BLOCK + prevSize > source.size || prevSize > 16 << 20) return undefined;
  const bytes = source.readSync
    ? source.readSync(prevOffset, TAR_BLOCK + prevSize)
    : await source.read(prevOffset, TAR_BLOCK + prevSize);
  if (typeflagOf(bytes, 0) !== 'x') return undefined;
  try {
    return paxSize(bytes.subarray(TAR_BLOCK), { file: source.name, offset: prevOffset });
  } catch {
    return undefined;
  }
}
