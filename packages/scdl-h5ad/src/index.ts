import { BlobSource, type DirectorySink, MemoryDirectory, type Scratch } from '@binscope/core';
import type { H5adSummary } from './anndata.js';
import {
  type ConversionInput,
  type ConversionResult,
  type ConvertOptions,
  convertAnnData,
} from './convert.js';
import { loadH5wasm } from './browser-lib.js';
import { type H5Lib, useThrowingErrors } from './h5.js';
import { asH5adError } from './h5-failures.js';
import { checkHdf5Source, mountBlob } from './mount.js';
import { comparePathParts, openAnnData } from './open.js';
import { scdlWriterFactory } from './writer.js';

export {
  AnnDataFile,
  type Column,
  type ColumnType,
  type DataFrame,
  type DenseMatrix,
  type H5adSummary,
  type Matrix,
  type MatrixSummary,
  type SparseMatrix,
} from './anndata.js';
export { castElements, DATA_DTYPES, type DataDtype } from './cast.js';
export {
  type ArchiveWriterLike,
  type ConversionInput,
  type ConversionResult,
  type ConvertOptions,
  convertAnnData,
  DEFAULT_NEIGHBOR_KEY,
  type WriterFactory,
} from './convert.js';
export type { ElementType, H5Lib } from './h5.js';
export { openAnnData } from './open.js';
export { h5adConverters, h5adFormat, h5adToScdlConverter, HDF5_MAGIC, scdlToH5adConverter } from './magic.js';
export { convertScdlToH5ad, type ExportResult, writeAnnData } from './export.js';
export { type H5Output, memoryOutput } from './h5-output.js';
export { h5adPlugin } from './plugin.js';
export { convertH5adToScdlArchive } from './converter.js';
export { loadH5wasm };

/** A `.h5ad` given to the browser API: a File (its webkitRelativePath or name is its label), or a Blob with a label. */
export type H5adBlob = Blob | { blob: Blob; label: string };

export interface BrowserConvertOptions extends ConvertOptions {
  /**
   * The h5wasm module to use (e.g. one loaded in a worker); default: `import('h5wasm')`.
   * Its HDF5 error handler is switched to throwing (errors become exceptions, not console noise).
   */
  h5wasm?: H5Lib;
  /** Keep the files in the order given instead of upstream's sorted path order (C12). */
  keepOrder?: boolean;
  /**
   * Where row_ptr / col_ptr wait while their final dtypes are unknown (several inputs of
   * unknown size): memory by default. Never the output sink.
   */
  scratch?: Scratch;
}

function labelOf(input: H5adBlob): string {
  if (!(input instanceof Blob)) return input.label;
  const file = input as Blob & { name?: string; webkitRelativePath?: string };
  return file.webkitRelativePath || file.name || 'input.h5ad';
}

function blobOf(input: H5adBlob): Blob {
  return input instanceof Blob ? input : input.blob;
}

async function inputsFor(
  files: readonly H5adBlob[],
  options: BrowserConvertOptions,
): Promise<ConversionInput[]> {
  const lib = options.h5wasm ?? (await loadH5wasm());
  if (options.h5wasm) {
    await options.h5wasm.ready;
    useThrowingErrors(options.h5wasm);
  }
  const items = files.map((f) => ({ blob: blobOf(f), label: labelOf(f) }));
  if (!options.keepOrder) items.sort((a, b) => comparePathParts(a.label, b.label));
  for (const item of items) await checkHdf5Source(new BlobSource(item.blob, item.label), item.label);
  return items.map((item) => ({
    label: item.label,
    open: async () => {
      const mounted = await mountBlob(lib, item.blob);
      return openAnnData(lib, mounted.path, item.label, mounted.release);
    },
  }));
}

/**
 * Converts `.h5ad` files (Files from a picker or a dropped folder) into an SCDL archive
 * written to `sink`: a MemoryDirectory, a folder through the File System Access API, a zip
 * writer (any DirectorySink). Several files become one archive (C12), sorted by path.
 */
export async function convertH5adFiles(
  files: readonly H5adBlob[],
  sink: DirectorySink,
  options: BrowserConvertOptions = {},
): Promise<ConversionResult> {
  const inputs = await inputsFor(files, options);
  return convertAnnData(inputs, scdlWriterFactory(sink, options.scratch), options).catch((error: unknown) => {
    throw asH5adError(error, files.map(labelOf).join(', '));
  });
}

/** Converts into memory: the archive as a MemoryDirectory (open it, or save its files). */
export async function convertH5adFilesToMemory(
  files: readonly H5adBlob[],
  options: BrowserConvertOptions = {},
): Promise<{ directory: MemoryDirectory; result: ConversionResult }> {
  const directory = new MemoryDirectory();
  const result = await convertH5adFiles(files, directory, options);
  return { directory, result };
}

/** A summary of a `.h5ad` (for a page to show before converting), reading no arrays. */
export async function describeH5adFile(
  file: H5adBlob,
  options: { h5wasm?: H5Lib } = {},
): Promise<H5adSummary> {
  const [input] = await inputsFor([file], { h5wasm: options.h5wasm, keepOrder: true });
  const adata = await input.open();
  try {
    return adata.summary();
  } catch (error) {
    throw asH5adError(error, input.label);
  } finally {
    adata.close();
  }
}
