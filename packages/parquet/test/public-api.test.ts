import * as path from 'node:path';
import { publicApi } from '@binscope/testkit';
import { expect, it } from 'vitest';

// The runtime names each entry point exports. A change here is a change every user sees: it
// needs a changeset (and a major bump when a name goes away), so it must be deliberate.
it('exports exactly these names, entry by entry', async () => {
  expect(await publicApi(path.resolve(import.meta.dirname, '..'))).toEqual({
    '.': [
      'ParquetReader',
      'ROW_GROUP_BYTES',
      'ROW_GROUP_ROWS',
      'openParquet',
      'parquetConverters',
      'parquetExport',
      'parquetFolderExport',
      'parquetFormat',
      'parquetPlugin',
      'recordsToParquetConverter',
      'tablesToParquetConverter',
      'validateParquet',
      'writeParquet',
    ],
    './magic': [
      'parquetConverters',
      'parquetFormat',
      'recordsToParquetConverter',
      'tablesToParquetConverter',
    ],
  });
});
