import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import { detectedFormat, distDir, screenshot, treeNodes, waitForValidation } from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && existsSync(join(distDir, 'index.html'));
const FORMATS = ['scbf', 'mldf', 'udf', 'taridx', 'scdl'];

describe.skipIf(!ready)('sample files written at build time', () => {
  let site: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    site = await startStaticServer(distDir, { spa: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('are offered on the empty page, one per format, and each opens valid with its tree', async () => {
    const page = await browser.context.newPage();
    await page.goto(site.url);
    const buttons = page.getByTestId('samples').getByRole('button');
    await buttons.first().waitFor();
    expect(await buttons.evaluateAll((els) => els.map((e) => e.getAttribute('data-format')))).toEqual(
      FORMATS,
    );
    await screenshot(page, 'samples-offered');

    for (const format of FORMATS) {
      await page.goto(site.url);
      await page.getByTestId('samples').locator(`button[data-format="${format}"]`).click();
      expect(await detectedFormat(page)).toBe(format);
      await page.locator('[data-testid="tree-node"]').first().waitFor();
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
