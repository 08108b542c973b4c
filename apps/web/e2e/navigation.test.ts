import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import { offsetFileByte, writeOffsetFile } from './generated';
import { distDir, pickFiles, screenshot } from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && existsSync(join(distDir, 'index.html'));
const SIZE = 48 << 20;

const firstRow = async (page: Page) => Number(await page.locator('.hex').getAttribute('data-first-row'));
const bytesPerRow = async (page: Page) =>
  Number(await page.locator('.hex').getAttribute('data-bytes-per-row'));

/**
 * The shown bytes, as [offset, value] pairs, once none is still loading: read in the same look
 * that found them loaded, so a later render (more rows, a scroll) cannot slip in between.
 */
async function shownBytes(page: Page): Promise<Array<[number, number]>> {
  const shown = await page.waitForFunction(() => {
    const cells = [...document.querySelectorAll('.hexcols .b[data-offset]')];
    if (cells.length === 0 || cells.some((c) => c.textContent === '··')) return null;
    return cells.map((e) => [
      Number(e.getAttribute('data-offset')),
      Number.parseInt(e.textContent ?? '', 16),
    ]);
  });
  return (await shown.jsonValue()) as Array<[number, number]>;
}

async function expectTrueBytes(page: Page): Promise<void> {
  const bytes = await shownBytes(page);
  for (const [offset, value] of bytes) expect(value, `byte at ${offset}`).toBe(offsetFileByte(offset));
}

describe.skipIf(!ready)('hex navigation in a big file', () => {
  let site: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-nav-'));
    file = join(dir, 'offsets.bin');
    writeOffsetFile(file, SIZE);
    site = await startStaticServer(distDir, { spa: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(): Promise<Page> {
    const page = await browser.context.newPage();
    await page.goto(site.url);
    await page.getByTestId('drop-zone').waitFor();
    await pickFiles(page, [file]);
    await page.getByTestId('unknown-view').waitFor();
    await shownBytes(page);
    return page;
  }

  it('the wheel moves a few rows per notch, whatever the file size', async () => {
    const page = await open();
    const perRow = await bytesPerRow(page);
    const box = (await page.locator('.hex-scroll').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let notch = 1; notch <= 3; notch++) {
      // Each notch is waited for on its own (a notch moves the view by rows, so the first alone
      // would pass a wait for "row ≥ 3"): the view read below is the one all three made.
      const before = await firstRow(page);
      await page.mouse.wheel(0, 100);
      await page.waitForFunction(
        (b) => Number(document.querySelector('.hex')?.getAttribute('data-first-row')) > b,
        before,
      );
    }
    await page.waitForTimeout(100);
    const moved = (await firstRow(page)) * perRow;
    // Three notches: a handful of rows each (the capped native scrollbar moved ~26 KiB each).
    expect(moved).toBeGreaterThanOrEqual(3 * perRow);
    expect(moved).toBeLessThanOrEqual(3 * 10 * perRow);
    await expectTrueBytes(page);
    await page.mouse.wheel(0, -1000);
    await page.waitForFunction(() => document.querySelector('.hex')?.getAttribute('data-first-row') === '0');
    await page.close();
  });

  it('the scrubber reaches every part of the file: middle by pointer, end and back by keyboard', async () => {
    const page = await open();
    const perRow = await bytesPerRow(page);
    const scrubber = page.getByTestId('hex-scrubber');
    const box = (await scrubber.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForFunction(
      () => Number(document.querySelector('.hex')?.getAttribute('data-first-row')) > 0,
    );
    const middle = (await firstRow(page)) * perRow;
    expect(Math.abs(middle - SIZE / 2)).toBeLessThan(SIZE * 0.05);
    await expectTrueBytes(page);

    await scrubber.focus();
    await page.keyboard.press('End');
    await page.locator(`.hexcols .b[data-offset="${SIZE - 1}"]`).waitFor();
    await expectTrueBytes(page);
    expect(Number(await scrubber.getAttribute('aria-valuenow'))).toBe(
      Number(await scrubber.getAttribute('aria-valuemax')),
    );
    await screenshot(page, 'hex-scrubbed-to-end');
    await page.keyboard.press('ArrowUp');
    const max = Number(await scrubber.getAttribute('aria-valuemax'));
    await page.waitForFunction(
      (m) => Number(document.querySelector('.hex')?.getAttribute('data-first-row')) === m - 1,
      max,
    );
    await page.keyboard.press('Home');
    await page.locator('.hexcols .b[data-offset="0"]').waitFor();
    await page.close();
  });
});
