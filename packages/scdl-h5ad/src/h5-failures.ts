import { FormatError, isBinscopeError } from '@binscope/core';
import { condenseHdf5Error } from './h5.js';

/**
 * HDF5 (h5wasm) failures on a corrupt file, as one-line FormatErrors. Without this a
 * corrupt `.h5ad` surfaced as a multi-KB HDF5-DIAG stack or a raw wasm `abort()`.
 */
export function asH5adError(error: unknown, file: string): unknown {
  if (isBinscopeError(error, 'FormatError') || isBinscopeError(error, 'SourceError')) return error;
  const text = error instanceof Error ? error.message : String(error);
  const aborted = /^Aborted\(/.test(text) || error instanceof WebAssembly.RuntimeError;
  if (!aborted && !/HDF5-DIAG|HDF5 error|H5[A-Z]\w*\(\)/.test(text)) return error;
  const detail = aborted ? 'the HDF5 library aborted on a corrupt structure' : condenseHdf5Error(error);
  const code = /truncat|eof|addr overflow/i.test(detail) ? 'Truncated' : 'InvalidValue';
  return new FormatError(code, `HDF5 read failed (${detail})`, { file, format: 'h5ad' }, { cause: error });
}

/**
 * Runs `load` (h5wasm's start-up) with console.error filtered: Emscripten binds its error
 * printer once, at start-up, and prints an abort or a bad-UTF-8 warning on stderr besides
 * throwing. The error that follows says it once, in one line; the stray lines are dropped.
 */
export async function withQuietWasmConsole<T>(load: () => Promise<T>): Promise<T> {
  const original = console.error;
  console.error = (...args: unknown[]) => {
    const first = String(args[0] ?? '');
    if (/^Aborted\(|^warning: Invalid UTF-8/.test(first)) return;
    original.apply(console, args);
  };
  try {
    return await load();
  } finally {
    console.error = original;
  }
}
