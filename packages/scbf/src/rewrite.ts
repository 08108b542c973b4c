import { type ByteSink, type ReadOptions, readExact } from '@binscope/core';
import { dictionaryColumns } from './dictionary.js';
import { type ExtensionChoice, scbfExtensionFooter } from './extend.js';
import { blocksEnd } from './extensions.js';
import { FORMAT } from './layout.js';
import { nullableColumns } from './nulls.js';
import type { ScbfReader } from './read.js';
import { writeScbf } from './write.js';

/**
 * Second passes over a written file, into a new sink: a fresh extension footer, or the cell
 * extensions (nulls, dictionaries). Browser-safe: core/node's path helpers (extend-node.ts) and
 * the CSV → SCBF converter (convert.ts, over a scratch copy) both use them.
 */

const COPY_CHUNK = 4 << 20;

/**
 * The file behind `reader` with a fresh extension footer (checksums, statistics), written to
 * `sink`: header, table and blocks copied unchanged, anything after the last block replaced by
 * the new footer.
 */
export async function writeExtended(
  reader: ScbfReader,
  sink: ByteSink,
  choice: ExtensionChoice = {},
  options: ReadOptions = {},
): Promise<{ bytes: number; footerBytes: number }> {
  const footer = await scbfExtensionFooter(reader, choice, options);
  const end = blocksEnd(reader.columns, reader.header.metaTableEnd);
  for (let pos = 0; pos < end; pos += COPY_CHUNK) {
    const n = Math.min(COPY_CHUNK, end - pos);
    await sink.write(
      await readExact(reader.source, pos, n, { format: FORMAT, what: 'SCBF file', signal: options.signal }),
    );
  }
  await sink.write(footer);
  return { bytes: end + footer.byteLength, footerBytes: footer.byteLength };
}

/** What `writeRewritten` changes about the columns. */
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
 * The file behind `reader` rewritten to `sink` with the chosen cell extensions, plus block
 * checksums and statistics. Existing nulls and dictionaries are decoded first, so a rewrite
 * never stacks them. Holds the decoded columns in memory, as the in-memory writer does.
 */
export async function writeRewritten(
  reader: ScbfReader,
  sink: ByteSink,
  choice: RewriteChoice = {},
): Promise<{ nullColumns: string[]; dictionaryColumns: string[] }> {
  const nullable = await nullableColumns(reader, { retype: choice.nulls === true });
  const { columns, dictionaries } =
    choice.dictionary === 'auto'
      ? dictionaryColumns(nullable.columns)
      : { columns: nullable.columns, dictionaries: new Map<number, string[]>() };
  const { nulls } = nullable;
  await writeScbf(sink, columns, {
    level: choice.level,
    pythonZlib: choice.pythonZlib,
    extensions: { nulls, dictionaries },
  });
  const names = (indices: Iterable<number>) => [...indices].map((i) => columns[i].name);
  return { nullColumns: names(nulls.keys()), dictionaryColumns: names(dictionaries.keys()) };
}
