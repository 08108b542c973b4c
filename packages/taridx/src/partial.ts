import { type ByteSink, type ByteSource, fileTarget, type ReadOptions, readExact } from '@binscope/core';
import { foldShards, type IndexOptions, scanShards, type ShardInput } from './indexer.js';
import { FORMAT, fail, H, R, ROW_SIZE } from './layout.js';
import type { ParsedIndex } from './parse.js';
import { taridxPlugin } from './plugin.js';
import { type PartialRange, partialRange } from './partial-layout.js';
import { headBytes, textBlock } from './encode.js';
import { TaridxBuilder } from './write.js';

export type { PartialRange } from './partial-layout.js';

/** Shards `first` to `last` (inclusive) of a fold, by fid: their position in T4's order. */
export interface ShardRange {
  first: number;
  last: number;
}

export interface PartialIndexResult {
  /** The partial index's bytes (see partial-layout.ts for how it differs from a whole one). */
  bytes: Uint8Array;
  /** The names of the shards it covers, in fid order. */
  shards: string[];
  rows: number;
  /** What it covers: the range asked for, its end clamped to the fold's last shard. */
  range: PartialRange;
}

/** "0-99" or "7" → a ShardRange; undefined when the text is not one. */
export function parseShardRange(text: string): ShardRange | undefined {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(text);
  if (!match) return undefined;
  const first = Number(match[1]);
  const last = match[2] === undefined ? first : Number(match[2]);
  return Number.isSafeInteger(first) && Number.isSafeInteger(last) && last >= first
    ? { first, last }
    : undefined;
}

/**
 * Indexes shards `range.first`..`range.last` of a fold (T4's fid order, over the whole fold's
 * listing) into a partial index; `mergeIndexes` joins partial indexes covering the whole fold
 * into the index `indexShards` makes in one pass, byte for byte. So N workers can each index
 * a range (a job array, `xargs -P`) and one merge finishes. A range past the last shard is
 * cut there; one that starts past it is an error.
 */
export async function indexShardRange(
  input: ShardInput,
  range: ShardRange,
  options: IndexOptions = {},
): Promise<PartialIndexResult> {
  return indexRangeWith(await TaridxBuilder.create(), input, range, options);
}

/** indexShardRange into a given builder (tests give one with a colliding hasher). */
export async function indexRangeWith(
  builder: TaridxBuilder,
  input: ShardInput,
  range: ShardRange,
  options: IndexOptions = {},
): Promise<PartialIndexResult> {
  const shards = await foldShards(input);
  const where = Array.isArray(input)
    ? 'the given shards'
    : (input as { directory: { name: string } }).directory.name;
  if (
    !Number.isInteger(range.first) ||
    !Number.isInteger(range.last) ||
    range.first < 0 ||
    range.last < range.first
  )
    throw fail(
      'OutOfBounds',
      `shard range ${range.first}-${range.last} is not a range of fids`,
      undefined,
      where,
    );
  if (range.first >= shards.length)
    throw fail(
      'OutOfBounds',
      `shard range ${range.first}-${range.last} starts past the fold's last shard (fid ${shards.length - 1} of ${shards.length})`,
      undefined,
      where,
    );
  const last = Math.min(range.last, shards.length - 1);
  const covered = shards.slice(range.first, last + 1);
  await scanShards(builder, covered, range.first, options);
  const partial = { first: range.first, last, total: shards.length };
  return {
    bytes: builder.finish(partial),
    shards: covered.map((s) => s.name),
    rows: builder.rowCount,
    range: partial,
  };
}

export interface MergeResult {
  rows: number;
  /** n_stems of the merged index. */
  stems: number;
  /** Shards in the fold. */
  shards: number;
  /** Bytes written to the sink. */
  bytes: number;
}

interface Partial {
  source: ByteSource;
  parsed: ParsedIndex;
  range: PartialRange;
  /** Local extid → merged extid (−1: not seen yet). */
  ext: Int32Array;
  /** Local crashid (stem) → merged crashid (−1: not seen yet). */
  crash: Int32Array;
}

/** Rows read at once while merging (2 MiB). */
const ROWS_AT_ONCE = 65_536;

