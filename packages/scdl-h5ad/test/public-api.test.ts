import * as path from 'node:path';
import { publicApi } from '@binscope/testkit';
import { expect, it } from 'vitest';

// The runtime names each entry point exports. A change here is a change every user sees: it
// needs a changeset (and a major bump when a name goes away), so it must be deliberate.
it('exports exactly these names, entry by entry', async () => {
  expect(await publicApi(path.resolve(import.meta.dirname, '..'))).toEqual({
    '.': [
      'AnnDataFile',
      'DATA_DTYPES',
      'DEFAULT_NEIGHBOR_KEY',
      'HDF5_MAGIC',
      'castElements',
      'convertAnnData',
      'convertH5adFiles',
      'convertH5adFilesToMemory',
      'convertH5adToScdlArchive',
      'convertScdlToH5ad',
      'describeH5adFile',
      'h5adConverters',
      'h5adFormat',
      'h5adPlugin',
      'h5adToScdlConverter',
      'loadH5wasm',
      'memoryOutput',
      'openAnnData',
      'scdlToH5adConverter',
      'writeAnnData',
    ],
    './magic': ['HDF5_MAGIC', 'h5adConverters', 'h5adFormat', 'h5adToScdlConverter', 'scdlToH5adConverter'],
    './node': [
      'AnnDataFile',
      'DATA_DTYPES',
      'DEFAULT_NEIGHBOR_KEY',
      'HDF5_MAGIC',
      'castElements',
      'convertAnnData',
      'convertH5adFiles',
      'convertH5adFilesToMemory',
      'convertH5adToScdl',
      'convertH5adToScdlArchive',
      'convertScdlToH5ad',
      'describeH5ad',
      'describeH5adFile',
      'h5adConverters',
      'h5adFormat',
      'h5adPlugin',
      'h5adToScdlConverter',
      'listH5adInputs',
      'loadH5wasm',
      'loadH5wasmNode',
      'memoryOutput',
      'openAnnData',
      'openH5ad',
      'scdlToH5adConverter',
      'writeAnnData',
    ],
  });
});
