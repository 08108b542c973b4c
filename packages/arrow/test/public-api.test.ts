import * as path from 'node:path';
import { publicApi } from '@binscope/testkit';
import { expect, it } from 'vitest';

// The runtime names each entry point exports: a change here is one every user sees.
it('exports exactly these names, entry by entry', async () => {
  expect(await publicApi(path.resolve(import.meta.dirname, '..'))).toEqual({
    '.': [
      'ARROW_MAGIC',
      'ArrowReader',
      'BatchBuilder',
      'DEFAULT_BATCH_BYTES',
      'DEFAULT_BATCH_ROWS',
      'JSON_EXTENSION',
      'SinkWriter',
      'arrowConverters',
      'arrowField',
      'arrowFileConverter',
      'arrowFormat',
      'arrowFormats',
      'arrowPlugin',
      'arrowStreamConverter',
      'arrowType',
      'arrowsFormat',
      'arrowsPlugin',
      'coreField',
      'coreSchema',
      'encodePng',
      'exportSchema',
      'recordsToArrowConverter',
      'recordsToArrowsConverter',
    ],
    './magic': [
      'ARROW_MAGIC',
      'arrowConverters',
      'arrowFormat',
      'arrowFormats',
      'arrowsFormat',
      'recordsToArrowConverter',
      'recordsToArrowsConverter',
    ],
  });
});
