import * as path from 'node:path';
import { publicApi } from '@binscope/testkit';
import { expect, it } from 'vitest';

// The runtime names each entry point exports. A change here is a change every user sees: it
// needs a changeset (and a major bump when a name goes away), so it must be deliberate.
it('exports exactly these names, entry by entry', async () => {
  expect(await publicApi(path.resolve(import.meta.dirname, '..'))).toEqual({
    '.': [
      'FeatureIndex',
      'PACKAGE_VERSION',
      'SCHEMA_VERSION',
      'ScdlReader',
      'ScdlWriter',
      'arrayFile',
      'denseToCsr',
      'inspectScdl',
      'openScdl',
      'parseHeader',
      'scdlFormat',
      'scdlHeaderFile',
      'scdlNearMiss',
      'scdlPlugin',
      'serializeHeader',
      'smallestUnsignedDType',
      'validateScdl',
      'writeScdl',
      'writeScdlToMemory',
    ],
    './magic': ['scdlFormat', 'scdlHeaderFile', 'scdlNearMiss'],
    './node': [
      'FeatureIndex',
      'PACKAGE_VERSION',
      'SCHEMA_VERSION',
      'ScdlReader',
      'ScdlWriter',
      'arrayFile',
      'createScdlArchiveWriter',
      'denseToCsr',
      'inspectScdl',
      'openScdl',
      'openScdlArchive',
      'parseHeader',
      'scdlFormat',
      'scdlHeaderFile',
      'scdlNearMiss',
      'scdlPlugin',
      'serializeHeader',
      'smallestUnsignedDType',
      'validateScdl',
      'writeScdl',
      'writeScdlArchive',
      'writeScdlToMemory',
    ],
  });
});
