import type { FormatInfo } from '@binscope/core';

/** TARIDX metadata for detection; importable without the parser. */
export const taridxFormat: FormatInfo = {
  specificationVersion: 2,
  id: 'taridx',
  title: 'TARIDX tar-shard index',
  kind: 'file',
  extensions: ['taridx'],
  mimeTypes: ['application/x-taridx'],
  // "TARIDX" NUL-padded to the 8-byte magic field.
  magic: [{ offset: 0, bytes: 'TARIDX\u0000\u0000' }],
};

/**
 * A plain tar shard: detected (the POSIX/GNU "ustar" magic at byte 257), read through a TARIDX
 * index of its folder, never on its own; `binscope index` makes one. A detection-only entry
 * of the format list (role container, no plugin).
 */
export const tarShardFormat: FormatInfo = {
  specificationVersion: 2,
  id: 'tar',
  title: 'tar shard',
  kind: 'file',
  role: 'container',
  extensions: ['tar'],
  mimeTypes: ['application/x-tar'],
  magic: [{ offset: 257, bytes: 'ustar' }],
};
