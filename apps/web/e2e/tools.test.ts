import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import { writeOffsetFile } from './generated';
import {
  clickNode,
  distDir,
  POLL,
  pickFiles,
  resultsDir,
  screenshot,
  vector,
  vectorsPresent,
} from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && existsSync(join(distDir, 'index.html'));

/** What the inspector must show for `bytes` at a cursor: Node's own readers as the reference. */
function expectedNumbers(bytes: Buffer): Record<string, [string, string]> {
  const f = (v: number) => (Object.is(v, -0) ? '-0' : String(v));
  return {
    u8: [String(bytes.readUInt8(0)), ''],
    i8: [String(bytes.readInt8(0)), ''],
    u16: [String(bytes.readUInt16LE(0)), String(bytes.readUInt16BE(0))],
    i16: [String(bytes.readInt16LE(0)), String(bytes.readInt16BE(0))],
    u32: [String(bytes.readUInt32LE(0)), String(bytes.readUInt32BE(0))],
    i32: [String(bytes.readInt32LE(0)), String(bytes.readInt32BE(0))],
    u64: [String(bytes.readBigUInt64LE(0)), String(bytes.readBigUInt64BE(0))],
    i64: [String(bytes.readBigInt64LE(0)), String(bytes.readBigInt64BE(0))],
    f32: [f(bytes.readFloatLE(0)), f(bytes.readFloatBE(0))],
    f64: [f(bytes.readDoubleLE(0)), f(bytes.readDoubleBE(0))],
  };
}

async function inspectorRows(page: Page): Promise<Record<string, [string, string]>> {
  return page.$$eval('[data-testid="data-inspector"] tbody tr[data-type]', (rows) =>
    Object.fromEntries(
      rows.map((r) => [
        r.getAttribute('data-type'),
        [
          r.querySelector('[data-order="le"]')?.textContent ?? '',
          r.querySelector('[data-order="be"]')?.textContent ?? '',
        ],
      ]),
    ),
  );
}

async function goTo(page: Page, offset: number): Promise<void> {
  await page.getByLabel('Go to offset').fill(String(offset));
  await page.getByLabel('Go to offset').press('Enter');
  await page.waitForFunction(
    (o) => document.querySelector('.hexcols .b.cur')?.getAttribute('data-offset') === String(o),
    offset,
  );
}

