import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import { detectedFormat, distDir, vectorsDir, vectorsPresent } from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html'));
const UDF = '/udf/nested_text_json/nested_text_json.udf';

describe.skipIf(!ready)('links, remote failures and page basics', () => {
  let site: StaticServer;
  let files: StaticServer;
  let noCors: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    site = await startStaticServer(distDir, { spa: true });
    files = await startStaticServer(vectorsDir, { cors: true });
    noCors = await startStaticServer(vectorsDir);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([site?.close(), files?.close(), noCors?.close()]);
  });

  async function openUrl(page: Page, url: string): Promise<void> {
    await page.goto(site.url);
    await page.getByTestId('drop-zone').waitFor();
    await page.getByTestId('url-input').fill(url);
    await page.getByRole('button', { name: 'Open URL' }).click();
  }

  it('the address bar holds the URL and the byte shown; the link reopens that view', async () => {
    const page = await browser.context.newPage();
    const url = `${files.url}${UDF}`;
    await openUrl(page, url);
    expect(await detectedFormat(page)).toBe('udf');
    await page.waitForFunction((u) => new URLSearchParams(location.search).get('url') === u, url);
    await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
    await page.getByLabel('Go to offset').fill('0x40');
    await page.getByLabel('Go to offset').press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('at') === '0x40');
    const link = page.url();
    await page.close();

    const again = await browser.context.newPage();
    await again.goto(link);
    expect(await detectedFormat(again)).toBe('udf');
    await again.waitForFunction(
      () => document.querySelector('.hexcols .b.cur')?.getAttribute('data-offset') === '64',
    );
    // The byte's owner is selected in the tree, as a click on it would.
    await again.waitForFunction(() => {
      const el = document.querySelector('[data-testid="tree-node"][aria-selected="true"]');
      if (!el) return false;
      const start = Number(el.getAttribute('data-offset'));
      return start <= 64 && 64 < start + Number(el.getAttribute('data-length'));
    });
    // Summaries show values, not JSON.
    const summary = (await again.locator('.props').textContent()) ?? '';
    expect(summary).not.toMatch(/\{"|"\s*:/);
    await again.close();
  });

  it('a server without CORS headers gets a message that says CORS and what to send', async () => {
    const page = await browser.context.newPage();
    await openUrl(page, `${noCors.url}${UDF}`);
    const failure = page.getByTestId('failure');
    await failure.waitFor();
    const text = (await failure.textContent()) ?? '';
    expect(text).toContain('CORS');
    expect(text).toContain('Access-Control-Allow-Origin');
    expect(text).toContain('Access-Control-Expose-Headers: Content-Range');
    await page.close();
  });

  it('has a favicon', async () => {
    const page = await browser.context.newPage();
    await page.goto(site.url);
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(href).toBeTruthy();
    const response = await page.request.get(new URL(href!, site.url).href);
    expect(response.status()).toBe(200);
    expect(await response.text()).toContain('<svg');
    await page.close();
  });
});
