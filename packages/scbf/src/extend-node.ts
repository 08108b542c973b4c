import type { ReadOptions } from '@binscope/core';
import { AtomicFile, NodeFileSource, writeFileAtomic } from '@binscope/core/node';
import * as path from 'node:path';
import type { ExtensionChoice } from './extend.js';
import { type RewriteChoice, writeExtended, writeRewritten } from './rewrite.js';
import { openScbf } from './plugin.js';

export type { RewriteChoice } from './rewrite.js';

/**
 * Gives the SCBF file at `input` an extension footer (checksums, statistics) and writes the
 * result to `output` (which may be `input`) atomically: header, table and blocks are copied
 * unchanged, anything after the last block is replaced by the new footer.
 */
export async function extendScbfFile(
  input: string,
  output: string,
  choice: ExtensionChoice = {},
  options: ReadOptions = {},
): Promise<{ bytes: number; footerBytes: number }> {
  const source = NodeFileSource.open(input, path.basename(input));
  let out: AtomicFile | undefined;
  try {
    const reader = await openScbf(source, options);
    out = AtomicFile.create(output);
    const written = await writeExtended(reader, out, choice, options);
    await out.commit();
    return written;
  } catch (error) {
    out?.abort();
    throw error;
  } finally {
    await source.close();
  }
}

/**
 * Rewrites the SCBF file at `input` to `output` (atomically; may be the same path) with the
 * chosen cell extensions, plus block checksums and statistics (see `writeRewritten`).
 */
export async function rewriteScbfFile(
  input: string,
  output: string,
  choice: RewriteChoice = {},
): Promise<{ nullColumns: string[]; dictionaryColumns: string[] }> {
  const source = NodeFileSource.open(input, path.basename(input));
  try {
    const reader = await openScbf(source);
    let result: { nullColumns: string[]; dictionaryColumns: string[] } | undefined;
    await writeFileAtomic(output, async (sink) => {
      result = await writeRewritten(reader, sink, choice);
    });
    return result!;
  } finally {
    await source.close();
  }
}

/**
 * Rewrites the SCBF file at `input` to `output` (atomically; may be the same path) with
 * empty-cell nulls: utf8 columns that are numeric but for their empty cells become int32 /
 * float64 with a null bitmap, plus block checksums and statistics.
 */
export async function nullableScbfFile(input: string, output: string): Promise<{ nullColumns: string[] }> {
  const { nullColumns } = await rewriteScbfFile(input, output, { nulls: true });
  return { nullColumns };
}
