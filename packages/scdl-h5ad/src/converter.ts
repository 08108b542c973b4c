/**
 * The `.h5ad → SCDL` conversion `/magic` declares (h5adToScdlConverter), as a Converter:
 * browser-safe (h5wasm's wasm build), reading the app's target through core's sources,
 * writing the archive into the app's DirectorySink and spilling to its scratch.
 */
import type {
  ByteSource,
  ConvertInput,
  Converter,
  ConvertOptions,
  ConvertReport,
  DirectorySource,
  JsonValue,
  OptionValues,
  Target,
} from '@binscope/core';
import { loadH5wasm } from './browser-lib.js';
import {
  checkDataDtype,
  type ConversionInput,
  type ConversionResult,
  type ConvertOptions as H5adOptions,
  convertAnnData,
} from './convert.js';
import { asH5adError } from './h5-failures.js';
import { h5adError } from './h5ad-error.js';
import { checkHdf5Source, mountSource } from './mount.js';
import { comparePathParts, openAnnData, pythonPath } from './open.js';
import { scdlWriterFactory } from './writer.js';

/** The declared options' values (see h5adToScdlConverter) as the conversion's settings. */
export function h5adOptions(values: OptionValues, options: ConvertOptions): H5adOptions {
  const dataDtype = values.dataDtype;
  if (dataDtype !== undefined && typeof dataDtype !== 'string')
    throw h5adError('InvalidValue', undefined, `dataDtype: ${JSON.stringify(dataDtype)} is not a dtype name`);
  const neighbors = values.neighbors;
  return {
    dataDtype: dataDtype === undefined ? undefined : checkDataDtype(dataDtype),
    useX: values.useX === true,
    lossyCast: values.lossyCast === true,
    // A key, or true for upstream's default key; an empty key is no neighbors.
    neighbors: typeof neighbors === 'string' ? neighbors || undefined : neighbors === true,
    signal: options.signal,
    onProgress: options.onProgress,
  };
}

/** A folder's `.h5ad` files, recursively, in upstream's order (sorted paths), labelled folder/path. */
export async function folderInputs(directory: DirectorySource): Promise<{ path: string; label: string }[]> {
  const found = (await directory.list()).filter((p) => p.endsWith('.h5ad'));
  if (found.length === 0)
    throw h5adError('InvalidValue', directory.name, `${directory.name}: no .h5ad files in this folder`);
  return found
    .map((path) => ({ path, label: pythonPath(`${directory.name}/${path}`) }))
    .sort((a, b) => comparePathParts(a.label, b.label));
}

/** The inputs of a target: one `.h5ad`, or every `.h5ad` of a folder (C12: one archive). */
async function conversionInputs(input: Target, options: ConvertOptions): Promise<ConversionInput[]> {
  const lib = await loadH5wasm();
  const opener = (open: () => Promise<ByteSource>, label: string): ConversionInput => ({
    label,
    open: async () => {
      const source = await open();
      const mounted = await mountSource(lib, source, { scratch: options.scratch, signal: options.signal });
      return openAnnData(lib, mounted.path, label, mounted.release);
    },
  });
  if (input.kind === 'file') {
    await checkHdf5Source(input.source, input.source.name, options);
    return [opener(async () => input.source, input.source.name)];
  }
  const { directory } = input;
  const files = await folderInputs(directory);
  for (const f of files) await checkHdf5Source(await directory.open(f.path), f.label, options);
  return files.map((f) => opener(() => directory.open(f.path), f.label));
}

/** `.h5ad` (or a folder of them) → an SCDL archive folder, as bionemo-scdl 0.1.3 converts (C10–C13). */
export const convertH5adToScdlArchive = {
  async convert(input: ConvertInput, output, options): Promise<ConvertReport> {
    if (output.kind !== 'directory') throw new TypeError('an SCDL archive is written to a directory sink');
    if (input.kind === 'stream') throw new TypeError('.h5ad is read from a file (HDF5 needs random access)');
    const settings = h5adOptions(options.values ?? {}, options);
    const label = input.kind === 'file' ? input.source.name : input.directory.name;
    const inputs = await conversionInputs(input, options).catch((error: unknown) => {
      throw asH5adError(error, label);
    });
    const result = await convertAnnData(
      inputs,
      scdlWriterFactory(output.sink, options.scratch),
      settings,
    ).catch((error: unknown) => {
      throw asH5adError(error, label);
    });
    return conversionReport(result);
  },
} satisfies Converter;

/** What a conversion reports: its warnings, and its counts and dtypes as details. */
export function conversionReport(result: ConversionResult): ConvertReport {
  return {
    warnings: result.warnings.map((message) => ({ code: 'Conversion', message, format: 'h5ad' })),
    details: {
      rows: result.rows,
      nnz: result.nnz,
      columns: result.numCols,
      dataDType: result.dataDType,
      rowPtrDType: result.rowPtrDType,
      colPtrDType: result.colPtrDType,
      inputs: result.inputs as unknown as JsonValue,
    },
  };
}
