/**
 * The conversion `/magic` declares (tarToTaridxConverter, the `index` verb), as a Converter.
 * Browser-safe: it reads through core's sources, writes the index to the sink the app gives
 * and spools a streamed shard to the app's scratch.
 */
import type {
  ByteSink,
  ByteSource,
  Converter,
  ConvertInput,
  ConvertOptions,
  ConvertOutput,
  ConvertReport,
  DirectorySource,
  OptionValues,
} from '@binscope/core';
import { basename, SourceError } from '@binscope/core';
import { type IndexOptions, indexShards, type ShardInput } from './indexer.js';
import { indexShardRange, mergeIndexes, parseShardRange } from './partial.js';
import { listShards } from './shards.js';

function fileSink(output: ConvertOutput): ByteSink {
  if (output.kind !== 'file') throw new TypeError('a .taridx is written to a file sink, not a directory');
  return output.sink;
}

function stringValue(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string')
    throw new RangeError(`--${kebab(name)} takes text, not ${JSON.stringify(value)}`);
  return value;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** `fold`: a name, never a path (shards are DIR/NAME_*.tar). */
function foldValue(values: OptionValues): string | undefined {
  const fold = stringValue(values, 'fold');
  if (fold !== undefined && (fold.includes('/') || fold.includes('\\')))
    throw new RangeError(
      `--fold ${JSON.stringify(fold)}: give the fold name only (shards are DIR/NAME_*.tar)`,
    );
  return fold;
}

/** The fold of a shard named `<fold>_<suffix>.tar`, or undefined. */
function foldOfShard(name: string): string | undefined {
  const base = basename(name);
  const match = /^([^_/]+)_[^_/]+\.tar$/.exec(base);
  return match?.[1];
}

/** A streamed shard (standard input), spooled to scratch: the indexer seeks over payloads. */
async function spooled(
  input: Extract<ConvertInput, { kind: 'stream' }>,
  values: OptionValues,
  options: ConvertOptions,
): Promise<{ shard: ByteSource & { remove(): void }; fold: string }> {
  const name = stringValue(values, 'shardName');
  const fold = foldValue(values) ?? (name ? foldOfShard(name) : undefined);
  if (!name || name !== basename(name) || !fold || !name.startsWith(`${fold}_`) || !name.endsWith('.tar'))
    throw new RangeError(
      `${input.name}: name the streamed shard with --shard-name ${fold ?? 'FOLD'}_NNNN.tar (the index finds it by that name)`,
    );
  const file = options.scratch.file(name);
  try {
    for await (const chunk of input.chunks) {
      options.signal?.throwIfAborted();
      file.append(chunk);
    }
  } catch (error) {
    file.remove();
    throw error;
  }
  return { shard: file, fold };
}

/** What to index: a fold of a folder (`fold` required), one shard file, or a streamed shard. */
async function shardInput(
  input: ConvertInput,
  values: OptionValues,
  options: ConvertOptions,
): Promise<{ shards: ShardInput; fold: string; done?: () => void }> {
  if (input.kind === 'stream') {
    const { shard, fold } = await spooled(input, values, options);
    return { shards: [shard], fold, done: () => shard.remove() };
  }
  if (input.kind === 'file') {
    const fold = foldValue(values) ?? foldOfShard(input.source.name);
    if (!fold)
      throw new RangeError(
        `${input.source.name}: a shard is named <fold>_<suffix>.tar; say which fold it is with --fold NAME`,
      );
    return { shards: [input.source], fold };
  }
  const fold = foldValue(values);
  if (!fold)
    throw new RangeError(
      `${input.directory.name} is a folder: say which fold of shards to index with --fold NAME`,
    );
  // An index of nothing is almost certainly a typo in --fold: say so, and write nothing.
  if ((await listShards(input.directory, fold)).length === 0)
    throw new SourceError(`${input.directory.name}: no shards named ${fold}_*.tar`, input.directory.name, {
      reason: 'missing',
    });
  return { shards: { directory: input.directory, fold }, fold };
}

/** The partial indexes to merge: every `*.taridx` a folder lists (the CLI lists the files named), or one file. */
async function partials(input: ConvertInput): Promise<{ sources: ByteSource[]; close: () => Promise<void> }> {
  if (input.kind === 'stream') throw new RangeError('--merge reads partial index files, not a stream');
  if (input.kind === 'file') return { sources: [input.source], close: async () => {} };
  const directory: DirectorySource = input.directory;
  const names = (await directory.list()).filter((n) => n.endsWith('.taridx'));
  if (names.length === 0)
    throw new SourceError(`${directory.name}: no partial indexes (*.taridx) to merge`, directory.name, {
      reason: 'missing',
    });
  const sources: ByteSource[] = [];
  const close = async () => {
    for (const s of sources.splice(0)) await s.close?.();
  };
  try {
    for (const name of names) sources.push(await directory.open(name));
  } catch (error) {
    await close();
    throw error;
  }
  return { sources, close };
}

async function merge(input: ConvertInput, sink: ByteSink, options: ConvertOptions): Promise<ConvertReport> {
  const { sources, close } = await partials(input);
  try {
    const result = await mergeIndexes(sources, sink, { signal: options.signal });
    return {
      warnings: [],
      details: {
        merged: sources.map((s) => s.name),
        rows: result.rows,
        stems: result.stems,
        shards: result.shards,
        bytes: result.bytes,
      },
    };
  } finally {
    await close();
  }
}

/**
 * Tar shards → a .taridx index (the `index` verb). The input is a folder (with `fold`: its
 * `<fold>_*.tar` in T4's fid order), one shard file, or a shard streamed on standard input
 * (with `shardName`, spooled to scratch). `shardRange` ("0-99") writes a partial index of
 * those fids for `merge`; `merge` takes partial indexes instead (every `*.taridx` a folder
 * target lists, or one file) and writes the one-pass index, byte for byte.
 */
export const convertTarToTaridx: Converter = {
  async convert(input, output, options): Promise<ConvertReport> {
    const sink = fileSink(output);
    const values = options.values ?? {};
    if (values.merge === true) return merge(input, sink, options);
    const rangeText = stringValue(values, 'shardRange');
    const range = rangeText === undefined ? undefined : parseShardRange(rangeText);
    if (rangeText !== undefined && !range)
      throw new RangeError(`--shard-range ${JSON.stringify(rangeText)}: give FIRST-LAST fids, e.g. 0-99`);
    const { shards, fold, done } = await shardInput(input, values, options);
    try {
      const indexOptions: IndexOptions = { signal: options.signal, onProgress: options.onProgress };
      if (range) {
        const partial = await indexShardRange(shards, range, indexOptions);
        await sink.write(partial.bytes);
        const { first, last, total } = partial.range;
        return {
          warnings: [],
          details: { fold, rows: partial.rows, shards: partial.shards, range: { first, last, total } },
        };
      }
      const result = await indexShards(shards, indexOptions);
      await sink.write(result.bytes);
      return { warnings: [], details: { fold, rows: result.rows, shards: result.shards } };
    } finally {
      done?.();
    }
  },
};
