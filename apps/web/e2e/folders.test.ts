import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import { detectedFormat, distDir, pickFolder, screenshot, vector, vectorsPresent } from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html'));

/** Files of a picked folder laid out in sub-folders, the main file in one of them. */
const layout: Array<[string, string[]]> = [
  ['basic/basic.scbf', ['scbf', 'basic', 'basic.scbf']],
  ['unicode_empty/unicode_empty.scbf', ['scbf', 'unicode_empty', 'unicode_empty.scbf']],
  ['deeper/still/nested_text_json.udf', ['udf', 'nested_text_json', 'nested_text_json.udf']],
  ['basic/basic.csv', ['scbf', 'basic', 'basic.csv']],
];

/** The first row of hex cells on screen, as text. */
const firstBytes = (page: Page, n: number) =>
  page.$$eval(
    '.hexcols .b[data-offset]',
    (els, count) =>
      els
        .slice(0, count)
        .map((e) => e.textContent)
        .join(''),
    n,
  );

describe.skipIf(!ready)('the files panel of a folder with sub-folders', () => {
  let site: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let root: string;
  let folder: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'binscope-e2e-folder-'));
    folder = join(root, 'picked');
    for (const [path, source] of layout) {
      mkdirSync(join(folder, path, '..'), { recursive: true });
      copyFileSync(vector(...source), join(folder, path));
    }
    site = await startStaticServer(distDir, { spa: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('shows each file’s own bytes, and a byte of a file outside the tree selects no node of it', async () => {
    const page = await browser.context.newPage();
    await page.goto(site.url);
    await page.getByTestId('drop-zone').waitFor();
    await pickFolder(page, folder);
    expect(await detectedFormat(page)).toBe('scbf');
    await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
    const main = (await page.getByTestId('summary-file').textContent()) ?? '';

    for (const [path] of layout) {
      await page.locator(`[data-testid="file-entry"][data-path="${path}"]`).click();
      await page.waitForFunction(
        (p) =>
          document
            .querySelector('[data-testid="file-entry"][aria-current="true"]')
            ?.getAttribute('data-path') === p,
        path,
      );
      const expected = readFileSync(join(folder, path)).subarray(0, 8).toString('hex');
      await page.waitForFunction(
        (hex) =>
          [...document.querySelectorAll('.hexcols .b[data-offset]')]
            .slice(0, 8)
            .map((e) => e.textContent)
            .join('') === hex,
        expected,
      );
      expect(await firstBytes(page, 8)).toBe(expected);
      expect(await page.locator('.hex-file').textContent()).toBe(path);
      expect(await page.getByTestId('failure').count(), `no error for ${path}`).toBe(0);
      if (path === main) continue;

      // A byte of a file the tree does not describe selects nothing in the tree.
      await page.locator('.hexcols .b[data-offset="2"]').click();
      await page.waitForFunction(
        () => document.querySelector('.hexcols .b.cur')?.getAttribute('data-offset') === '2',
      );
      await page.waitForTimeout(600);
      expect(await page.locator('[data-testid="tree-node"][aria-selected="true"]').count()).toBe(0);
    }

    // Back on the main file, a byte click selects its owner again.
    await page.locator(`[data-testid="file-entry"][data-path="${main}"]`).click();
    await page.locator('.hexcols .b[data-offset="2"]').click();
    await page.locator('[data-testid="tree-node"][aria-selected="true"]').first().waitFor();
    await screenshot(page, 'nested-folder');
    await page.close();
  });
});