function partialOf(source: ByteSource, parsed: ParsedIndex): Partial {
  const range = partialRange(parsed.header.reserved);
  if (!range)
    throw fail(
      'InvalidValue',
      'a whole index, not a partial one: merge the partial indexes that indexShardRange (binscope index --shard-range) wrote',
      H.reserved,
      source.name,
    );
  if (range.last < range.first || range.last >= range.total)
    throw fail(
      'InvalidValue',
      `its header says shards ${range.first}-${range.last} of ${range.total}`,
      H.reserved,
      source.name,
    );
  if (parsed.header.nCrash !== parsed.header.nStems)
    throw fail(
      'CountMismatch',
      `a partial index lists every stem, but n_crash is ${parsed.header.nCrash} and n_stems ${parsed.header.nStems}`,
      H.nCrash,
      source.name,
    );
  return {
    source,
    parsed,
    range,
    ext: new Int32Array(parsed.header.nExt).fill(-1),
    crash: new Int32Array(parsed.header.nCrash + 1).fill(-1),
  };
}

/** The partials in fid order, covering every shard of one fold exactly once. */
function inOrder(partials: Partial[]): Partial[] {
  const sorted = [...partials].sort((a, b) => a.range.first - b.range.first);
  const total = sorted[0].range.total;
  let next = 0;
  for (const p of sorted) {
    const name = p.source.name;
    if (p.range.total !== total)
      throw fail(
        'CountMismatch',
        `made for a fold of ${p.range.total} shards, but ${sorted[0].source.name} for one of ${total}: the partial indexes saw different listings`,
        H.reserved,
        name,
      );
    if (p.range.first < next)
      throw fail(
        'InvalidValue',
        `shards ${p.range.first}-${Math.min(p.range.last, next - 1)} are in another partial index too`,
        H.reserved,
        name,
      );
    if (p.range.first > next)
      throw fail(
        'OutOfBounds',
        `shards ${next}-${p.range.first - 1} of ${total} are in no partial index given`,
        H.reserved,
        name,
      );
    next = p.range.last + 1;
  }
  if (next !== total)
    throw fail(
      'OutOfBounds',
      `shards ${next}-${total - 1} of ${total} are in no partial index given`,
      H.reserved,
      sorted.at(-1)!.source.name,
    );
  return sorted;
}

/** Calls `each(view, at, row)` for every row of a partial, reading ROWS_AT_ONCE rows at a time. */
async function forRows(
  p: Partial,
  options: ReadOptions,
  each: (chunk: Uint8Array, count: number, first: number) => void | Promise<void>,
): Promise<void> {
  const { offArr, nRows } = p.parsed.header;
  for (let first = 0; first < nRows; first += ROWS_AT_ONCE) {
    const count = Math.min(ROWS_AT_ONCE, nRows - first);
    const chunk = await readExact(p.source, offArr + first * ROW_SIZE, count * ROW_SIZE, {
      ...options,
      format: FORMAT,
      what: 'rows',
    });
    await each(chunk, count, first);
  }
}

/**
 * Merges partial indexes (indexShardRange) covering every shard of a fold into the index
 * `indexShards` makes of the whole fold in one pass, byte for byte, written to `sink`. Ext
 * ids and crash ids are assigned again exactly as one pass assigns them (T3: in order of first
 * appearance across the fold; the first stem seen for a hash is canonical), which the stems
 * every partial lists make possible. Two passes over the partials' rows; memory holds the
 * stem and extension tables, never the rows.
 */
