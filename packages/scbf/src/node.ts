/**
 * Node-only SCBF: files on disk, atomic writes, and the CSV ⇄ SCBF converters run on paths.
 * Everything here may touch `node:` modules; the package's main entry never imports this file.
 */
import * as path from 'node:path';
import type { ByteSource, Problem } from '@binscope/core';
import { AtomicFile, fileScratch, NodeFileSource, writeFileAtomic } from '@binscope/core/node';
import { csvBytesOf } from './convert.js';
import { type CsvToScbfOptions, type CsvToScbfResult, convertCsv } from './csv-convert.js';
import { scbfToCsvChunks } from './csv.js';
import { openScbf } from './plugin.js';
import type { RowOptions, ScbfReader } from './read.js';
import { type ColumnInput, type WriteOptions, writeScbf } from './write.js';

export type { CsvToScbfOptions, CsvToScbfResult } from './csv-convert.js';
export { scbfPlugin } from './plugin.js';
export { extendScbfFile, nullableScbfFile, type RewriteChoice, rewriteScbfFile } from './extend-node.js';

/** Opens an SCBF file on disk lazily (positional reads; never the whole file); closing the reader closes the file. */
export async function openScbfFile(filePath: string): Promise<ScbfReader> {
  const source = NodeFileSource.open(filePath, path.basename(filePath));
  try {
    return (await openScbf(source)).ownSource();
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

/**
 * CSV → SCBF at `output`, atomically: the file is complete or absent, never half-written.
 * `input` is a path (a FIFO or device is refused at once: reading one could wait forever) or
 * a stream of bytes (stdin). Spills go to a scratch folder beside the output, or in
 * `scratchDir`, removed before the output is renamed into place.
 */
export async function csvToScbf(
  input: string | AsyncIterable<Uint8Array | string>,
  output: string,
  options: CsvToScbfOptions & { scratchDir?: string } = {},
): Promise<CsvToScbfResult> {
  const { scratchDir, ...rest } = options;
  const source = typeof input === 'string' ? NodeFileSource.open(input, path.basename(input)) : undefined;
  try {
    const file = AtomicFile.create(output);
    try {
      const scratch = fileScratch(scratchDir ? path.join(scratchDir, 'x') : output);
      let result: CsvToScbfResult;
      try {
        const csv = source
          ? csvBytesOf({ kind: 'file', source }, options.signal)
          : { chunks: textChunks(input as AsyncIterable<Uint8Array | string>) };
        result = await convertCsv(csv, file, scratch, {
          ...rest,
          inputName: rest.inputName ?? (source ? source.name : 'csv'),
        });
      } finally {
        // Spills go before the rename, so a crash after it leaves nothing behind.
        scratch.close();
      }
      await file.commit();
      return result;
    } catch (error) {
      file.abort();
      throw error;
    }
  } finally {
    await source?.close();
  }
}

async function* textChunks(input: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  for await (const chunk of input) yield typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
}

// ---------------------------------------------------------------------------------------
// SCBF → CSV

/** Writes the S8 CSV of an SCBF file (path or source) to `output` atomically. */
export async function scbfToCsv(
  input: string | ByteSource,
  output: string,
  options: RowOptions = {},
): Promise<{ warnings: Problem[] }> {
  const source = typeof input === 'string' ? NodeFileSource.open(input, path.basename(input)) : input;
  try {
    const reader = await openScbf(source);
    await writeFileAtomic(output, async (sink) => {
      for await (const chunk of scbfToCsvChunks(reader, options))
        if (chunk) await sink.write(Buffer.from(chunk, 'utf8'));
    });
    // S4: an upstream file's str_uncomp_size, read past with a warning.
    return { warnings: [...reader.warnings] };
  } finally {
    if (typeof input === 'string') await source.close?.();
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
