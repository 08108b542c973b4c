/**
 * Node-only SCBF: files on disk, atomic writes, and CSV ⇄ SCBF conversion (CSV → SCBF in
 * csv-import.ts). Everything here may touch `node:` modules; the package's main entry never
 * imports this file.
 */
import * as path from 'node:path';
import type { ByteSource, Problem } from '@binscope/core';
import { NodeFileSource, writeFileAtomic } from '@binscope/core/node';
import { scbfToCsvChunks } from './csv.js';
import { openScbf, type RowOptions, type ScbfReader } from './read.js';
import { type ColumnInput, type WriteOptions, writeScbf } from './write.js';

export { type CsvToScbfOptions, type CsvToScbfResult, csvToScbf } from './csv-import.js';
export { scbfPlugin } from './plugin.js';
export { extendScbfFile, nullableScbfFile, type RewriteChoice, rewriteScbfFile } from './extend-node.js';

/** Opens an SCBF file on disk lazily (positional reads; never the whole file). */
export async function openScbfFile(filePath: string): Promise<ScbfReader> {
  const source = NodeFileSource.open(filePath, path.basename(filePath));
  try {
    return await openScbf(source);
  } catch (error) {
    await source.close();
    throw error;
  }
}

/** Writes columns to `filePath` atomically (temp file + rename). */
export async function writeScbfFile(
  filePath: string,
  columns: readonly ColumnInput[],
  options: WriteOptions = {},
): Promise<void> {
  await writeFileAtomic(filePath, (sink) => writeScbf(sink, columns, options));
}

// ---------------------------------------------------------------------------------------
// SCBF → CSV

/** Writes the S8 CSV of an SCBF file (path or source) to `output` atomically. */
export async function scbfToCsv(
  input: string | ByteSource,
  output: string,
  options: RowOptions = {},
): Promise<{ warnings: Problem[] }> {
  const reader = typeof input === 'string' ? await openScbfFile(input) : await openScbf(input);
  try {
    await writeFileAtomic(output, async (sink) => {
      for await (const chunk of scbfToCsvChunks(reader, options))
        if (chunk) await sink.write(Buffer.from(chunk, 'utf8'));
    });
    // S4: an upstream file's str_uncomp_size, read past with a warning.
    return { warnings: reader.warnings };
  } finally {
    if (typeof input === 'string') await reader.close();
  }
}

/** Streams the S8 CSV of an open reader into a Node writable (stdout), honouring backpressure. */
export async function writeCsv(
  reader: ScbfReader,
  out: NodeJS.WritableStream,
  options: RowOptions = {},
): Promise<void> {
  for await (const chunk of scbfToCsvChunks(reader, options)) {
    if (chunk && !out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
  }
}
