import type { ConverterInfo } from '@binscope/core';

/**
 * The conversion this package provides, as data (`@binscope/taridx-mldf/magic`): apps list it
 * and offer its options without importing the converter (libjpeg-turbo in WebAssembly, the
 * MLDF writer); `load` brings it in on first use.
 */

/**
 * A TARIDX index with its shards (the folder the index sits in), or a folder of shards with
 * `fold` (indexed in memory first, reading only tar headers) → one MLDF file: a `__key__`
 * field, then one field per member extension (.jpg/.png decoded to IMAGE_RAW, pixel-identical
 * to Pillow, unless `keepEncoded`).
 */
export const taridxToMldfConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'taridx-to-mldf',
  from: 'taridx',
  to: 'mldf',
  title: 'TARIDX shards → MLDF',
  output: 'file',
  extensions: ['mldf'],
  options: [
    {
      name: 'fold',
      type: 'string',
      valueName: 'NAME',
      description: 'for a folder of shards (no index): convert the shards NAME_*.tar',
    },
    {
      name: 'keepEncoded',
      type: 'boolean',
      description: 'store .jpg/.png members as BYTES instead of decoding them to IMAGE_RAW',
    },
    {
      name: 'checksum',
      type: 'boolean',
      description: 'write FLAG_CHECKSUMMED: CRC-32s of the data and metadata regions',
    },
  ],
  load: () => import('./converter.js').then((m) => m.convertTaridxShardsToMldf),
};

/** Every conversion this package provides, for the app's converter list. */
export const taridxMldfConverters: readonly ConverterInfo[] = [taridxToMldfConverter];
