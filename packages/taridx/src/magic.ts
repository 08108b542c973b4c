import type { FormatInfo } from '@binscope/core';

/** TARIDX metadata for detection; importable without the parser. */
export const taridxFormat: FormatInfo = {
  specificationVersion: 'v1',
  id: 'taridx',
  title: 'TARIDX tar-shard index',
  kind: 'file',
  extensions: ['taridx'],
  mimeTypes: ['application/x-taridx'],
  // "TARIDX" NUL-padded to the 8-byte magic field.
  magic: [{ offset: 0, bytes: 'TARIDX\u0000\u0000' }],
};
