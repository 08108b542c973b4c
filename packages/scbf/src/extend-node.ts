import { type ReadOptions, readExact } from '@binscope/core';
import { AtomicFile, NodeFileSource, writeFileAtomic } from '@binscope/core/node';
import * as path from 'node:path';
import { type ExtensionChoice, scbfExtensionFooter } from './extend.js';
import { blocksEnd } from './extensions.js';
import { FORMAT } from './layout.js';
import { dictionaryColumns } from './dictionary.js';
import { nullableColumns } from './nulls.js';
import { openScbf } from './read.js';
import { writeScbf } from './write.js';

const COPY_CHUNK = 4 << 20;

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
    const footer = await scbfExtensionFooter(reader, choice, options);
    const end = blocksEnd(reader.columns, reader.header.metaTableEnd);
    out = AtomicFile.create(output);
    for (let pos = 0; pos < end; pos += COPY_CHUNK) {
      const n = Math.min(COPY_CHUNK, end - pos);
      await out.write(
        await readExact(source, pos, n, { format: FORMAT, what: 'SCBF file', signal: options.signal }),
      );
    }
    await out.write(footer);
    await out.commit();
    return { bytes: end + footer.byteLength, footerBytes: footer.byteLength };
  } catch (error) {
    out?.abort();
    throw error;
  } finally {
    await source.close();
  }
}

/** What `rewriteScbfFile` changes about the columns. */
export interface RewriteChoice {
  /** Retype utf8 columns that are numeric but for their empty cells, those cells null. */
  nulls?: boolean;
  /**
   * `auto`: dictionary-encode utf8 columns with few distinct values (upstream readers then
   * see int32 codes, not the strings); `off` (default): store every utf8 column as text.
   */
  dictionary?: 'auto' | 'off';
  /** How the rewritten blocks are deflated, as for `writeScbf`. */
  level?: number;
  pythonZlib?: boolean;
}

/**
 * Rewrites the SCBF file at `input` to `output` (atomically; may be the same path) with the
 * chosen cell extensions, plus block checksums and statistics. Existing nulls and
 * dictionaries are decoded first, so a rewrite never stacks them. Holds the decoded columns
 * in memory, as the in-memory writer does.
 */
export async function rewriteScbfFile(
  input: string,
  output: string,
  choice: RewriteChoice = {},
): Promise<{ nullColumns: string[]; dictionaryColumns: string[] }> {
  const source = NodeFileSource.open(input, path.basename(input));
  try {
    const reader = await openScbf(source);
    const nullable = await nullableColumns(reader, { retype: choice.nulls === true });
    const { columns, dictionaries } =
      choice.dictionary === 'auto'
        ? dictionaryColumns(nullable.columns)
        : { columns: nullable.columns, dictionaries: new Map<number, string[]>() };
    const { nulls } = nullable;
    await writeFileAtomic(output, (sink) =>
      writeScbf(sink, columns, {
        level: choice.level,
        pythonZlib: choice.pythonZlib,
        extensions: { nulls, dictionaries },
      }),
    );
    const names = (indices: Iterable<number>) => [...indices].map((i) => columns[i].name);
    return { nullColumns: names(nulls.keys()), dictionaryColumns: names(dictionaries.keys()) };
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
