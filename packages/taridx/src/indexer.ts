import {
  type ByteSource,
  type DirectorySource,
  type ProgressCallback,
  type ReadOptions,
  SourceError,
  throwIfAborted,
  withLocation,
} from '@binscope/core';
import { MAX_SHARDS, fail } from './layout.js';
import { compareShardNames, listShards } from './shards.js';
import { walkTar } from './tar-walk.js';
import { TaridxBuilder } from './write.js';

export interface IndexOptions extends ReadOptions {
  /** Called as shards are scanned: bytes of shard space covered so far, of the fold's total. */
  onProgress?: ProgressCallback;
}

/** A fold in a folder (`<fold>_*.tar`), or shards given directly (put in T4's suffix order for fids). */
export type ShardInput = { directory: DirectorySource; fold: string } | readonly ByteSource[];

export interface IndexResult {
  /** The .taridx bytes. */
  bytes: Uint8Array;
  /** Shard names in fid order. */
  shards: string[];
  rows: number;
}

/**
 * Indexes tar shards (T1–T6): reads each 512-byte header, seeks over payloads, and builds
 * the rows. Byte-identical to upstream's index for the tars upstream can read (T9);
 * additionally reads GNU base-256 and PAX sizes, keeps empty shards' fids, and refuses
 * more than 65,536 shards.
 */
export async function indexShards(input: ShardInput, options: IndexOptions = {}): Promise<IndexResult> {
  const shards = await foldShards(input);
  const builder = await TaridxBuilder.create();
  await scanShards(builder, shards, 0, options);
  return { bytes: builder.finish(), shards: shards.map((s) => s.name), rows: builder.rowCount };
}

/** A shard to index: its name (for messages and results) and how to open it. */
export interface ShardToIndex {
  name: string;
  open: () => Promise<ByteSource>;
  /** Whether `open` opens a source of its own (from a folder), which the indexer then closes. */
  owned: boolean;
}

/** The fold's shards in fid order (T4): listed from a folder, or the given sources sorted so. */
export async function foldShards(input: ShardInput): Promise<ShardToIndex[]> {
  let shards: ShardToIndex[];
  if (Array.isArray(input)) {
    const sources = [...(input as readonly ByteSource[])].sort((a, b) => compareShardNames(a.name, b.name));
    shards = sources.map((s) => ({ name: s.name, open: async () => s, owned: false }));
  } else {
    const { directory, fold } = input as { directory: DirectorySource; fold: string };
    const names = await listShards(directory, fold);
    if (names.length === 0) {
      throw new SourceError(`no shards named ${fold}_*.tar in ${directory.name}`, directory.name);
    }
    shards = names.map((name) => ({ name, open: () => directory.open(name), owned: true }));
  }
  if (shards.length > MAX_SHARDS) {
    throw fail(
      'UnsupportedFeature',
      `${shards.length} shards; a .taridx addresses at most ${MAX_SHARDS} (fid is 16 bits)`,
      undefined,
    );
  }
  return shards;
}

/**
 * Walks each shard's headers into the builder (T1–T6), shard i getting fid `firstFid + i`:
 * reads each 512-byte header and seeks over payloads.
 */
export async function scanShards(
  builder: TaridxBuilder,
  shards: readonly ShardToIndex[],
  firstFid: number,
  options: IndexOptions = {},
): Promise<void> {
  const sources: ByteSource[] = [];
  // Whoever opens a source closes it: the shards opened here from a folder are closed here.
  const close = () => Promise.all(sources.map((s, i) => (shards[i].owned ? s.close?.() : undefined)));
  try {
    let total = 0;
    for (const shard of shards) {
      const source = await shard.open();
      sources.push(source);
      total += source.size;
    }
    await walkShards(builder, sources, firstFid, total, options);
  } finally {
    await close();
  }
}

/** Walks each shard's headers into the builder, shard i getting fid `firstFid + i`, with progress over `total` bytes. */
async function walkShards(
  builder: TaridxBuilder,
  sources: readonly ByteSource[],
  firstFid: number,
  total: number,
  options: IndexOptions,
): Promise<void> {
  let before = 0;
  const progress = options.onProgress;
  progress?.({ phase: 'index', done: 0, total, unit: 'bytes' });
  for (let i = 0; i < sources.length; i++) {
    throwIfAborted(options.signal);
    const fid = firstFid + i;
    const source = sources[i];
    const file = source.name;
    try {
      // The walk hands each header straight to the builder: no object or closure per header.
      builder.beginShard(fid, file);
      await walkTar(source, builder, {
        signal: options.signal,
        onBytes:
          progress && ((done) => progress({ phase: 'index', done: before + done, total, unit: 'bytes' })),
      });
    } catch (error) {
      throw withLocation(error, { file });
    }
    before += source.size;
  }
  progress?.({ phase: 'index', done: total, total, unit: 'bytes' });
}
