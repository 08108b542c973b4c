import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import { detectedFormat, distDir, screenshot } from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && existsSync(join(distDir, 'samples', 'index.json'));

/** Opens a built-in sample and its data tab. */
async function openSample(page: Page, url: string, format: string): Promise<void> {
  await page.goto(url);
  await page.getByTestId('samples').locator(`button[data-format="${format}"]`).click();
  expect(await detectedFormat(page)).toBe(format);
  await page.getByRole('tab', { name: 'Data' }).click();
}

/**
 * Clicks a link to bytes and returns the bytes the hex view then highlights, after checking
 * they are the range the link names (all of it, or up to the last row on screen when the
 * range runs past it) and that the structure tab shows them.
 */
async function followToBytes(page: Page, link: Locator): Promise<Uint8Array> {
  const offset = Number(await link.getAttribute('data-offset'));
  const length = Number(await link.getAttribute('data-length'));
  expect(length).toBeGreaterThan(0);
  await link.click();
  expect(await page.getByRole('tab', { name: 'Structure' }).getAttribute('aria-selected')).toBe('true');
  await page.waitForFunction((from) => {
    const cells = [...document.querySelectorAll('.hexcols .b.sel')];
    return (
      cells.length > 0 &&
      Number(cells[0].getAttribute('data-offset')) === from &&
      cells.every((c) => c.textContent !== '··')
    );
  }, offset);
  const cells = await page.$$eval('.hexcols .b.sel', (els) =>
    els.map((e) => [Number(e.getAttribute('data-offset')), Number.parseInt(e.textContent ?? '', 16)]),
  );
  const shown = cells.length;
  expect(cells.map(([o]) => o)).toEqual(
    Array.from({ length: Math.min(shown, length) }, (_, i) => offset + i),
  );
  if (shown < length) {
    const lastOnScreen = await page.$$eval('.hexcols .b[data-offset]', (els) =>
      Math.max(...els.map((e) => Number(e.getAttribute('data-offset')))),
    );
    expect(cells[shown - 1][0]).toBe(lastOnScreen);
  }
  return Uint8Array.from(cells.map(([, b]) => b));
}

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

describe.skipIf(!ready)('data cells link back to their bytes', () => {
  let site: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  beforeAll(async () => {
    site = await startStaticServer(distDir, { spa: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('UDF: a table cell highlights its element, which decodes to the value shown', async () => {
    page = await browser.context.newPage();
    await openSample(page, site.url, 'udf');
    // A table the plugin lists by reading the file; its rows are the table's elements.
    const picker = page.getByTestId('table-picker');
    // The picker shows before the listed tables arrive: wait for the one this test reads.
    await picker.locator('option', { hasText: /^frame_times/ }).waitFor({ state: 'attached' });
    const label = (await picker.locator('option').allTextContents()).find((t) => t.startsWith('frame_times'));
    expect(label).toBeDefined();
    await picker.selectOption({ label: label! });
    const cell = page.getByTestId('records-table').getByTestId('bytes-cell').nth(3);
    await cell.waitFor();
    const shown = Number(await cell.textContent());
    const bytes = await followToBytes(page, cell);
    expect([4, 8]).toContain(bytes.length);
    expect(bytes.length === 4 ? view(bytes).getFloat32(0, true) : view(bytes).getFloat64(0, true)).toBe(
      shown,
    );
    await screenshot(page, 'cell-bytes-udf');
    await page.close();
  });

  it('SCBF: a cell highlights the compressed block holding it (a zlib stream)', async () => {
    page = await browser.context.newPage();
    await openSample(page, site.url, 'scbf');
    const cell = page.getByTestId('bytes-cell').first();
    await cell.waitFor();
    const bytes = await followToBytes(page, cell);
    // zlib header: CM = 8 (deflate) and the header checksum.
    expect(bytes[0] & 0x0f).toBe(8);
    expect(((bytes[0] << 8) | bytes[1]) % 31).toBe(0);
    await page.close();
  });

  it('MLDF: the bytes button of a value highlights its payload, which is the text shown', async () => {
    page = await browser.context.newPage();
    await openSample(page, site.url, 'mldf');
    const card = page.getByTestId('record-card').nth(3);
    const caption = card.locator('dt', { hasText: 'caption' });
    const text = await caption.locator('xpath=following-sibling::dd[1]').textContent();
    const bytes = await followToBytes(page, caption.getByTestId('bytes-button'));
    expect(text).toContain(new TextDecoder().decode(bytes));
    expect(new TextDecoder().decode(bytes)).toMatch(/^sample 3: /);
    await page.close();
  });

  it('SCDL: the values of a row highlight them in the DATA file', async () => {
    page = await browser.context.newPage();
    await openSample(page, site.url, 'scdl');
    const card = page.getByTestId('record-card').nth(2);
    const label = card.locator('dt', { hasText: 'values' });
    // "[3] 4, 1, 4": the list's length, then its items.
    const text = (await label.locator('xpath=following-sibling::dd[1]').textContent()) ?? '';
    const shown = text
      .replace(/^\[\d+\]/, '')
      .split(',')
      .map(Number);
    expect(shown.length).toBeGreaterThan(0);
    const bytes = await followToBytes(page, label.getByTestId('bytes-button'));
    const values = Array.from({ length: bytes.length / 4 }, (_, i) => view(bytes).getFloat32(i * 4, true));
    expect(values).toEqual(shown);
    await page.close();
  });

  it('TARIDX: the members of a sample highlight its rows in the index, holding their offsets', async () => {
    page = await browser.context.newPage();
    await openSample(page, site.url, 'taridx');
    const card = page.getByTestId('record-card').nth(1);
    const label = card.locator('dt', { hasText: 'members' });
    const rows = label.locator('xpath=following-sibling::dd[1]').locator('tbody tr');
    await rows.first().waitFor();
    const members = await rows.count();
    const offsets = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.children[2].textContent)));
    const bytes = await followToBytes(page, label.getByTestId('bytes-button'));
    expect(bytes.length).toBe(32 * members);
    // Each 32-byte row holds its member's offset in the shard (u64, little-endian).
    for (const [i, offset] of offsets.entries()) {
      const le = Buffer.alloc(8);
      le.writeBigUInt64LE(BigInt(offset));
      expect(Buffer.from(bytes.subarray(32 * i, 32 * i + 32)).toString('hex')).toContain(le.toString('hex'));
    }
    await page.close();
  });
});
