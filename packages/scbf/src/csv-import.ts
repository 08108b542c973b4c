/** Node-only: CSV → SCBF, streaming, with memory and open files bounded whatever the column count. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pacer, type ProgressCallback, SourceError } from '@binscope/core';
import { AtomicFile, describeFsError, openRegularFile, trackTemp, untrackTemp } from '@binscope/core/node';
import { ColumnWriter, csvError } from './csv-column.js';
import { CsvRecords } from './csv-records.js';
import type { ScbfType } from './layout.js';
import { makeSpillSpace, type SpillSpace } from './spill.js';
import { type ColumnPlan, encodeHead, isWellFormed } from './write.js';

export interface CsvToScbfOptions {
  /** Types by column name (others inferred) or one per column; default: S7 inference. */
  types?: Readonly<Record<string, ScbfType>> | readonly ScbfType[];
  /** zlib level (default 6, as Python's zlib.compress). */
  level?: number;
  /**
   * Deflate as Python's zlib.compress does (classic zlib via pako), so the output is
   * byte-identical to the upstream Python writer's for the same CSV. Slower: deflating then
   * runs on the main thread, not beside parsing on the thread pool. Default off (node:zlib).
   */
  pythonZlib?: boolean;
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
  /** Where spilled columns go (default: a scratch folder beside the output). */
  scratchDir?: string;
  /** Name used in error messages when the input is a stream. */
  inputName?: string;
  /** Memory for all columns' buffers together when there are many columns (default 64 MiB). */
  spillBudget?: number;
  /** Longest record held while reading, an unclosed quoted field included (default 256 MiB). */
  maxRecordBytes?: number;
  /**
   * Most columns accepted (default 100,000): memory grows by about
   * 3 KB per column, so a wider CSV is refused (InvalidValue) while its header is read.
   */
  maxColumns?: number;
}

export interface CsvToScbfResult {
  rows: number;
  columns: { name: string; type: ScbfType }[];
  csvBytes: number;
  scbfBytes: number;
}

/** CSV bytes parsed between returns to the event loop. */
const PARSE_SLICE = 256 << 10;
const encoder = new TextEncoder();

type CsvInput = string | AsyncIterable<Uint8Array | string>;

/**
 * CSV (S8 dialect, or any RFC 4180 CSV) → SCBF, streaming: the CSV is parsed once with
 * papaparse, each column's bytes go to scratch space as they grow (see spill.ts), and the
 * output is assembled from them and renamed into place. Memory and open files stay bounded
 * whatever the CSV's size and column count. Types follow S7 unless given.
 */
