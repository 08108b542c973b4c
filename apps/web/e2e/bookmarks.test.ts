import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import {
  distDir,
  highlightedOffsets,
  type NodeInfo,
  POLL,
  treeNodes,
  vectorsDir,
  vectorsPresent,
} from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html'));
const UDF = '/udf/nested_text_json/nested_text_json.udf';

/** The selected tree node, once exactly one is. */
async function selectedNode(page: Page): Promise<NodeInfo> {
  const selected = (await treeNodes(page)).filter((n) => n.selected);
  expect(selected).toHaveLength(1);
  return selected[0];
}

/** Waits until the hex view highlights exactly [start, end) (the range fits on screen here). */
async function waitForHighlight(page: Page, start: number, end: number): Promise<void> {
  await page.waitForFunction(
    ([s, e]) => {
      const offsets = [...document.querySelectorAll('.hexcols .b.sel')].map((el) =>
        Number(el.getAttribute('data-offset')),
      );
      return offsets.length === e - s && offsets[0] === s && offsets[offsets.length - 1] === e - 1;
    },
    [start, end],
  );
}

/** Waits until the tree's selected node is the one at `offset` named `name`. */
async function waitForSelected(page: Page, node: NodeInfo): Promise<void> {
  await page.waitForFunction(
    ([name, offset]) => {
      const el = document.querySelector('[data-testid="tree-node"][aria-selected="true"]');
      return el?.getAttribute('data-name') === name && el?.getAttribute('data-offset') === String(offset);
    },
    [node.name, node.offset] as const,
  );
}

