import type { LazyFormat } from '@binscope/core';

/**
 * MLDF as data, for detection and for the app's format list: this entry
 * (`@binscope/mldf/magic`) imports no parser code; `load` brings it in on first use.
 */

/** `\x89MLDF\r\n\x1a\n`: 9 bytes (CONFORMANCE M1), so the 64-byte header starts at byte 9. */
export const MLDF_MAGIC: Uint8Array = Uint8Array.of(0x89, 0x4d, 0x4c, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a);

/** The MLDF entry of the format list. */
export const mldfFormat: LazyFormat = {
  specificationVersion: 2,
  id: 'mldf',
  title: 'MLDF training-set file',
  kind: 'file',
  role: 'format',
  extensions: ['mldf'],
  mimeTypes: ['application/x-mldf'],
  magic: [{ offset: 0, bytes: MLDF_MAGIC }],
  load: () => import('./plugin.js').then((m) => m.mldfPlugin),
};
