import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumPresent, useSiteAndBrowser } from './browser';
import { detectedFormat, distDir, screenshot, treeNodes, waitForValidation } from './helpers';

const ready = chromiumPresent && existsSync(join(distDir, 'index.html'));
// In the order of the format list (@binscope/formats), which the page keeps.
const FORMATS = ['scbf', 'udf', 'mldf', 'taridx', 'scdl'];

describe.skipIf(!ready)('sample files written at build time', () => {
  const live = useSiteAndBrowser();

  it('are offered on the empty page, one per format, and each opens valid with its tree', async () => {
    const page = await live.browser.context.newPage();
    await page.goto(live.site.url);
    const buttons = page.getByTestId('samples').getByRole('button');
    await buttons.first().waitFor();
    expect(await buttons.evaluateAll((els) => els.map((e) => e.getAttribute('data-format')))).toEqual(
      FORMATS,
    );
    await screenshot(page, 'samples-offered');

    for (const format of FORMATS) {
      await page.goto(live.site.url);
      await page.getByTestId('samples').locator(`button[data-format="${format}"]`).click();
      expect(await detectedFormat(page)).toBe(format);
      // The root shows with the file; its children come after, from the worker: wait for one.
      await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
      expect((await treeNodes(page)).length).toBeGreaterThan(1);
      // A sample opened by URL waits for a click to validate; picked files validate at once.
      const validate = page.getByRole('button', { name: 'Validate' });
      if (await validate.isVisible()) await validate.click();
      const report = await waitForValidation(page);
      expect(report.errors, format).toEqual([]);
      expect(report.valid, format).toBe(true);
    }
    await page.close();
  });
});
