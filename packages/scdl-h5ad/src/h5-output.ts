import type { ByteSink, ReadOptions } from '@binscope/core';
import type { H5Lib } from './h5.js';

/**
 * Where HDF5 writes a new file, which needs random access (it goes back to its superblock and
 * object headers), before the finished file is streamed into the app's sink, which only
 * appends: a temp file on disk in Node (node-export.ts), wasm memory in a browser.
 */
export interface H5Output {
  lib: H5Lib;
  /** The file's path as h5wasm opens it. */
  path: string;
  /** The closed file's bytes into `sink`, in bounded steps. */
  copyTo(sink: ByteSink, options?: ReadOptions): Promise<void>;
  /** Removes the file (after copyTo, or after a failure). */
  dispose(): void;
}

/** The part of Emscripten's FS used here (h5wasm exposes it as Module.FS). */
interface EmscriptenFS {
  mkdir(path: string): void;
  rmdir(path: string): void;
  unlink(path: string): void;
  stat(path: string): { size: number };
  open(path: string, flags: string): unknown;
  read(stream: unknown, buffer: Uint8Array, offset: number, length: number, position: number): number;
  close(stream: unknown): void;
}

/** Bytes per step when a finished file is copied into the sink. */
export const COPY_STEP = 4 << 20;
let outputs = 0;

/**
 * A file in wasm memory (Emscripten's MEMFS): h5wasm's browser build has nowhere else to write
 * with random access, so the whole `.h5ad` is held in memory until it is copied out.
 */
export function memoryOutput(lib: H5Lib): H5Output {
  const fs = (lib.Module as unknown as { FS: EmscriptenFS }).FS;
  const dir = `/binscope-h5ad-out-${++outputs}`;
  const path = `${dir}/output.h5ad`;
  fs.mkdir(dir);
  return {
    lib,
    path,
    async copyTo(sink, options) {
      const size = fs.stat(path).size;
      const stream = fs.open(path, 'r');
      try {
        const buffer = new Uint8Array(Math.min(COPY_STEP, Math.max(1, size)));
        for (let at = 0; at < size; ) {
          options?.signal?.throwIfAborted();
          const n = fs.read(stream, buffer, 0, Math.min(buffer.byteLength, size - at), at);
          if (n <= 0) throw new Error(`${path}: short read at ${at} of ${size}`);
          await sink.write(buffer.subarray(0, n));
          at += n;
        }
      } finally {
        fs.close(stream);
      }
    },
    dispose() {
      try {
        fs.unlink(path);
      } catch {}
      try {
        fs.rmdir(dir);
      } catch {}
    },
  };
}
