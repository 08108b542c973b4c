import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import { formatCases, openCase } from './formats';
import { distDir, resultsDir, vectorsPresent } from './helpers';
import { measureLayout } from './layout';
import { type StaticServer, startStaticServer } from './server';
import { existsSync } from 'node:fs';

const ready = chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html'));

/** 200 % zoom on a 1280×800 screen is a 640×400 CSS viewport at two device pixels per px. */
const viewports = [
  { name: '1280x800', width: 1280, height: 800, scale: 1, shots: true, rowBytes: [16] },
  { name: '1024x768', width: 1024, height: 768, scale: 1, shots: false, rowBytes: [16] },
  { name: '400x800', width: 400, height: 800, scale: 1, shots: true, rowBytes: [8] },
  { name: 'zoom200', width: 640, height: 400, scale: 2, shots: false, rowBytes: [8, 16] },
];

async function expectLayoutRules(page: Page, rowBytes: number[], where: string): Promise<void> {
  const layout = await measureLayout(page);
  expect(layout.overflowing, `${where}: elements past the viewport`).toEqual([]);
  expect(layout.documentWidth, `${where}: page scrolls sideways`).toBeLessThanOrEqual(layout.viewport);
  if (!layout.hex) return;
  expect(layout.hex.width, `${where}: hex view width`).toBeGreaterThan(0);
  expect(rowBytes, `${where}: bytes per row`).toContain(layout.hex.bytesPerRow);
  // The whole row fits: nothing of the ASCII column is cut off or needs a sideways scroll.
  expect(layout.hex.scrollWidth, `${where}: hex scrolls sideways`).toBeLessThanOrEqual(
    layout.hex.clientWidth,
  );
  expect(layout.hex.lastAsciiRight, `${where}: ASCII column clipped`).toBeGreaterThan(0);
  expect(layout.hex.lastAsciiRight, `${where}: ASCII column clipped`).toBeLessThanOrEqual(
    layout.hex.boxRight + 0.5,
  );
  expect(layout.treeWidth ?? 1, `${where}: tree width`).toBeGreaterThan(0);
}

describe.skipIf(!ready)('responsive layout', () => {
  let site: StaticServer;
  beforeAll(async () => {
    site = await startStaticServer(distDir, { spa: true });
    mkdirSync(resultsDir, { recursive: true });
  });
  afterAll(async () => {
    await site?.close();
  });

  for (const vp of viewports) {
    describe(vp.name, () => {
      let browser: Awaited<ReturnType<typeof launchBrowser>>;
      beforeAll(async () => {
        browser = await launchBrowser({
          viewport: { width: vp.width, height: vp.height },
          deviceScaleFactor: vp.scale,
        });
      });
      afterAll(async () => {
        await browser?.close();
      });

      it('the empty page fits', async () => {
        const page = await browser.context.newPage();
        await page.goto(site.url);
        await page.getByTestId('drop-zone').waitFor();
        await expectLayoutRules(page, vp.rowBytes, 'empty');
        if (vp.shots) await page.screenshot({ path: join(resultsDir, `layout-${vp.name}-empty.png`) });
        await page.close();
      });

      for (const c of formatCases) {
        it(`${c.format}: structure and data fit, hex rows are whole`, async () => {
          const page = await browser.context.newPage();
          await page.goto(site.url);
          await page.getByTestId('drop-zone').waitFor();
          await openCase(page, c);
          await expectLayoutRules(page, vp.rowBytes, `${c.format} structure`);
          const fullPage = vp.width < 760;
          if (vp.shots)
            await page.screenshot({ path: join(resultsDir, `layout-${vp.name}-${c.format}.png`), fullPage });
          await page.getByRole('tab', { name: 'Data' }).click();
          await page.getByTestId(c.dataReady).first().waitFor();
          await expectLayoutRules(page, vp.rowBytes, `${c.format} data`);
          if (vp.shots)
            await page.screenshot({
              path: join(resultsDir, `layout-${vp.name}-${c.format}-data.png`),
              fullPage,
            });
          await page.close();
        });
      }
    });
  }
});