describe.skipIf(!ready)('selection history and bookmarks', () => {
  let site: StaticServer;
  let files: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    site = await startStaticServer(distDir, { spa: true });
    files = await startStaticServer(vectorsDir, { cors: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([site?.close(), files?.close()]);
  });

  /** Opens the UDF by URL, as a shared link would, and returns its header and the header's fields. */
  async function openByUrl(page: Page): Promise<NodeInfo[]> {
    await page.goto(`${site.url}?url=${encodeURIComponent(`${files.url}${UDF}`)}`);
    await page.locator('[data-testid="tree-node"][data-name="file header"] .twisty').click();
    await page.locator('[data-testid="tree-node"]').nth(4).waitFor();
    const nodes = (await treeNodes(page)).slice(1).filter((n) => n.length > 0 && n.length <= 64);
    expect(nodes.length).toBeGreaterThanOrEqual(3);
    return nodes;
  }

  async function clickNode(page: Page, node: NodeInfo): Promise<void> {
    await page
      .locator(`[data-testid="tree-node"][data-name="${node.name}"][data-offset="${node.offset}"]`)
      .first()
      .click();
    await waitForSelected(page, node);
    await waitForHighlight(page, node.offset, node.offset + node.length);
  }

  it('back twice after A, B, C selects A again; forward gives B; the file is not reloaded', async () => {
    const page = await browser.context.newPage();
    const [a, b, c] = await openByUrl(page);
    await clickNode(page, a);
    await clickNode(page, b);
    // C is picked from the hex side: a click on its first byte selects its node.
    await page.locator(`.hexcols .b[data-offset="${c.offset}"]`).click();
    await waitForSelected(page, c);
    // Same document throughout: a marker survives, and the file is not fetched again.
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 42;
    });
    const requests = files.received.get(UDF) ?? 0;

    // The hex grid has focus after the click: Alt+Left steps back, it does not move the cursor.
    await page.keyboard.press('Alt+ArrowLeft');
    await waitForSelected(page, b);
    await waitForHighlight(page, b.offset, b.offset + b.length);
    expect(await page.locator('.hexcols .b.cur').getAttribute('data-offset')).toBe(String(b.offset));
    await page.getByRole('button', { name: 'Back to the previous selection' }).click();
    await waitForSelected(page, a);
    expect(await selectedNode(page)).toMatchObject({ name: a.name, offset: a.offset, length: a.length });
    await waitForHighlight(page, a.offset, a.offset + a.length);
    const sel = await highlightedOffsets(page);
    expect([sel[0], sel.at(-1)]).toEqual([a.offset, a.offset + a.length - 1]);
    // The cursor came back with the selection.
    expect(await page.locator('.hexcols .b.cur').getAttribute('data-offset')).toBe(String(a.offset));

    await page.keyboard.press('Alt+ArrowRight');
    await waitForSelected(page, b);
    await waitForHighlight(page, b.offset, b.offset + b.length);
    await page.getByRole('button', { name: 'Forward to the next selection' }).click();
    await waitForSelected(page, c);
    // C's cursor is where it was picked (Alt+Left did not move it before stepping back).
    await page.waitForFunction(
      (at) => document.querySelector('.hexcols .b.cur')?.getAttribute('data-offset') === String(at),
      c.offset,
    );
    // The browser's own back button walks the same list.
    await page.evaluate(() => history.back());
    await waitForSelected(page, b);
    await page.evaluate(() => history.back());
    await waitForSelected(page, a);
    await waitForHighlight(page, a.offset, a.offset + a.length);

    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    expect(files.received.get(UDF) ?? 0).toBe(requests);
    await page.close();
  });

  it('the history is bounded: after 55 selections, Back goes 49 steps and stops with the browser', async () => {
    const page = await browser.context.newPage();
    const [a, b] = await openByUrl(page);
    const picks = Array.from({ length: 55 }, (_, i) => (i % 2 === 0 ? a : b));
    for (const node of picks) await clickNode(page, node);
    const back = page.getByRole('button', { name: 'Back to the previous selection' });
    // 56 entries with the one the file opened on; the newest 50 are kept, as the browser keeps them.
    for (let i = picks.length - 2; i >= picks.length - 50; i--) {
      await back.click();
      await waitForSelected(page, picks[i]);
    }
    expect(await back.isDisabled()).toBe(true);
    expect(await page.evaluate(() => history.length)).toBeLessThanOrEqual(50);
    await page.close();
  });

  it('bookmarks are listed, kept in the shared link, restored from it, and select their bytes', async () => {
    const page = await browser.context.newPage();
    const [a, b] = await openByUrl(page);
    await clickNode(page, a);
    await page.getByLabel('Bookmark name (optional)').fill('first field');
    await page.getByRole('button', { name: 'Bookmark selection' }).click();
    await clickNode(page, b);
    await page.getByRole('button', { name: 'Bookmark selection' }).click();
    const panel = page.getByTestId('bookmarks');
    await expect.poll(() => panel.getByTestId('bookmark').count(), POLL).toBe(2);
    await page.waitForFunction(() => new URLSearchParams(location.search).getAll('bm').length === 2);
    const link = page.url();
    await page.close();

    const again = await browser.context.newPage();
    await again.goto(link);
    const listed = again.getByTestId('bookmark');
    await expect.poll(() => listed.count(), POLL).toBe(2);
    const ranges = await listed.evaluateAll((els) =>
      els.map((el) => ({
        start: Number(el.getAttribute('data-start')),
        end: Number(el.getAttribute('data-end')),
        text: el.textContent ?? '',
      })),
    );
    expect(ranges.map(({ start, end }) => [start, end])).toEqual([
      [a.offset, a.offset + a.length],
      [b.offset, b.offset + b.length],
    ]);
    expect(ranges[0].text).toContain('first field');
    expect(ranges[0].text).toContain(
      `0x${a.offset.toString(16)}–0x${(a.offset + a.length - 1).toString(16)}`,
    );
    expect(ranges[1].text).toContain(
      `0x${b.offset.toString(16)}–0x${(b.offset + b.length - 1).toString(16)}`,
    );

    await listed
      .nth(0)
      .getByRole('button', { name: /^first field/ })
      .click();
    await waitForHighlight(again, a.offset, a.offset + a.length);
    await listed.nth(1).locator('.bookmark-jump').click();
    await waitForHighlight(again, b.offset, b.offset + b.length);

    // Removing one takes it out of the list and out of the link.
    await again.getByRole('button', { name: 'Remove bookmark first field' }).click();
    await expect.poll(() => listed.count(), POLL).toBe(1);
    await again.waitForFunction(() => new URLSearchParams(location.search).getAll('bm').length === 1);
    await again.close();
  });
});
