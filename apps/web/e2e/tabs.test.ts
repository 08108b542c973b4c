import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { violations } from './a11y-check';
import { chromiumPresent, launchBrowser } from './browser';
import { distDir, pickFiles, vector, vectorsDir, vectorsPresent } from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html'));
const UDF = '/udf/nested_text_json/nested_text_json.udf';
const MLDF = '/mldf/basic_mixed/basic_mixed.mldf';

/** What a tab shows: the selected node, the hex view's first row and its cursor. */
interface View {
  node: string;
  firstRow: string;
  cursor: string;
}

const view = (page: Page): Promise<View> =>
  page.evaluate(() => {
    const node = document.querySelector('[data-testid="tree-node"][aria-selected="true"]');
    return {
      node: `${node?.getAttribute('data-name')}@${node?.getAttribute('data-offset')}`,
      firstRow: document.querySelector('.hex')?.getAttribute('data-first-row') ?? '',
      cursor: document.querySelector('.hexcols .b.cur')?.getAttribute('data-offset') ?? '',
    };
  });

const waitForView = (page: Page, want: View) =>
  page.waitForFunction((w) => {
    const node = document.querySelector('[data-testid="tree-node"][aria-selected="true"]');
    return (
      `${node?.getAttribute('data-name')}@${node?.getAttribute('data-offset')}` === w.node &&
      (document.querySelector('.hex')?.getAttribute('data-first-row') ?? '') === w.firstRow &&
      (document.querySelector('.hexcols .b.cur')?.getAttribute('data-offset') ?? '') === w.cursor
    );
  }, want);

/** The names on the strip, the shown one marked with a star. */
const strip = (page: Page) =>
  page.$$eval('[data-testid="file-tab"]', (els) =>
    els.map(
      (el) => `${el.getAttribute('data-name')}${el.getAttribute('aria-selected') === 'true' ? '*' : ''}`,
    ),
  );