export async function mergeIndexes(
  sources: readonly ByteSource[],
  sink: ByteSink,
  options: ReadOptions = {},
): Promise<MergeResult> {
  if (sources.length === 0) throw new RangeError('mergeIndexes needs at least one partial index');
  const partials: Partial[] = [];
  for (const source of sources) {
    // The strict open: a partial index that is not a valid .taridx is refused with its first defect.
    const reader = await taridxPlugin.open(fileTarget(source), options);
    const { header, extensions, crashStems } = reader;
    await reader.close();
    partials.push(
      partialOf(source, { header, extensions: [...extensions], crashStems: [...crashStems], warnings: [] }),
    );
  }
  const ordered = inOrder(partials);

  const extIds = new Map<string, number>();
  const extensions: string[] = [];
  const canonical = new Map<bigint, string>();
  const crashIds = new Map<string, number>();
  const crashStems: string[] = [];
  let rows = 0;
  let runs = 0;
  let prevLo = -1;
  let prevHi = -1;
  let prevCrash = -1;

  // Pass 1: settle ids in row order, as one pass over the fold would, and count runs.
  for (const p of ordered) {
    const { extensions: localExt, crashStems: localStems } = p.parsed;
    const localLo = new Uint32Array(localStems.length + 1);
    const localHi = new Uint32Array(localStems.length + 1);
    await forRows(p, options, (chunk, count, first) => {
      const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let i = 0; i < count; i++) {
        const at = i * ROW_SIZE;
        const row = first + i;
        const where = p.parsed.header.offArr + row * ROW_SIZE;
        const fid = view.getUint16(at + R.fid, true);
        if (fid < p.range.first || fid > p.range.last)
          throw fail(
            'OutOfBounds',
            `row ${row}: fid ${fid} is outside the shards ${p.range.first}-${p.range.last} it covers`,
            where,
            p.source.name,
          );
        const extid = view.getUint16(at + R.extid, true);
        if (extid >= p.ext.length)
          throw fail(
            'OutOfBounds',
            `row ${row}: extid ${extid} is not below n_ext ${p.ext.length}`,
            where,
            p.source.name,
          );
        if (p.ext[extid] < 0) {
          const ext = localExt[extid];
          let id = extIds.get(ext);
          if (id === undefined) {
            id = extensions.push(ext) - 1;
            extIds.set(ext, id);
          }
          p.ext[extid] = id;
        }
        const local = view.getUint32(at + R.crashid, true);
        if (local === 0 || local >= p.crash.length)
          throw fail(
            'InvalidValue',
            `row ${row}: crashid ${local} names no stem of the partial index`,
            where,
            p.source.name,
          );
        const lo = view.getUint32(at + R.keyhash, true);
        const hi = view.getUint32(at + R.keyhash + 4, true);
        if (p.crash[local] < 0) {
          localLo[local] = lo;
          localHi[local] = hi;
          p.crash[local] = settle(lo, hi, localStems[local - 1], canonical, crashIds, crashStems);
        } else if (localLo[local] !== lo || localHi[local] !== hi) {
          throw fail(
            'InvalidValue',
            `row ${row}: its keyhash differs from other rows of stem ${JSON.stringify(localStems[local - 1])}`,
            where,
            p.source.name,
          );
        }
        const crash = p.crash[local];
        if (lo !== prevLo || hi !== prevHi || crash !== prevCrash) runs++;
        prevLo = lo;
        prevHi = hi;
        prevCrash = crash;
      }
    });
    rows += p.parsed.header.nRows;
  }

  const stems = canonical.size + crashIds.size;
  const head = headBytes(
    textBlock(extensions, 'extension'),
    textBlock(crashStems, 'crash stem'),
    extensions.length,
    crashStems.length,
    rows,
    stems,
    runs === stems,
  );
  const start = sink.position;
  await sink.write(head);
  // Pass 2: the rows again, with the merged ids.
  for (const p of ordered) {
    await forRows(p, options, async (chunk, count) => {
      const out = chunk.slice(0, count * ROW_SIZE);
      const view = new DataView(out.buffer);
      for (let i = 0; i < count; i++) {
        const at = i * ROW_SIZE;
        view.setUint16(at + R.extid, p.ext[view.getUint16(at + R.extid, true)], true);
        view.setUint32(at + R.crashid, p.crash[view.getUint32(at + R.crashid, true)], true);
      }
      await sink.write(out);
    });
  }
  return { rows, stems, shards: ordered[0].range.total, bytes: sink.position - start };
}

/** T3 for one stem at its first row: crash id 0 if it is its hash's first stem, else its own id. */
function settle(
  lo: number,
  hi: number,
  stem: string,
  canonical: Map<bigint, string>,
  crashIds: Map<string, number>,
  crashStems: string[],
): number {
  const hash = (BigInt(hi) << 32n) | BigInt(lo);
  const first = canonical.get(hash);
  if (first === undefined) {
    canonical.set(hash, stem);
    return 0;
  }
  if (first === stem) return 0;
  let id = crashIds.get(stem);
  if (id === undefined) {
    id = crashStems.push(stem);
    crashIds.set(stem, id);
  }
  return id;
}
