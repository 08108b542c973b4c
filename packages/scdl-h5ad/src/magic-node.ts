/**
 * What Node resolves `@binscope/scdl-h5ad/magic` to (the "node" export condition): the same
 * declarations, the conversions loading their Node builds (node-converter.ts, node-export.ts).
 * Browsers resolve magic.ts, whose converters need no Node built-in.
 */
import type { ConverterInfo } from '@binscope/core';
import { h5adToScdlConverter as declared, scdlToH5adConverter as declaredExport } from './magic.js';

export { HDF5_MAGIC, h5adFormat } from './magic.js';

export const h5adToScdlConverter: ConverterInfo = {
  ...declared,
  load: () => import('./node-converter.js').then((m) => m.convertH5adToScdlArchiveNode),
};

/** SCDL → `.h5ad`, HDF5 writing into a temp file on disk rather than wasm memory (node-export.ts). */
export const scdlToH5adConverter: ConverterInfo = {
  ...declaredExport,
  load: () => import('./node-export.js').then((m) => m.convertScdlToH5adNode),
};

/** Every conversion this package provides, for the app's converter list. */
export const h5adConverters: readonly ConverterInfo[] = [h5adToScdlConverter, scdlToH5adConverter];
