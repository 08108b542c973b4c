import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { violations } from './a11y-check';
import { chromiumPresent, useSiteAndBrowser } from './browser';
import { distDir, pickFiles, vector, vectorsPresent } from './helpers';

// The README promises an accessible page: axe-core (WCAG 2 A and AA rules) finds nothing in
// every view a user reaches first, in both themes.

const ready = chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html'));

describe.skipIf(!ready)('accessibility (axe-core)', () => {
  const live = useSiteAndBrowser();

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`the start page, a file's structure and its data table: no violations (${colorScheme})`, async () => {
      const page = await live.browser.context.newPage();
      await page.emulateMedia({ colorScheme });
      await page.goto(live.site.url);
      await page.getByTestId('drop-zone').waitFor();
      expect(await violations(page), 'start page').toEqual([]);

      await pickFiles(page, [vector('scbf', 'basic', 'basic.scbf')]);
      await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
      await page.waitForSelector('.hexcols .b[data-offset="0"]:not(:empty)');
      expect(await violations(page), 'structure').toEqual([]);

      await page.getByRole('tab', { name: 'Data' }).click();
      await page.locator('table').first().waitFor();
      expect(await violations(page), 'data table').toEqual([]);
      await page.close();
    });

    it(`a broken file's marked tree and defect list: no violations (${colorScheme})`, async () => {
      const page = await live.browser.context.newPage();
      await page.emulateMedia({ colorScheme });
      await page.goto(live.site.url);
      await page.getByTestId('drop-zone').waitFor();
      await pickFiles(page, [vector('mldf', 'invalid', 'ptr_oob.mldf')]);
      await page
        .locator('[data-testid="tree-node"][aria-selected="true"] [data-testid="node-problem"]')
        .waitFor();
      await page.getByTestId('defects').waitFor();
      await page.waitForSelector('.hexcols .b.sel');
      expect(await violations(page), 'broken file').toEqual([]);
      await page.close();
    });
  }
});
