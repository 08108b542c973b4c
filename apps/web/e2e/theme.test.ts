import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumPresent, useSiteAndBrowser } from './browser';
import { distDir, pickFiles, screenshot, vector, vectorsPresent } from './helpers';

const ready = chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html'));

/** Relative luminance of the page's background, 0 (black) … 1 (white). */
const backgroundLuminance = (page: Page) =>
  page.evaluate(() => {
    const [r, g, b] = (getComputedStyle(document.documentElement).backgroundColor.match(/\d+/g) ?? [])
      .slice(0, 3)
      .map((c) => {
        const v = Number(c) / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  });

const theme = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme);

describe.skipIf(!ready)('dark mode', () => {
  const live = useSiteAndBrowser();

  it('follows prefers-color-scheme until the user picks', async () => {
    const page = await live.browser.context.newPage();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(live.site.url);
    await page.getByTestId('drop-zone').waitFor();
    expect(await theme(page)).toBe('dark');
    expect(await backgroundLuminance(page)).toBeLessThan(0.05);
    // The system switches while the page is open: the page follows.
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    expect(await backgroundLuminance(page)).toBeGreaterThan(0.8);
    await page.close();
  });

  it('the toggle switches the theme and is remembered over the system setting', async () => {
    const page = await live.browser.context.newPage();
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(live.site.url);
    const toggle = page.getByTestId('theme-toggle');
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await toggle.click();
    expect(await theme(page)).toBe('dark');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    expect(await backgroundLuminance(page)).toBeLessThan(0.05);

    await page.reload();
    await page.getByTestId('drop-zone').waitFor();
    expect(await theme(page)).toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await theme(page)).toBe('dark');

    await pickFiles(page, [vector('scbf', 'basic', 'basic.scbf')]);
    await page.waitForSelector('.hexcols .b[data-offset="0"]:not(:empty)');
    await page.locator('[data-testid="tree-node"]').nth(1).click();
    await screenshot(page, 'dark-scbf');

    await page.getByTestId('theme-toggle').click();
    expect(await theme(page)).toBe('light');
    await page.reload();
    // A local file the link already names comes back as a tab to reopen, else the empty page:
    // either way the page is up, and the theme is the one chosen.
    await page.locator('[data-testid="drop-zone"], [data-testid="reopen"]').first().waitFor();
    expect(await theme(page)).toBe('light');
    await page.close();
  });
});
