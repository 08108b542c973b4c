/**
 * What Node resolves `@binscope/scdl-h5ad/magic` to (the "node" export condition): the same
 * declarations, the conversion loading its worker-thread build (node-converter.ts). Browsers
 * resolve magic.ts, whose converter needs no Node built-in.
 */
import type { ConverterInfo } from '@binscope/core';
import { h5adToScdlConverter as declared } from './magic.js';

export { HDF5_MAGIC, h5adFormat } from './magic.js';

export const h5adToScdlConverter: ConverterInfo = {
  ...declared,
  load: () => import('./node-converter.js').then((m) => m.convertH5adToScdlArchiveNode),
};

/** Every conversion this package provides, for the app's converter list. */
export const h5adConverters: readonly ConverterInfo[] = [h5adToScdlConverter];
