import type { FormatInfo } from '@binscope/core';

/** `\x89MLDF\r\n\x1a\n`: 9 bytes (CONFORMANCE M1), so the 64-byte header starts at byte 9. */
export const MLDF_MAGIC: Uint8Array = Uint8Array.of(0x89, 0x4d, 0x4c, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a);

export const mldfFormat: FormatInfo = {
  specificationVersion: 2,
  id: 'mldf',
  title: 'MLDF training-set file',
  kind: 'file',
  extensions: ['mldf'],
  mimeTypes: ['application/x-mldf'],
  magic: [{ offset: 0, bytes: MLDF_MAGIC }],
};
