import type { ConverterInfo, LazyFormat } from '@binscope/core';

/**
 * TARIDX as data, for detection and for the app's format and converter lists: this entry
 * (`@binscope/taridx/magic`) imports no parser code; `load` brings it in on first use.
 */

/** The TARIDX entry of the format list. */
export const taridxFormat: LazyFormat = {
  specificationVersion: 2,
  id: 'taridx',
  title: 'TARIDX tar-shard index',
  kind: 'file',
  role: 'format',
  extensions: ['taridx'],
  mimeTypes: ['application/x-taridx'],
  // "TARIDX" NUL-padded to the 8-byte magic field.
  magic: [{ offset: 0, bytes: 'TARIDX\u0000\u0000' }],
  load: () => import('./plugin.js').then((m) => m.taridxPlugin),
};

/**
 * A plain tar shard: detected (the POSIX/GNU "ustar" magic at byte 257), read through a TARIDX
 * index of its folder, never on its own; `binscope index` makes one. A detection-only entry
 * of the format list (role container, no plugin).
 */
export const tarShardFormat: LazyFormat = {
  specificationVersion: 2,
  id: 'tar',
  title: 'tar shard',
  kind: 'file',
  role: 'container',
  extensions: ['tar'],
  mimeTypes: ['application/x-tar'],
  magic: [{ offset: 257, bytes: 'ustar' }],
  howToRead: 'binscope reads shards through their index: binscope index DIR --fold NAME, then use the .taridx',
};

/**
 * Tar shards → a TARIDX index: the `index` verb. Input: a folder with `fold` (its
 * `<fold>_*.tar`), one shard file, or a shard streamed on standard input with `shardName`;
 * with `merge`, partial indexes instead (every `*.taridx` of a folder target: the app lists
 * the files the user named). Reads only the 512-byte tar headers.
 */
export const tarToTaridxConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'tar-to-taridx',
  from: 'tar',
  to: 'taridx',
  title: 'tar shards → TARIDX index',
  output: 'file',
  extensions: ['taridx'],
  verb: 'index',
  defaultOutput: '{input}/{fold}.taridx',
  options: [
    {
      name: 'fold',
      type: 'string',
      valueName: 'NAME',
      description: 'the fold to index: the shards NAME_*.tar of the folder (required for a folder)',
    },
    {
      name: 'shardRange',
      type: 'string',
      valueName: 'FIRST-LAST',
      description:
        'index only the shards with these fids (0-99: the fold’s first 100) into a partial index, for --merge',
    },
    {
      name: 'merge',
      type: 'boolean',
      description:
        'the inputs are partial indexes (--shard-range) covering every shard of one fold: merge them into its index',
    },
    {
      name: 'shardName',
      type: 'string',
      valueName: 'NAME_NNNN.tar',
      description: 'the name of a shard streamed on standard input (the index finds it by that name)',
    },
  ],
  load: () => import('./convert.js').then((m) => m.convertTarToTaridx),
};

/** Every conversion this package provides, for the app's converter list. */
export const taridxConverters: readonly ConverterInfo[] = [tarToTaridxConverter];
