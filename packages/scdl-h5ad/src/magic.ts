import { type ConverterInfo, DETECTION_SCORE, type LazyFormat, type Target } from '@binscope/core';

/**
 * AnnData `.h5ad` as data, for detection and the app's format and converter lists: this entry
 * (`@binscope/scdl-h5ad/magic`) imports no parser code (h5wasm above all); `load` brings in
 * a read-only plugin, the converter's `load` the conversion.
 */

/** HDF5's format signature, `\x89HDF\r\n\x1a\n`. */
export const HDF5_MAGIC = '\x89HDF\r\n\x1a\n';

/** Where HDF5 looks for its superblock after offset 0: a user block may push it to 512, 1024, … */
const USER_BLOCK_OFFSETS = [512, 1024, 2048, 4096, 8192];

/**
 * `.h5ad`: detected (HDF5 signature, `.h5ad` extension) to be converted into SCDL; its `load`
 * gives a read-only plugin (summary, the HDF5 tree, X's rows and the obs/var tables, and
 * validate reporting what the converter would refuse) so apps can show one before converting.
 */
export const h5adFormat: LazyFormat = {
  specificationVersion: 2,
  id: 'h5ad',
  title: 'AnnData (.h5ad, HDF5)',
  kind: 'file',
  role: 'convertible',
  extensions: ['h5ad'],
  mimeTypes: ['application/x-hdf5'],
  magic: [{ offset: 0, bytes: HDF5_MAGIC }],
  /** The signature after a user block (HDF5 allows 512, 1024, 2048, … bytes before it). */
  async detect(target: Target, _head: Uint8Array, options): Promise<number> {
    if (target.kind !== 'file') return 0;
    const { source } = target;
    for (const at of USER_BLOCK_OFFSETS) {
      if (at + 8 > source.size) break;
      const bytes = await source.read(at, 8, { signal: options?.signal });
      if (bytes.byteLength === 8 && [...bytes].every((b, i) => b === HDF5_MAGIC.charCodeAt(i)))
        return DETECTION_SCORE.magic;
    }
    return 0;
  },
  load: () => import('./plugin.js').then((m) => m.h5adPlugin),
};

/**
 * `.h5ad` (or a folder of them, one archive: C12) → an SCDL archive folder, as bionemo-scdl
 * 0.1.3 converts it (C10–C13). The options are the CLI's `convert` flags.
 */
export const h5adToScdlConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'h5ad-to-scdl',
  from: 'h5ad',
  to: 'scdl',
  title: '.h5ad → SCDL',
  output: 'directory',
  extensions: ['scdl'],
  marker: 'header.sch',
  options: [
    {
      name: 'dataDtype',
      type: 'string',
      choices: ['float32', 'float16', 'float64', 'uint8', 'uint16', 'uint32', 'uint64'],
      valueName: 'DTYPE',
      description: 'dtype of the data array (default float32)',
    },
    { name: 'useX', type: 'boolean', description: 'read X instead of raw.X' },
    {
      name: 'lossyCast',
      type: 'boolean',
      description:
        "cast values the data dtype cannot hold (NaN, ±inf, fractions, out of range) one by one as numpy's scalar cast does on x86-64, instead of refusing them",
    },
    {
      name: 'neighbors',
      type: 'string',
      valueName: 'KEY',
      description: 'write neighbor files from obsp[KEY]',
    },
  ],
  load: () => import('./converter.js').then((m) => m.convertH5adToScdlArchive),
};

/**
 * An SCDL archive → AnnData `.h5ad`: X as csr_matrix in the archive's dtype, obs and var from
 * its feature indices, in anndata's on-disk layout (scanpy and anndata.read_h5ad open it).
 */
export const scdlToH5adConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'scdl-to-h5ad',
  from: 'scdl',
  to: 'h5ad',
  title: 'SCDL → .h5ad',
  output: 'file',
  extensions: ['h5ad'],
  load: () => import('./export.js').then((m) => m.convertScdlToH5ad),
};

/** Every conversion this package provides, for the app's converter list. */
export const h5adConverters: readonly ConverterInfo[] = [h5adToScdlConverter, scdlToH5adConverter];