describe.skipIf(!ready)('several files open at once (tabs)', () => {
  let site: StaticServer;
  let files: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    site = await startStaticServer(distDir, { spa: true });
    files = await startStaticServer(vectorsDir, { cors: true });
    browser = await launchBrowser({ viewport: { width: 1280, height: 720 } });
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([site?.close(), files?.close()]);
  });

  async function openUrl(page: Page, path: string): Promise<void> {
    await page.getByTestId('url-input').fill(`${files.url}${path}`);
    await page.getByRole('button', { name: 'Open URL' }).click();
    await page.locator(`[data-testid="file-tab"][data-name="${path.split('/').pop()}"]`).waitFor();
    await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
  }

  /** Selects the tree's first node past the second hex row, then scrolls the hex view down a row by the wheel. */
  async function selectAndScroll(page: Page): Promise<View> {
    const offsets = await page.$$eval('[data-testid="tree-node"]', (els) =>
      els.map((el) => Number(el.getAttribute('data-offset'))),
    );
    const row = page.locator('[data-testid="tree-node"]').nth(offsets.findIndex((o) => o >= 32));
    const name = await row.getAttribute('data-name');
    const offset = await row.getAttribute('data-offset');
    await row.click();
    await page.waitForFunction(
      (o) => document.querySelector('.hexcols .b.cur')?.getAttribute('data-offset') === o,
      offset,
    );
    const before = Number(await page.locator('.hex').getAttribute('data-first-row'));
    await page.locator('.hex-scroll').hover();
    await page.mouse.wheel(0, 20);
    await page.waitForFunction(
      (b) => Number(document.querySelector('.hex')?.getAttribute('data-first-row')) > b,
      before,
    );
    const shown = await view(page);
    expect(shown.node).toBe(`${name}@${offset}`);
    return shown;
  }

  it('each tab keeps its selection and hex position; a reload brings the URL tabs back; closing one ends its worker', async () => {
    const page = await browser.context.newPage();
    await page.goto(site.url);
    await page.getByTestId('drop-zone').waitFor();

    await openUrl(page, UDF);
    const udf = await selectAndScroll(page);
    await openUrl(page, MLDF);
    expect(await strip(page)).toEqual(['nested_text_json.udf', 'basic_mixed.mldf*']);
    const mldf = await selectAndScroll(page);
    expect(mldf.node).not.toBe(udf.node);

    // Back and forth, by pointer and by keyboard: each tab shows what it showed.
    await page.locator('[data-testid="file-tab"]').first().click();
    await waitForView(page, udf);
    expect(await page.getByTestId('format').getAttribute('data-format')).toBe('udf');
    await page.keyboard.press('ArrowRight');
    await waitForView(page, mldf);
    expect(await strip(page)).toEqual(['nested_text_json.udf', 'basic_mixed.mldf*']);
    expect(await violations(page), 'two tabs open').toEqual([]);

    // The link names both remote files and each one's byte; the shown tab is the link's own `url`.
    const params = new URLSearchParams(new URL(page.url()).search);
    expect(params.get('url')).toBe(`${files.url}${MLDF}`);
    expect(params.get('active')).toBe('1');
    const other = new URLSearchParams(params.get('tab') ?? '');
    expect(other.get('url')).toBe(`${files.url}${UDF}`);
    expect(Number(other.get('at'))).toBe(Number(udf.cursor));

    // A file from disk: after the reload its tab asks for it, then shows it at the byte it was at.
    await pickFiles(page, [vector('scbf', 'basic', 'basic.scbf')]);
    await page.locator('[data-testid="file-tab"][data-name="basic.scbf"][aria-selected="true"]').waitFor();
    await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
    const local = await selectAndScroll(page);
    await page.locator('[data-testid="file-tab"]').nth(1).click();
    await waitForView(page, mldf);

    await page.reload();
    await page.locator('[data-testid="file-tab"]').nth(2).waitFor();
    await page.waitForFunction(
      () =>
        document
          .querySelector('[data-testid="file-tab"][aria-selected="true"]')
          ?.getAttribute('data-name') === 'basic_mixed.mldf',
    );
    // A link puts the byte back, and a node that owns it selected (the hex view scrolls to it).
    const owner = (v: View) =>
      page.waitForFunction((cursor) => {
        const el = document.querySelector('[data-testid="tree-node"][aria-selected="true"]');
        const start = Number(el?.getAttribute('data-offset'));
        const at = Number(cursor);
        return (
          document.querySelector('.hexcols .b.cur')?.getAttribute('data-offset') === cursor &&
          start <= at &&
          at < start + Number(el?.getAttribute('data-length'))
        );
      }, v.cursor);
    await owner(mldf);
    await page.locator('[data-testid="file-tab"]').first().click();
    await owner(udf);
    await page.locator('[data-testid="file-tab"]').nth(2).click();
    await page.getByTestId('reopen').waitFor();
    expect(await strip(page)).toEqual(['nested_text_json.udf', 'basic_mixed.mldf', 'basic.scbf*']);
    await page.getByTestId('reopen-input').setInputFiles(vector('scbf', 'basic', 'basic.scbf'));
    await page.getByTestId('format').waitFor();
    await owner(local);
    expect(await strip(page)).toEqual(['nested_text_json.udf', 'basic_mixed.mldf', 'basic.scbf*']);

    // Closing a tab ends its worker (and its readers); the other tab is shown, the link forgets it.
    await page.locator('[data-testid="file-tab"]').nth(1).click();
    await owner(mldf);
    const workers = page.workers().length;
    await page.locator('[data-testid="file-tab-close"]').first().click();
    await expect.poll(() => page.workers().length, { timeout: 30_000 }).toBe(workers - 1);
    expect(await strip(page)).toEqual(['basic_mixed.mldf*', 'basic.scbf']);
    await owner(mldf);
    await page.waitForFunction(
      (udfUrl) =>
        !new URLSearchParams(location.search)
          .getAll('tab')
          .some((t) => t.includes(encodeURIComponent(udfUrl))),
      `${files.url}${UDF}`,
    );
    await page.close();
  });

  it('a file opened while the link’s tabs are still coming back stays the shown tab', async () => {
    // The link names a remote file (held by the server, so the restore waits on it) and a local one.
    const link = new URLSearchParams();
    link.append('tab', `${new URLSearchParams({ url: `${files.url}${UDF}` })}`);
    link.append('tab', `${new URLSearchParams({ local: 'basic_mixed.mldf' })}`);
    link.set('active', '1');
    const page = await browser.context.newPage();
    files.pause();
    try {
      await page.goto(`${site.url}/?${link}`);
      await page.locator('[data-testid="file-tab"][data-name="nested_text_json.udf"]').waitFor();
      await pickFiles(page, [vector('scbf', 'basic', 'basic.scbf')]);
      await page.locator('[data-testid="file-tab"][data-name="basic.scbf"][aria-selected="true"]').waitFor();
    } finally {
      files.resume();
    }
    // The restore ends by adding the local tab (the link's shown one): the picked file stays shown.
    await page.locator('[data-testid="file-tab"][data-name="basic_mixed.mldf"]').waitFor();
    expect(await strip(page)).toEqual(['nested_text_json.udf', 'basic.scbf*', 'basic_mixed.mldf']);
    await page.getByRole('tab', { name: 'Data' }).click();
    await page.getByTestId('data-view').waitFor();
    await page.close();
  });
});
