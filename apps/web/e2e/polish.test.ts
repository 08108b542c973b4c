import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeMldf } from '@binscope/mldf';
import { writeScdlToMemory } from '@binscope/scdl';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, useSiteAndBrowser } from './browser';
import {
  distDir,
  highlightedOffsets,
  pickFiles,
  pickFolder,
  POLL,
  vector,
  vectorsPresent,
  waitForHighlight,
} from './helpers';

const ready = chromiumPresent && existsSync(join(distDir, 'index.html'));
// The format's longest field name: 63 bytes of UTF-8.
const LONG_NAME = 'a_field_name_as_long_as_the_format_allows_sixty_three_bytes_xyz';

/** Saved to /tmp for a look when WEB_POLISH_SHOTS is set (they are not asserted on). */
async function shot(page: Page, name: string): Promise<void> {
  if (process.env.WEB_POLISH_SHOTS) await page.screenshot({ path: `/tmp/web-polish-${name}.png` });
}

describe.skipIf(!ready)('third-round polish of the page', () => {
  const live = useSiteAndBrowser();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-polish-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function openPage(width: number, height = 800): Promise<Page> {
    const page = await live.browser.context.newPage();
    await page.setViewportSize({ width, height });
    await page.goto(live.site.url);
    await page.getByTestId('drop-zone').waitFor();
    return page;
  }

  it('a 63-character field name neither overruns a card nor squeezes its value to a column', async () => {
    expect(LONG_NAME.length).toBe(63);
    const file = join(dir, 'long-name.mldf');
    const samples = Array.from({ length: 3 }, (_, i) => ({
      [LONG_NAME]: `value number ${i} of a field whose name is long`,
      meta: { index: i },
    }));
    writeFileSync(
      file,
      await writeMldf(
        [
          { name: LONG_NAME, type: 'TEXT_RAW' },
          { name: 'meta', type: 'JSON' },
        ],
        samples,
      ),
    );
    for (const width of [1280, 400]) {
      const page = await openPage(width);
      await pickFiles(page, [file]);
      await page.locator('#tab-data').click();
      await page.getByTestId('record-card').first().waitFor();
      await page.locator('.card dd').first().waitFor({ state: 'attached' });
      await page.getByTestId('record-card').first().scrollIntoViewIfNeeded();
      await shot(page, `long-name-${width}`);
      const cards = await page.$$eval(
        '[data-testid="record-card"]',
        (els, name) =>
          els.map((card) => {
            const box = card.getBoundingClientRect();
            const rows = [...card.querySelectorAll('.kv-row')];
            const long = rows.filter((r) => r.querySelector('.field-name')?.textContent === name);
            const row = long
              .map((r) => r.querySelector('dd')!)
              .map((dd) => {
                const r = dd.getBoundingClientRect();
                // Lines of text: the distinct tops of the value's text boxes (the cell stretches to its row).
                const text = document.createRange();
                text.selectNodeContents(dd);
                const lines = new Set([...text.getClientRects()].map((t) => Math.round(t.top))).size;
                return { right: r.right, width: r.width, lines };
              });
            return { right: box.right, scrolls: card.scrollWidth > card.clientWidth + 1, values: row };
          }),
        LONG_NAME,
      );
      expect(cards.length).toBeGreaterThan(0);
      // Nor does it push the field picker, the data panel or the page sideways.
      const sideways = await page.evaluate(() => {
        const data = document.querySelector('.data')!;
        const picker = document.querySelector('.columns-pick')!.getBoundingClientRect();
        const labels = [...document.querySelectorAll('.columns-pick label')];
        return {
          page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          data: data.scrollWidth - data.clientWidth,
          labels: labels.filter((l) => l.getBoundingClientRect().right > picker.right + 0.5).length,
        };
      });
      expect(sideways, `at ${width} px`).toEqual({ page: 0, data: 0, labels: 0 });
      for (const card of cards) {
        expect(card.values.length).toBe(1);
        expect(card.scrolls, `a card scrolls sideways at ${width} px`).toBe(false);
        for (const value of card.values) {
          expect(value.right).toBeLessThanOrEqual(card.right + 0.5);
          // The value text is ~45 characters: a few lines at most, never one character per line.
          expect(value.width, `value width at ${width} px`).toBeGreaterThanOrEqual(120);
          expect(value.lines, `value lines at ${width} px`).toBeLessThanOrEqual(4);
        }
      }
      await page.close();
    }
  });

  it.skipIf(!vectorsPresent)(
    "a marked node's badge never pushes its value and offset out of the row",
    async () => {
      const page = await openPage(1280);
      await pickFiles(page, [vector('mldf', 'invalid', 'ptr_oob.mldf')]);
      await page.getByTestId('node-problem').first().waitFor();
      await shot(page, 'marked-1280');
      const rows = await page.$$eval('.tree-row.marked', (els) =>
        els.map((row) => {
          const box = row.getBoundingClientRect();
          const part = (sel: string) => row.querySelector(sel)?.getBoundingClientRect();
          const badge = row.querySelector<HTMLElement>('.node-problem');
          return {
            right: box.right,
            range: part('.node-range'),
            value: part('.node-value'),
            name: part('.node-name'),
            badgeTitle: badge?.title ?? '',
            badgeCut: badge ? getComputedStyle(badge).textOverflow : '',
          };
        }),
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.range, 'the offset is shown').toBeDefined();
        expect(row.range!.right).toBeLessThanOrEqual(row.right + 0.5);
        expect(row.range!.width).toBeGreaterThan(20);
        if (row.value) {
          expect(row.value.right).toBeLessThanOrEqual(row.range!.left + 0.5);
          expect(row.value.width, 'the value keeps room').toBeGreaterThan(30);
        }
        expect(row.badgeTitle).not.toBe('');
        expect(row.badgeCut).toBe('ellipsis');
      }
      await page.close();
    },
  );

  it.skipIf(!vectorsPresent)('the header stays one row at 1280×800 once a file is open', async () => {
    const page = await openPage(1280, 800);
    const before = await page.locator('.openbar').boundingBox();
    await pickFiles(page, [vector('mldf', 'invalid', 'ptr_oob.mldf')]);
    await page.getByTestId('bytes-counter').waitFor();
    await page.locator('[data-testid="tree-node"]').first().waitFor();
    await shot(page, 'header-1280');
    const after = await page.locator('.openbar').boundingBox();
    const tops = await page.$$eval('.openbar > *', (els) =>
      els.filter((e) => e.getBoundingClientRect().height > 0).map((e) => e.getBoundingClientRect().top),
    );
    const spread = Math.max(...tops) - Math.min(...tops);
    expect(spread, 'the header items share one row').toBeLessThan(12);
    expect(after!.height).toBeLessThanOrEqual(before!.height + 1);
    await page.close();
  });

  it("the index-and-shards sample's tables fit 1280 px with no record open: no sideways scrolling", async () => {
    const page = await openPage(1280);
    await page.getByTestId('samples').locator('button[data-format="taridx"]').click();
    await page.locator('#tab-data').click();
    const picker = page.getByTestId('table-picker');
    await picker.waitFor();
    const tables = await picker
      .locator('option')
      .evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
    expect(tables.length).toBeGreaterThanOrEqual(2);
    for (const table of tables) {
      await picker.selectOption(table);
      await page.getByLabel('table', { exact: true }).check();
      await page.getByTestId('records-table').locator('tbody tr').first().waitFor();
      await shot(page, `members-${table || 'records'}-1280`);
      const sideways = await page.evaluate(() => {
        const wrap = document.querySelector('.table-wrap')!;
        const data = document.querySelector('.data')!;
        return { table: wrap.scrollWidth - wrap.clientWidth, data: data.scrollWidth - data.clientWidth };
      });
      expect(sideways, `table ${table || 'records'}`).toEqual({ table: 0, data: 0 });
    }
    await page.close();
  });

  it('the data inspector heading keeps the offset in lower-case hex', async () => {
    const file = join(dir, 'plain.bin');
    writeFileSync(
      file,
      new Uint8Array(0x600).map((_, i) => i & 0xff),
    );
    const page = await openPage(1280);
    await pickFiles(page, [file]);
    await page.getByTestId('unknown-view').waitFor();
    await page.locator('.hex-scroll').focus();
    await page.locator('.hexcols .b[data-offset="128"]').click();
    // innerText, not textContent: it is the text as rendered, after CSS text-transform.
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what is tested.
    const shown = () => page.locator('#inspector-h').evaluate((h) => (h as HTMLElement).innerText);
    await expect.poll(shown, POLL).toMatch(/0x80$/);
    expect(await shown()).not.toContain('0X');
    await shot(page, 'inspector-1280');
    await page.close();
  });

  it('search wraps: next after the last match goes to the first, previous from the first to the last', async () => {
    const file = join(dir, 'needles.bin');
    const bytes = new Uint8Array(8192);
    const needle = new TextEncoder().encode('needle');
    for (const at of [100, 5000]) bytes.set(needle, at);
    writeFileSync(file, bytes);
    const page = await openPage(1280);
    await pickFiles(page, [file]);
    await page.getByTestId('unknown-view').waitFor();
    await page.getByLabel('Search for').selectOption('text');
    await page.getByTestId('search-query').fill('needle');
    const status = page.getByTestId('search-status');
    const next = page.getByRole('button', { name: 'Next match' });
    const previous = page.getByRole('button', { name: 'Previous match' });
    const selectedStart = async () => Math.min(...(await waitForHighlight(page)));
    await next.click();
    await expect.poll(() => status.textContent(), POLL).toBe('found at 0x64');
    await next.click();
    await expect.poll(() => status.textContent(), POLL).toBe('found at 0x1388');
    await next.click();
    await expect.poll(() => status.textContent(), POLL).toMatch(/found at 0x64.*wrapped/);
    expect(await selectedStart()).toBe(100);
    await previous.click();
    await expect.poll(() => status.textContent(), POLL).toMatch(/found at 0x1388.*wrapped/);
    expect(await selectedStart()).toBe(5000);
    await shot(page, 'search-1280');
    await page.close();
  });

  it('opening a sample by keyboard leaves the focus on the opened file, not on the page body', async () => {
    const page = await openPage(1280);
    const sample = page.getByTestId('samples').getByRole('button').first();
    await sample.focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="tree-node"]').first().waitFor();
    await expect
      .poll(
        () =>
          page.evaluate(
            () => document.activeElement?.getAttribute('role') ?? document.activeElement?.tagName,
          ),
        POLL,
      )
      .toMatch(/^(tree|grid)$/);
    await page.close();
  });

  it('a stored zero of a sparse matrix is shown as a stored value, never counted as a non-zero', async () => {
    // Row 1 stores an explicit 0 at column 2 (scipy keeps such entries until eliminate_zeros).
    const { directory } = await writeScdlToMemory({
      indptr: [0, 1, 3, 4],
      indices: [0, 2, 3, 1],
      data: [4, 0, 7, 2],
      numCols: 4,
    });
    const root = join(dir, 'stored_zero_scdl');
    for (const path of await directory.list()) {
      const target = join(root, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, directory.get(path)!);
    }
    const page = await openPage(1280);
    await pickFolder(page, root);
    await page.locator('[data-testid="tree-node"]').first().waitFor();
    const labels = await page.$$eval('#summary-h ~ dl dt', (els) => els.map((e) => e.textContent ?? ''));
    expect(labels.length).toBeGreaterThan(2);
    expect(
      labels.filter((l) => /non-?zero/i.test(l)),
      'summary labels',
    ).toEqual([]);
    await shot(page, 'stored-zero-1280');
    await page.locator('#tab-data').click();
    await page.getByLabel('table', { exact: true }).check();
    const row = page.getByTestId('records-table').locator('tbody tr').nth(1);
    await row.waitFor();
    const text = ((await row.textContent()) ?? '').replace(/\s+/g, ' ');
    expect(text).toMatch(/\b2\b.*\b3\b/);
    expect(text).toMatch(/\b0\b.*\b7\b/);
    expect(await page.locator('.data').textContent()).not.toMatch(/non-?zero/i);
    await page.close();
  });

  it('Shift+cursor keys extend the byte selection in the hex view', async () => {
    const file = join(dir, 'shift.bin');
    writeFileSync(
      file,
      new Uint8Array(4096).map((_, i) => (i * 7) & 0xff),
    );
    const page = await openPage(1280);
    await pickFiles(page, [file]);
    await page.getByTestId('unknown-view').waitFor();
    await page.locator('.hexcols .b[data-offset="40"]').click();
    for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(() => highlightedOffsets(page), POLL).toEqual([40, 41, 42, 43]);
    const perRow = Number(await page.locator('.hex').getAttribute('data-bytes-per-row'));
    await page.keyboard.press('Shift+ArrowDown');
    const wide = await highlightedOffsets(page);
    expect(Math.min(...wide)).toBe(40);
    expect(Math.max(...wide)).toBe(43 + perRow);
    await shot(page, 'shift-1280');
    await page.keyboard.press('Shift+ArrowLeft');
    expect(Math.max(...(await highlightedOffsets(page)))).toBe(42 + perRow);
    // A plain cursor key ends the extension: the next Shift starts from the new cursor.
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(() => highlightedOffsets(page), POLL).toEqual([43 + perRow, 44 + perRow]);
    await page.close();
  });
});