describe.skipIf(!ready)('data inspector, search, selection tools, field colours', () => {
  let site: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let dir: string;
  let offsets: string;
  let negativeZero: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-tools-'));
    offsets = join(dir, 'offsets.bin');
    writeOffsetFile(offsets, 1 << 20);
    negativeZero = join(dir, 'negative-zero.bin');
    writeFileSync(negativeZero, Buffer.from([0x80, 0, 0, 0, 0, 0, 0, 0, 0x41, 0x42, 0]));
    site = await startStaticServer(distDir, { spa: true });
    browser = await launchBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(files: string[]): Promise<Page> {
    const page = await browser.context.newPage();
    await page.goto(site.url);
    await page.getByTestId('drop-zone').waitFor();
    await pickFiles(page, files);
    await page.waitForSelector('.hexcols .b[data-offset="0"]:not(:empty)');
    return page;
  }

  it('the inspector reads the bytes at the cursor as every type, both orders, and keeps −0', async () => {
    const page = await open([offsets]);
    const data = readFileSync(offsets);
    for (const at of [0x100, 0x1235, 0xffff8]) {
      await goTo(page, at);
      await page.waitForFunction(
        (o) => document.querySelector('#inspector-h')?.textContent === `Bytes at 0x${o.toString(16)}`,
        at,
      );
      // The heading follows the cursor at once; the values come when the worker has read the
      // bytes there, and until then are the last cursor's: wait for this cursor's values.
      const expected = expectedNumbers(data.subarray(at, at + 8));
      await expect.poll(() => inspectorRows(page), POLL).toMatchObject(expected);
      const rows = await inspectorRows(page);
      for (const [type, values] of Object.entries(expected)) {
        expect(rows[type], `${type} at ${at}`).toEqual(values);
      }
    }
    await page.close();

    const zero = await open([negativeZero]);
    await zero.waitForFunction(() => !!document.querySelector('[data-testid="data-inspector"] tbody'));
    const rows = await inspectorRows(zero);
    expect(rows.f64[1]).toBe('-0');
    expect(rows.f32[1]).toBe('-0');
    expect(rows).toMatchObject(expectedNumbers(readFileSync(negativeZero)));
    await goTo(zero, 8);
    await zero.waitForFunction(() =>
      document
        .querySelector('[data-testid="data-inspector"] tr[data-type="utf8"] td')
        ?.textContent?.includes('AB'),
    );
    await zero.close();
  });

  it('search finds hex, text and numbers, next and previous, and selects the match', async () => {
    const page = await open([offsets]);
    const search = async (mode: string, query: string, backward = false) => {
      await page.getByLabel('Search for').selectOption(mode);
      await page.getByTestId('search-query').fill(query);
      await page.getByRole('button', { name: backward ? 'Previous match' : 'Next match' }).click();
      await page.waitForFunction(() => {
        const s = document.querySelector('[data-testid="search-status"]')?.textContent ?? '';
        return s !== '' && !s.startsWith('searching');
      });
      return (await page.getByTestId('search-status').textContent()) ?? '';
    };
    // A number: u32 LE 0x12340 sits at offset 0x12340 of the offsets file.
    await page.getByLabel('Search for').selectOption('number');
    await page.getByLabel('Number type').selectOption('u32');
    expect(await search('number', String(0x12340))).toBe('found at 0x12340');
    await page.waitForFunction(() => document.querySelectorAll('.hexcols .b.sel').length === 4);
    expect(
      await page.$$eval('.hexcols .b.sel', (els) => els.map((e) => Number(e.getAttribute('data-offset')))),
    ).toEqual([0x12340, 0x12341, 0x12342, 0x12343]);
    // Big-endian: the word 0x2340 (bytes 40 23 00 00) read as u32 BE is 0x40230000.
    await page.getByLabel('Byte order').selectOption('be');
    await goTo(page, 0);
    expect(await search('number', String(0x40230000))).toBe('found at 0x2340');
    // Hex: the word 0xabcd0 (bytes d0 bc 0a 00) is in the file once.
    await goTo(page, 0);
    expect(await search('hex', 'd0 bc 0a 00')).toBe('found at 0xabcd0');
    // The only match: next and previous go round the file to it again, and say so.
    expect(await search('hex', 'd0 bc 0a 00')).toBe('found at 0xabcd0 · wrapped to the start');
    expect(await search('hex', 'd0 bc 0a 00', true)).toBe('found at 0xabcd0 · wrapped to the end');
    // Every word of a 1 MiB offsets file has a zero top byte: four 0xff bytes are nowhere.
    expect(await search('hex', 'ff ff ff ff')).toBe('no match in the file');
    expect(await search('hex', 'zz')).toBe('hex digits only (0-9, a-f)');
    await page.close();

    // Text, next and previous, on a real file.
    const scbf = vector('scbf', 'basic', 'basic.scbf');
    if (!vectorsPresent) return;
    const bytes = readFileSync(scbf);
    const text = await open([scbf]);
    const first = bytes.indexOf('name');
    const second = bytes.indexOf('name', first + 1);
    await text.getByLabel('Search for').selectOption('text');
    await text.getByTestId('search-query').fill('name');
    for (const expected of [first, second]) {
      await text.getByRole('button', { name: 'Next match' }).click();
      await text.waitForFunction(
        (o) =>
          document.querySelector('[data-testid="search-status"]')?.textContent ===
          `found at 0x${o.toString(16)}`,
        expected,
      );
    }
    await text.getByRole('button', { name: 'Previous match' }).click();
    await text.waitForFunction(
      (o) =>
        document.querySelector('[data-testid="search-status"]')?.textContent ===
        `found at 0x${o.toString(16)}`,
      first,
    );
    await text.close();
  });

  it('a dragged range is copied as hex and base64 and saved as a file', async () => {
    const page = await open([offsets]);
    const data = readFileSync(offsets);
    const from = page.locator('.hexcols .b[data-offset="4"]');
    const to = page.locator('.hexcols .b[data-offset="37"]');
    await from.hover();
    await page.mouse.down();
    await to.hover();
    await page.mouse.up();
    // A mouse move is not a discrete event: the page draws the range it makes a moment later.
    await expect.poll(() => page.getByTestId('hex-selection').textContent(), POLL).toContain('(34 B)');
    const expected = data.subarray(4, 38);
    await page.getByRole('button', { name: 'copy hex' }).click();
    await page.getByTestId('selection-status').filter({ hasText: 'copied 34 B as hex' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      [...expected].map((b) => b.toString(16).padStart(2, '0')).join(' '),
    );
    await page.getByRole('button', { name: 'copy base64' }).click();
    await page.getByTestId('selection-status').filter({ hasText: 'as base64' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(expected.toString('base64'));
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'save bytes' }).click();
    const saved = join(resultsDir, 'selection.bin');
    await (await downloading).saveAs(saved);
    expect(readFileSync(saved).equals(expected)).toBe(true);
    await screenshot(page, 'drag-selection');
    await page.close();
  });

  it.skipIf(!vectorsPresent)(
    'the selected structure’s fields are coloured in turn in the hex view',
    async () => {
      const page = await open([vector('scbf', 'basic', 'basic.scbf')]);
      await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
      const header = await clickNode(page, 'header');
      await page.waitForFunction(() => document.querySelectorAll('.hexcols .b.fld').length > 0);
      const coloured = await page.$$eval('.hexcols .b.fld', (els) =>
        els.map((e) => ({
          offset: Number(e.getAttribute('data-offset')),
          field: [...e.classList].find((c) => /^f\d$/.test(c)),
        })),
      );
      for (const c of coloured) {
        expect(c.offset).toBeGreaterThanOrEqual(header.offset);
        expect(c.offset).toBeLessThan(header.offset + header.length);
      }
      expect(new Set(coloured.map((c) => c.field)).size).toBeGreaterThan(1);
      await screenshot(page, 'field-colours');
      await page.close();
    },
  );
});
