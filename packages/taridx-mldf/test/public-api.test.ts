import * as path from 'node:path';
import { publicApi } from '@binscope/testkit';
import { expect, it } from 'vitest';

// The runtime names each entry point exports. A change here is a change every user sees: it
// needs a changeset (and a major bump when a name goes away), so it must be deliberate.
const BROWSER = [
  'KEY_FIELD',
  'convertTaridxToMldf',
  'decodeImage',
  'kindOf',
  'memberValue',
  'npyLayout',
  'planField',
  'recordsToMldfConverter',
  'taridxMldfConverters',
  'taridxToMldfConverter',
];

it('exports exactly these names, entry by entry', async () => {
  expect(await publicApi(path.resolve(import.meta.dirname, '..'))).toEqual({
    '.': BROWSER,
    './magic': ['recordsToMldfConverter', 'taridxMldfConverters', 'taridxToMldfConverter'],
    './node': [...BROWSER, 'convertTaridxToMldfFile'].sort(),
  });
});
