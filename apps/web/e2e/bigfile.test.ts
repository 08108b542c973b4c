import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import { offsetFileByte, writeOffsetFile } from './generated';
import { distDir, screenshot } from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && existsSync(join(distDir, 'index.html'));
const SIZE = 256 << 20;
/** Opening and browsing to the end reads a few 4 KiB chunks and the detection head: far below this. */
const MAX_TRANSFER = 2 << 20;
/** The page's JS heap stays near its empty size; the file's bytes never land there. */
const MAX_PAGE_HEAP = 64 << 20;

describe.skipIf(!ready)('a 256 MiB file by URL', () => {
  let site: StaticServer;
  let files: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-big-'));
    writeOffsetFile(join(dir, 'big.bin'), SIZE);
    site = await startStaticServer(distDir, { spa: true });
    files = await startStaticServer(dir, { cors: true });
    browser = await launchBrowser({ extraArgs: ['--enable-precise-memory-info'] });
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([site?.close(), files?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens and browses to its end with a bounded transfer and heap', async () => {
    const page = await browser.context.newPage();
    await page.goto(site.url);
    await page.getByTestId('drop-zone').waitFor();
    await page.getByTestId('url-input').fill(`${files.url}/big.bin`);
    await page.getByRole('button', { name: 'Open URL' }).click();
    await page.getByTestId('unknown-view').waitFor();
    await page.waitForSelector('.hexcols .b[data-offset="0"]:not(:empty)');
    const counter = page.getByTestId('bytes-counter');
    expect(Number(await counter.getAttribute('data-size'))).toBe(SIZE);

    // To the end with the scrubber, then to the middle.
    await page.getByTestId('hex-scrubber').focus();
    await page.keyboard.press('End');
    await page.waitForFunction((last) => {
      const cell = document.querySelector(`.hexcols .b[data-offset="${last}"]`);
      return !!cell && cell.textContent !== '··';
    }, SIZE - 1);
    const tail = await page.$$eval('.hexcols .b[data-offset]', (els) =>
      els.map((e) => [Number(e.getAttribute('data-offset')), Number.parseInt(e.textContent ?? '', 16)]),
    );
    for (const [offset, value] of tail) expect(value, `byte ${offset}`).toBe(offsetFileByte(offset));
    await page.getByLabel('Go to offset').fill(String(SIZE / 2));
    await page.getByLabel('Go to offset').press('Enter');
    await page.waitForFunction(
      (mid) => document.querySelector(`.hexcols .b[data-offset="${mid}"]`)?.textContent === '00',
      SIZE / 2,
    );

    const served = [...files.served.values()].reduce((a, b) => a + b, 0);
    const fetched = Number(await counter.getAttribute('data-read'));
    const heap = await page.evaluate(
      () => (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize,
    );
    console.info(
      `256 MiB by URL: server sent ${served} B, page counted ${fetched} B, page heap ${(heap / 2 ** 20).toFixed(1)} MiB`,
    );
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(MAX_TRANSFER);
    expect(fetched).toBeLessThan(MAX_TRANSFER);
    expect(heap).toBeGreaterThan(0);
    expect(heap).toBeLessThan(MAX_PAGE_HEAP);
    await screenshot(page, 'big-url-middle');
    await page.close();
  });
});
