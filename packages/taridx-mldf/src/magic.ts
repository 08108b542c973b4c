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

/**
 * The records of any format a plugin reads → one MLDF file: a Hugging Face-style table of image
 * bytes, labels and text becomes a training set (ints → INT, floats → FLOAT, strings →
 * TEXT_RAW, image bytes → IMAGE_RAW decoded as for tar members, fixed-length lists of numbers →
 * NDARRAY). It lives here, not in @binscope/mldf, because the image decoders (libjpeg-turbo in
 * WebAssembly, fast-png) do: a reader of MLDF files never carries them.
 */
export const recordsToMldfConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'records-to-mldf',
  // ANY_FORMAT, spelled out: importing core's value would make /magic pull in core.
  from: '*',
  to: 'mldf',
  title: 'records → MLDF',
  output: 'file',
  extensions: ['mldf'],
  options: [
    {
      name: 'images',
      type: 'string',
      choices: ['raw', 'bytes'],
      description: 'image bytes (image/* or PNG/JPEG) decoded to IMAGE_RAW (raw, default) or kept as BYTES',
    },
    {
      name: 'table',
      type: 'string',
      valueName: 'NAME',
      description: "the input's table to convert (default: its records, or its primary table)",
    },
    {
      name: 'checksum',
      type: 'boolean',
      description: 'write FLAG_CHECKSUMMED: CRC-32s of the data and metadata regions',
    },
  ],
  load: () => import('./records-convert.js').then((m) => m.convertRecordsToMldf),
};

/** Every conversion this package provides, for the app's converter list. */
export const taridxMldfConverters: readonly ConverterInfo[] = [taridxToMldfConverter, recordsToMldfConverter];
