import { FormatError } from '@binscope/core';
import { type ArchiveSink, MemoryArchiveSink, ScdlWriter } from '@binscope/scdl';
import type { H5adSummary } from './anndata.js';
import {
  type ConversionInput,
  type ConversionResult,
  type ConvertOptions,
  convertAnnData,
} from './convert.js';
import { type H5Lib, useThrowingErrors } from './h5.js';
import { asH5adError } from './h5-failures.js';
import { comparePathParts, hasSignatureAt, openAnnData, signatureOffsets } from './open.js';

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
}

let browserLib: Promise<H5Lib> | undefined;

/** h5wasm's ESM (wasm) build, loaded once on first use. */
export function loadH5wasm(): Promise<H5Lib> {
  browserLib ??= import('h5wasm').then(async (lib) => {
    await lib.ready;
    useThrowingErrors(lib as unknown as H5Lib);
    return lib as unknown as H5Lib;
  });
  return browserLib;
}

function labelOf(input: H5adBlob): string {
  if (!(input instanceof Blob)) return input.label;
  const file = input as Blob & { name?: string; webkitRelativePath?: string };
  return file.webkitRelativePath || file.name || 'input.h5ad';
}

function blobOf(input: H5adBlob): Blob {
  return input instanceof Blob ? input : input.blob;
}

async function checkHdf5(blob: Blob, label: string): Promise<void> {
  for (const at of signatureOffsets(blob.size)) {
    const head = new Uint8Array(await blob.slice(at, at + 8).arrayBuffer());
    if (hasSignatureAt(head)) return;
  }
  throw new FormatError(
    blob.size < 8 ? 'Truncated' : 'BadMagic',
    'not an HDF5 file (no \\x89HDF signature)',
    {
      file: label,
      offset: 0,
      format: 'h5ad',
    },
  );
}

let mounts = 0;

interface EmscriptenFS {
  mkdir(path: string): void;
  rmdir(path: string): void;
  mount(type: unknown, options: unknown, path: string): void;
  unmount(path: string): void;
  writeFile(path: string, data: Uint8Array): void;
  unlink(path: string): void;
  filesystems: Record<string, unknown>;
}

/**
 * Makes a Blob readable by HDF5 inside wasm. In a Web Worker it is mounted with Emscripten's
 * WORKERFS, which reads only the byte ranges HDF5 asks for (FileReaderSync on Blob.slice): a
 * multi-GB file converts without being loaded. Outside a worker there are no synchronous Blob
 * reads, so the file is copied into wasm memory (limited to a few GB): run conversions in a
 * worker.
 */
async function mountBlob(lib: H5Lib, blob: Blob): Promise<{ path: string; release: () => void }> {
  const fs = (lib.Module as unknown as { FS: EmscriptenFS }).FS;
  const dir = `/binscope-h5ad-${++mounts}`;
  const path = `${dir}/input.h5ad`;
  fs.mkdir(dir);
  if (typeof (globalThis as { FileReaderSync?: unknown }).FileReaderSync === 'function') {
    fs.mount(fs.filesystems.WORKERFS, { blobs: [{ name: 'input.h5ad', data: blob }] }, dir);
    return {
      path,
      release: () => {
        fs.unmount(dir);
        fs.rmdir(dir);
      },
    };
  }
  fs.writeFile(path, new Uint8Array(await blob.arrayBuffer()));
  return {
    path,
    release: () => {
      fs.unlink(path);
      fs.rmdir(dir);
    },
  };
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
  for (const item of items) await checkHdf5(item.blob, item.label);
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
 * written to `sink`: `MemoryArchiveSink`, or any ArchiveSink (a folder through the File
 * System Access API, a zip writer). Several files become one archive (C12), sorted by path.
 */
export async function convertH5adFiles(
  files: readonly H5adBlob[],
  sink: ArchiveSink,
  options: BrowserConvertOptions = {},
): Promise<ConversionResult> {
  const inputs = await inputsFor(files, options);
  return convertAnnData(
    inputs,
    (writeOptions) => {
      const writer = new ScdlWriter(sink, writeOptions);
      return {
        appendRows: (chunk) => writer.appendRows(chunk),
        finish: (features) => writer.finish(features),
        abort: () => writer.abort(),
        // MemoryArchiveSink copies what it is given; other sinks may keep the bytes.
        reusesChunkBuffers: sink instanceof MemoryArchiveSink,
      };
    },
    options,
  ).catch((error: unknown) => {
    throw asH5adError(error, files.map(labelOf).join(', '));
  });
}

/** Converts into memory; `archiveFiles(sink)` then yields every file of the archive to save or zip. */
export async function convertH5adFilesToMemory(
  files: readonly H5adBlob[],
  options: BrowserConvertOptions = {},
): Promise<{ sink: MemoryArchiveSink; result: ConversionResult }> {
  const sink = new MemoryArchiveSink();
  const result = await convertH5adFiles(files, sink, options);
  return { sink, result };
}

/** Every file of an in-memory archive as `{ path, bytes }` (paths relative, "/"-separated), sorted. */
export function* archiveFiles(sink: MemoryArchiveSink): Generator<{ path: string; bytes: Uint8Array }> {
  for (const path of sink.paths()) yield { path, bytes: sink.file(path) };
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
