/** CSV → SCBF, streaming, with memory and scratch files bounded whatever the column count. Browser-safe. */
import { type ByteSink, type ProgressCallback, pacer, type Scratch } from '@binscope/core';
import { nextTask, ownFiles, settleColumns, writeColumns } from './columns-out.js';
import { ColumnWriter, csvError } from './csv-column.js';
import { CsvRecords } from './csv-records.js';
import type { ScbfType } from './layout.js';
import { makeSpillSpace, type SpillSpace } from './spill.js';
import { isWellFormed } from './write.js';

export interface CsvToScbfOptions {
  /** Types by column name (others inferred) or one per column; default: S7 inference. */
  types?: Readonly<Record<string, ScbfType>> | readonly ScbfType[];
  /** zlib level (default 6, as Python's zlib.compress). */
  level?: number;
  /**
   * Deflate as Python's zlib.compress does (classic zlib via pako), so the output is
   * byte-identical to the upstream Python writer's for the same CSV. Slower under Node:
   * deflating then runs on the main thread, not beside parsing on the thread pool.
   */
  pythonZlib?: boolean;
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
  /** Name used in error messages (the CSV's file name). */
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

/** What the conversion reads: the CSV's bytes in order, and its size when known (for progress). */
export interface CsvBytes {
  chunks: AsyncIterable<Uint8Array>;
  size?: number;
}

/** CSV bytes parsed between returns to the event loop. */
const PARSE_SLICE = 256 << 10;

/**
 * CSV (S8 dialect, or any RFC 4180 CSV) → SCBF written to `sink`: the CSV is parsed once with
 * papaparse, each column's bytes go to `scratch` as they grow (see spill.ts), and the output is
 * assembled from them once every column's type and block sizes are known. Memory and scratch
 * files stay bounded whatever the CSV's size and column count. Types follow S7 unless given.
 * The scratch files it made are removed before it returns (the scratch itself is the caller's);
 * what a failure leaves in `sink` is the caller's to discard (an atomic file is dropped).
 */
export async function convertCsv(
  input: CsvBytes,
  sink: ByteSink,
  scratch: Scratch,
  options: CsvToScbfOptions = {},
): Promise<CsvToScbfResult> {
  const inputName = options.inputName ?? 'csv';
  const own = ownFiles(scratch);
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
        own,
        header.length,
        { level: options.level, pythonZlib: options.pythonZlib },
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
    for await (const chunk of input.chunks) {
      options.signal?.throwIfAborted();
      for (let pos = 0; pos < chunk.byteLength; pos += PARSE_SLICE) {
        take(records.push(chunk.subarray(pos, pos + PARSE_SLICE)));
        await nextTask();
        if (columns) await settleColumns(columns, pace);
      }
      csvBytes += chunk.byteLength;
      if (options.onProgress && csvBytes - lastProgress >= 8 << 20) {
        lastProgress = csvBytes;
        options.onProgress({ phase: 'convert', done: csvBytes, total: input.size, unit: 'bytes' });
      }
    }
    take(records.end());
    if (!columns) throw csvError('the CSV is empty: it has no header row', inputName);
    const written = await writeColumns(columns, rows, sink, pace, options.onProgress);
    options.onProgress?.({ phase: 'convert', done: csvBytes, total: csvBytes, unit: 'bytes' });
    return { rows, columns: written.columns, csvBytes, scbfBytes: written.scbfBytes };
  } catch (error) {
    if (columns) for (const column of columns) column.abort();
    throw error;
  } finally {
    space?.close();
    own.close();
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
