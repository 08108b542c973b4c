import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemorySource, toJsonValue } from '@binscope/core';
import { openMldf } from '@binscope/mldf';
import { openScbf } from '@binscope/scbf';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumPresent, useSiteAndBrowser } from './browser';
import { detectedFormat, distDir, pickFiles, screenshot, vector, vectorsPresent } from './helpers';

const ready = chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html'));
const display = (v: unknown) => {
  const j = toJsonValue(v);
  return j === null || j === undefined ? '' : typeof j === 'string' ? j : JSON.stringify(j);
};

describe.skipIf(!ready)('broken files: every readable column and sample is shown', () => {
  const live = useSiteAndBrowser();

  async function open(file: string): Promise<Page> {
    const page = await live.browser.context.newPage();
    await page.goto(live.site.url);
    await page.getByTestId('drop-zone').waitFor();
    await pickFiles(page, [file]);
    await detectedFormat(page);
    await page.getByRole('tab', { name: 'Data' }).click();
    return page;
  }

  it('corrupt_zlib.scbf: the good columns show their values, the bad one is marked with its error', async () => {
    const file = vector('scbf', 'invalid', 'corrupt_zlib.scbf');
    // What can be read, column by column, by the package itself.
    const reader = await openScbf(new MemorySource(readFileSync(file)));
    const good = new Map<string, string[]>();
    const bad: string[] = [];
    for (const column of reader.columns) {
      try {
        const values = await reader.readColumn(column.index);
        good.set(
          column.name,
          Array.from({ length: reader.rowCount }, (_, r) =>
            display('get' in values ? values.get(r) : values[r]),
          ),
        );
      } catch {
        bad.push(column.name);
      }
    }
    expect(bad.length).toBeGreaterThan(0);
    expect(good.size).toBeGreaterThan(0);

    const page = await open(file);
    await page.locator('[data-testid="records-table"] tbody tr').first().waitFor();
    expect(await page.locator('[data-testid="column-picker"] input').count()).toBe(reader.columns.length);
    const headers = await page.$$eval('[data-testid="records-table"] thead th', (els) =>
      els.slice(1).map((e) => ({ name: e.firstChild?.textContent ?? '', bad: e.classList.contains('bad') })),
    );
    expect(headers.map((h) => h.name)).toEqual(reader.columns.map((c) => c.name));
    expect(headers.filter((h) => h.bad).map((h) => h.name)).toEqual(bad);
    const cells = await page.$$eval('[data-testid="records-table"] tbody tr', (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    expect(cells.length).toBe(reader.rowCount);
    reader.columns.forEach((column, c) => {
      const expected = good.get(column.name);
      if (expected) expect(cells.map((row) => row[c])).toEqual(expected);
    });
    const errors = await page.$$eval('[data-testid="item-error"]', (els) =>
      els.map((e) => e.getAttribute('data-code')),
    );
    expect(errors).toEqual(bad.map(() => 'DecompressError'));
    await screenshot(page, 'broken-scbf-data');
    await page.close();
  });

  it('ptr_oob.mldf: every sample is shown, the bad value is marked with its error', async () => {
    const file = vector('mldf', 'invalid', 'ptr_oob.mldf');
    const reader = await openMldf(new MemorySource(readFileSync(file)));
    const badSamples: number[] = [];
    for (let i = 0; i < reader.numSamples; i++) {
      await reader.samples([i]).catch(() => badSamples.push(i));
    }
    expect(badSamples.length).toBeGreaterThan(0);

    const page = await open(file);
    await page.getByTestId('record-card').first().waitFor();
    // The records' schema: the sample number, then the file's fields.
    const fields = await page.locator('[data-testid="column-picker"] input').count();
    expect(fields).toBe(reader.fields.length + 1);
    const cards = await page.$$eval('[data-testid="record-card"]', (els) =>
      els.map((e) => ({
        title: e.querySelector('h3')?.textContent ?? '',
        bad: e.getAttribute('data-bad') === 'true',
        fieldErrors: e.querySelectorAll('dd [data-testid="item-error"]').length,
        fields: e.querySelectorAll('dt').length,
      })),
    );
    expect(cards.length).toBe(Math.min(12, reader.numSamples));
    expect(cards.filter((c) => c.bad).map((c) => c.title)).toEqual(badSamples.map((i) => `record ${i}`));
    for (const card of cards) {
      expect(card.fields).toBe(fields);
      // A bad sample shows its readable fields; only the bad value(s) carry an error.
      if (card.bad) expect(card.fieldErrors).toBeGreaterThan(0);
      if (card.bad) expect(card.fieldErrors).toBeLessThan(fields);
      else expect(card.fieldErrors).toBe(0);
    }
    const codes = await page.$$eval('dd [data-testid="item-error"]', (els) =>
      els.map((e) => e.getAttribute('data-code')),
    );
    expect(new Set(codes)).toEqual(new Set(['OutOfBounds']));
    await screenshot(page, 'broken-mldf-data');
    await page.close();
  });
});
