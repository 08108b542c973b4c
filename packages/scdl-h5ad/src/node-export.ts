/**
 * Node-only: the SCDL → `.h5ad` export `/magic` declares (node build). h5wasm's Node build
 * reaches the host file system directly, so HDF5 writes the `.h5ad` into a temp file in the
 * conversion's scratch folder (beside the output) instead of wasm memory; the finished file is
 * then copied into the app's sink in 4 MiB steps. Memory holds one row batch of X and the
 * obs/var tables, whatever the archive's size.
 *
 * HDF5 runs on this thread, unlike the `.h5ad → SCDL` conversion's worker (h5-host.ts): that
 * worker guards against HDF5 looping on a corrupt input file, and here HDF5 only writes a file
 * it creates itself, one bounded call per block; the archive is read between those calls, so
 * aborts and signals are honoured between blocks.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Converter, Scratch } from '@binscope/core';
import { makeScratchDir } from '@binscope/core/node';
import { exportToSink } from './export.js';
import type { H5Lib } from './h5.js';
import { COPY_STEP, type H5Output } from './h5-output.js';
import { loadH5wasmNode } from './node.js';

/**
 * A temp file on disk for HDF5: a file of the conversion's scratch when the scratch keeps its
 * files on disk (core/node's fileScratch: they have a `path`), else one in a private temp folder.
 */
function diskOutput(lib: H5Lib, scratch: Scratch): H5Output {
  const file = scratch.file('output.h5ad');
  const onDisk = (file as { path?: unknown }).path;
  let target: string;
  let remove: () => void;
  if (typeof onDisk === 'string') {
    target = onDisk;
    remove = () => file.remove();
  } else {
    file.remove();
    const dir = makeScratchDir();
    target = path.join(dir.dir, 'output.h5ad');
    remove = dir.remove;
  }
  return {
    lib,
    path: target,
    async copyTo(sink, options) {
      const fd = fs.openSync(target, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        const buffer = Buffer.allocUnsafe(Math.min(COPY_STEP, Math.max(1, size)));
        for (let at = 0; at < size; ) {
          options?.signal?.throwIfAborted();
          const n = fs.readSync(fd, buffer, 0, Math.min(buffer.byteLength, size - at), at);
          if (n <= 0) throw new Error(`${target}: short read at ${at} of ${size}`);
          await sink.write(buffer.subarray(0, n));
          at += n;
        }
      } finally {
        fs.closeSync(fd);
      }
    },
    dispose() {
      try {
        remove();
      } catch {}
    },
  };
}

export const convertScdlToH5adNode: Converter = {
  convert: (input, output, options) =>
    exportToSink(input, output, options, async () => diskOutput(await loadH5wasmNode(), options.scratch)),
};
