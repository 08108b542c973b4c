import { type ByteSource, type DirectorySource, MemorySource } from '@binscope/core';
import { indexShards, openTaridx, TaridxReader } from '@binscope/taridx';

/**
 * What a conversion reads: an open TARIDX reader, an index with its shards, or a fold of
 * shards in a folder without an index (indexed in memory first, reading only tar headers).
 * The conversion closes none of them (whoever opens a source closes it); a reader it opens
 * itself it closes, and with it the shards that reader opened.
 */
export type ShardsInput =
  | TaridxReader
  | { index: ByteSource; shards?: DirectorySource | readonly ByteSource[]; fold?: string }
  | { directory: DirectorySource; fold: string };

export async function openInput(input: ShardsInput, signal?: AbortSignal): Promise<TaridxReader> {
  if (input instanceof TaridxReader) return input;
  if ('index' in input) return openTaridx(input.index, { shards: input.shards, fold: input.fold, signal });
  const { directory, fold } = input;
  const { bytes } = await indexShards({ directory, fold }, { signal });
  return openTaridx(new MemorySource(bytes, `${fold}.taridx`), { shards: directory, fold, signal });
}
