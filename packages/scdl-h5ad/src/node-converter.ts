/**
 * Node-only: the `.h5ad → SCDL` conversion `/magic` declares, with HDF5 in a worker thread
 * (h5-host.ts) when its inputs are local files. HDF5 runs synchronously and a corrupt file can
 * hold it forever (a global heap record of size 0); in a worker it holds only that thread, so
 * the thread that owns the output still honours SIGTERM and aborts, and a stall is a
 * FormatError. Node resolves `@binscope/scdl-h5ad/magic` here (the "node" export condition);
 * browsers get magic.ts, whose converter runs h5wasm's wasm build in place. Inputs that are
 * not local files (remote, spooled) convert on this thread, as there.
 */
import * as path from 'node:path';
import type { ConvertInput, ConvertOptions, ConvertReport, Converter, Target } from '@binscope/core';
import { NodeDirectory, NodeFileSource } from '@binscope/core/node';
import { checkHdf5Source } from './mount.js';
import { asH5adError } from './h5-failures.js';
import { runInWorker } from './h5-host.js';
import { convertH5adToScdlArchive, conversionReport, folderInputs, h5adOptions } from './converter.js';
import { scdlWriterFactory } from './writer.js';

/**
 * The local files of a target, labelled as the in-thread converter labels them and checked to
 * be HDF5; undefined when the target is not local files (the worker reads by path).
 */
async function localFiles(
  input: Target,
  options: ConvertOptions,
): Promise<{ path: string; label: string }[] | undefined> {
  if (input.kind === 'file') {
    if (!(input.source instanceof NodeFileSource)) return undefined;
    await checkHdf5Source(input.source, input.source.name, options);
    return [{ path: input.source.path, label: input.source.name }];
  }
  const { directory } = input;
  if (!(directory instanceof NodeDirectory)) return undefined;
  const files = await folderInputs(directory);
  for (const f of files) await checkHdf5Source(await directory.open(f.path), f.label, options);
  return files.map((f) => ({ path: path.join(directory.root, f.path), label: f.label }));
}

export const convertH5adToScdlArchiveNode: Converter = {
  async convert(input: ConvertInput, output, options): Promise<ConvertReport> {
    if (output.kind !== 'directory' || input.kind === 'stream')
      return convertH5adToScdlArchive.convert(input, output, options);
    const label = input.kind === 'file' ? input.source.name : input.directory.name;
    const files = await localFiles(input, options).catch((error: unknown) => {
      throw asH5adError(error, label);
    });
    if (!files) return convertH5adToScdlArchive.convert(input, output, options);
    const { signal, onProgress, ...settings } = h5adOptions(options.values ?? {}, options);
    const createWriter = scdlWriterFactory(output.sink, options.scratch);
    const result = await runInWorker(
      { op: 'convert', files, options: settings },
      { signal, onProgress, label, createWriter: async (writeOptions) => createWriter(writeOptions) },
    );
    return conversionReport(result);
  },
};
