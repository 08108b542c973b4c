import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { detectedFormat, dropFiles, pickFiles, pickFolder, vector } from './helpers';

/** One vector per format, opened the way a user would, with what its data tab shows first. */
export interface FormatCase {
  format: string;
  open(page: Page): Promise<void>;
  /** A test id the data tab renders once it has data. */
  dataReady: string;
}

export const formatCases: FormatCase[] = [
  {
    format: 'scbf',
    open: (page) => pickFiles(page, [vector('scbf', 'basic', 'basic.scbf')]),
    dataReady: 'records-table',
  },
  {
    format: 'udf',
    open: (page) => pickFiles(page, [vector('udf', 'nested_text_json', 'nested_text_json.udf')]),
    dataReady: 'record-card',
  },
  {
    format: 'mldf',
    open: (page) => dropFiles(page, [vector('mldf', 'ndarray_image', 'ndarray_image.mldf')]),
    dataReady: 'record-card',
  },
  {
    format: 'taridx',
    open: (page) => {
      const dir = vector('taridx', 'ustar_flat_2shards');
      return pickFiles(
        page,
        readdirSync(dir)
          .filter((f) => f.endsWith('.tar') || f.endsWith('.taridx'))
          .map((f) => join(dir, f)),
      );
    },
    dataReady: 'record-card',
  },
  {
    format: 'scdl',
    open: (page) => pickFolder(page, vector('scdl', 'basic_float32_raw', 'archive')),
    dataReady: 'record-card',
  },
];

/** Opens a case and waits for its tree and the first hex bytes. */
export async function openCase(page: Page, c: FormatCase): Promise<void> {
  await c.open(page);
  if ((await detectedFormat(page)) !== c.format) throw new Error(`expected ${c.format}`);
  await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
  await page.waitForFunction(() => {
    const cell = document.querySelector('.hexcols .b[data-offset]');
    return !!cell && cell.textContent !== '··';
  });
}