export async function csvToScbf(
  input: CsvInput,
  output: string,
  options: CsvToScbfOptions = {},
): Promise<CsvToScbfResult> {
  const inputName = options.inputName ?? (typeof input === 'string' ? path.basename(input) : 'csv');
  // The temp file exists from the start; spills go in a folder named after it, so a killed
  // conversion leaves nothing that the next successful write to `output` does not remove.
  const file = AtomicFile.create(output);
  let scratchDir: string;
  try {
    scratchDir = options.scratchDir
      ? fs.mkdtempSync(path.join(options.scratchDir, 'scbf-spill-'))
      : `${file.tempPath}-spill`;
    if (!options.scratchDir) fs.mkdirSync(scratchDir);
    // Removed at once if the process is interrupted (core's removeTempsOnSignals).
    trackTemp(scratchDir);
  } catch (cause) {
    file.abort();
    throw new SourceError(`cannot create a scratch folder for ${output}: ${describeFsError(cause)}`, output, {
      cause,
    });
  }
  let space: SpillSpace | undefined;
  let columns: ColumnWriter[] | undefined;
  let rows = 0;
  let csvBytes = 0;
  const records = new CsvRecords(inputName, options.maxRecordBytes, options.maxColumns);
  // Loops over every column give the event loop turns (a SIGTERM handler, an abort).
  const pace = pacer(options.signal);
  const take = (batch: string[][]): void => {
    let r = 0;
    if (!columns && batch.length) {
      const header = batch[r++];
      space = makeSpillSpace(
        scratchDir,
        header.length,
        { level: options.level, pythonZlib: options.pythonZlib },
        output,
        options.spillBudget,
      );
      columns = makeColumns(header, options, space);
    }
    if (!columns) return;
    const width = columns.length;
    const first = r;
    for (; r < batch.length; r++) {
      if (batch[r].length !== width) {
        throw csvError(
          `record ${rows + r - first + 1} has ${batch[r].length} fields, the header has ${width}`,
          inputName,
        );
      }
    }
    // A column at a time: each column's cells go through one code path in a row.
    for (let c = 0; c < width; c++) {
      const column = columns[c];
      for (let k = first; k < batch.length; k++) column.add(batch[k][c], rows + k - first);
    }
    rows += batch.length - first;
  };

  try {
    let lastProgress = 0;
    for await (const chunk of readInput(input, options.signal)) {
      for (let pos = 0; pos < chunk.byteLength; pos += PARSE_SLICE) {
        take(records.push(chunk.subarray(pos, pos + PARSE_SLICE)));
        // The deflaters' finished work is handed back (and their next chunk started) only
        // when this thread returns to the event loop: do so often, or the thread pool idles.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (columns)
          for (const column of columns) {
            for (const spill of column.spills()) await spill.settle();
            await pace();
          }
      }
      csvBytes += chunk.byteLength;
      if (options.onProgress && csvBytes - lastProgress >= 8 << 20) {
        lastProgress = csvBytes;
        options.onProgress({
          phase: 'convert',
          done: csvBytes,
          total: typeof input === 'string' ? fileSize(input) : undefined,
          unit: 'bytes',
        });
      }
    }
    take(records.end());
    if (!columns) throw csvError('the CSV is empty: it has no header row', inputName);
    for (let c = 0; c < columns.length; c++) {
      await pace();
      await columns[c].finish(pace);
      if (options.onProgress && (c % 1024 === 0 || c === columns.length - 1))
        options.onProgress({ phase: 'columns', done: c + 1, total: columns.length, unit: 'items' });
    }

    const plans: ColumnPlan[] = columns.map((c) => ({
      name: c.name,
      type: c.type!,
      blocks: c.blocks.map((b) => ({
        uncompressedSize: b.uncompressedSize,
        compressedSize: b.compressedSize,
      })),
    }));
    const { head } = encodeHead(plans, rows);
    file.writeSync(head);
    const buffer = Buffer.allocUnsafe(4 << 20);
    for (const column of columns) {
      for (const block of column.blocks) block.copyTo(file, buffer);
      await pace();
    }
    // Spills go before the rename, so a crash after it leaves nothing behind.
    space?.close();
    fs.rmSync(scratchDir, { recursive: true, force: true });
    await file.commit();
    options.onProgress?.({ phase: 'convert', done: csvBytes, total: csvBytes, unit: 'bytes' });
    return {
      rows,
      columns: plans.map((p) => ({ name: p.name, type: p.type })),
      csvBytes,
      scbfBytes:
        head.byteLength +
        plans.reduce((sum, p) => sum + p.blocks.reduce((s, b) => s + b.compressedSize, 0), 0),
    };
  } catch (error) {
    if (columns) for (const column of columns) column.abort();
    file.abort();
    throw error;
  } finally {
    space?.close();
    fs.rmSync(scratchDir, { recursive: true, force: true });
    untrackTemp(scratchDir);
  }
}

function makeColumns(header: string[], options: CsvToScbfOptions, space: SpillSpace): ColumnWriter[] {
  const { types } = options;
  if (Array.isArray(types) && types.length !== header.length) {
    throw csvError(`${types.length} types given for ${header.length} columns`);
  }
  if (types && !Array.isArray(types)) {
    const names = new Set(header);
    for (const name of Object.keys(types)) {
      if (!names.has(name))
        throw csvError(`a type is given for column "${name}", which the CSV does not have`);
    }
  }
  return header.map((name, index) => {
    const type = Array.isArray(types)
      ? types[index]
      : (types as Record<string, ScbfType> | undefined)?.[name];
    if (type !== undefined && type !== 'int32' && type !== 'float64' && type !== 'utf8') {
      throw csvError(`column "${name}": unknown type ${JSON.stringify(type)} (int32, float64 or utf8)`);
    }
    if (!isWellFormed(name)) throw csvError(`column name ${JSON.stringify(name)} contains a lone surrogate`);
    return new ColumnWriter(name, index, type, space);
  });
}

async function* readInput(input: CsvInput, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  if (typeof input !== 'string') {
    for await (const chunk of input) {
      signal?.throwIfAborted();
      yield typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    }
    return;
  }
  // A FIFO or device is refused at once: reading one could wait forever or never end.
  const { fd } = openRegularFile(input);
  try {
    // One buffer for every read: its bytes are decoded (or copied) before the next one.
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (let position = 0; ; ) {
      signal?.throwIfAborted();
      const n = fs.readSync(fd, buffer, 0, buffer.byteLength, position);
      if (n === 0) break;
      position += n;
      yield buffer.subarray(0, n);
    }
  } finally {
    fs.closeSync(fd);
  }
}

function fileSize(p: string): number | undefined {
  try {
    return fs.statSync(p).size;
  } catch {
    return undefined;
  }
}
