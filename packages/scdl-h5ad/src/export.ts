/**
 * SCDL archive → AnnData `.h5ad` (scdlToH5adConverter): X as csr_matrix in the archive's
 * dtype, obs and var from its feature indices, in anndata's on-disk layout. The archive is
 * read through @binscope/scdl's reader (rows in batches, tables by block); HDF5 writes into
 * an H5Output, whose finished file is then streamed into the app's sink.
 */
import {
  type ConvertInput,
  type ConvertOptions,
  type ConvertReport,
  type Converter,
  type ConvertOutput,
  isBinscopeError,
  type Problem,
  SourceError,
  throwIfAborted,
} from '@binscope/core';
import { type ScdlReader, scdlPlugin } from '@binscope/scdl';
import { loadH5wasm } from './browser-lib.js';
import { obsFrame, varFrame } from './export-frames.js';
import { condenseHdf5Error } from './h5.js';
import { type H5Output, memoryOutput } from './h5-output.js';
import { CsrWriter, encode, writeEmptyDicts, writeFrame } from './h5ad-write.js';

/** Bytes of matrix entries per row batch written to X (indices and values). */
const BATCH_BYTES = 4 << 20;

export interface ExportResult {
  rows: number;
  columns: number;
  nnz: number;
  dataDType: string;
  obsColumns: string[];
  varColumns: string[];
  warnings: string[];
}

/**
 * Writes the archive `reader` reads as an AnnData at `output.path`. The tables come first
 * (what the export refuses, it refuses before X is written), then X one row batch at a time.
 */
export async function writeAnnData(
  reader: ScdlReader,
  output: H5Output,
  options: Pick<ConvertOptions, 'signal' | 'onProgress'> & {
    /** Bytes of matrix entries per row block (default 4 MiB). */
    batchBytes?: number;
  } = {},
): Promise<ExportResult> {
  const { signal, onProgress, batchBytes = BATCH_BYTES } = options;
  const name = reader.directory.name;
  onProgress?.({ phase: 'reading obs and var tables', done: 0, total: reader.numRows, unit: 'items' });
  const obs = await obsFrame(reader, signal);
  const vars = await varFrame(reader, signal);
  const warnings: string[] = [];
  if (reader.dataDType === 'float16')
    warnings.push('X is written as float32 (h5wasm writes no float16; every float16 value is kept exactly)');
  const file = new output.lib.File(output.path, 'w');
  try {
    encode(file, 'anndata', '0.1.0');
    writeFrame(file, 'obs', obs);
    writeFrame(file, 'var', vars);
    writeEmptyDicts(file);
    const x = new CsrWriter(file, reader.dataDType, [reader.numRows, vars.rows], reader.nnz, name);
    let done = 0;
    for await (const batch of reader.batches({ signal, reuse: true, batchBytes })) {
      throwIfAborted(signal);
      x.append(batch);
      done += batch.indptr.length - 1;
      onProgress?.({ phase: 'writing X', done, total: reader.numRows, unit: 'items' });
    }
    x.finish();
  } finally {
    file.close();
  }
  return {
    rows: reader.numRows,
    columns: vars.rows,
    nnz: reader.nnz,
    dataDType: reader.dataDType,
    obsColumns: obs.columns.map((c) => c.name),
    varColumns: vars.columns.map((c) => c.name),
    warnings,
  };
}

/** Opens the archive a target names (its folder, or its header.sch among its siblings). */
async function openArchive(input: ConvertInput, options: ConvertOptions): Promise<ScdlReader> {
  if (input.kind === 'stream') throw new TypeError('an SCDL archive is read from a folder, not a stream');
  return scdlPlugin.open(input, { signal: options.signal });
}

/**
 * The whole export: the archive opened, written into `output`'s file, that file streamed into
 * the sink; the file removed whatever happens (the sink's owner decides what a failure leaves).
 */
export async function exportToSink(
  input: ConvertInput,
  output: ConvertOutput,
  options: ConvertOptions,
  open: () => Promise<H5Output>,
): Promise<ConvertReport> {
  if (output.kind !== 'file') throw new TypeError('an .h5ad is written to a file sink');
  const reader = await openArchive(input, options);
  let h5: H5Output | undefined;
  try {
    h5 = await open();
    const result = await writeAnnData(reader, h5, options).catch((error: unknown) => {
      throw writeFailure(error, reader.directory.name);
    });
    options.onProgress?.({
      phase: 'copying the .h5ad to its place',
      done: reader.numRows,
      total: reader.numRows,
      unit: 'items',
    });
    await h5.copyTo(output.sink, options);
    return exportReport(result);
  } finally {
    h5?.dispose();
    await reader.close();
  }
}

/**
 * An HDF5 failure while writing (a full disk under the temp file) as a one-line SourceError;
 * the archive's own errors (FormatErrors) and aborts pass as they are.
 */
function writeFailure(error: unknown, archive: string): unknown {
  if (isBinscopeError(error, 'FormatError') || isBinscopeError(error, 'SourceError')) return error;
  if ((error as Error)?.name === 'AbortError') return error;
  return new SourceError(`cannot write the .h5ad from ${archive}: ${condenseHdf5Error(error)}`, archive, {
    cause: error,
  });
}

export function exportReport(result: ExportResult): ConvertReport {
  return {
    warnings: result.warnings.map((message): Problem => ({ code: 'Conversion', message, format: 'scdl' })),
    details: {
      rows: result.rows,
      columns: result.columns,
      nnz: result.nnz,
      dataDType: result.dataDType,
      obsColumns: result.obsColumns,
      varColumns: result.varColumns,
    },
  };
}

/** Browser-safe: h5wasm's wasm build, the file built in wasm memory (memoryOutput). */
export const convertScdlToH5ad: Converter = {
  convert: (input, output, options) =>
    exportToSink(input, output, options, async () => memoryOutput(await loadH5wasm())),
};
