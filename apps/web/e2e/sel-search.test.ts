import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { violations } from './a11y-check';
import { chromiumPresent, launchBrowser } from './browser';
import { writeOffsetFile } from './generated';
import { clickNode, distDir, pickFiles, treeNodes, vector, vectorsPresent } from './helpers';
import { type StaticServer, startStaticServer } from './server';

// Issue #35: a selection's CRC-32 and SHA-256, the list of all matches, and regular
// expressions in text search. Node's own hashes and searches over the same bytes are the reference.

const ready = chromiumPresent && existsSync(join(distDir, 'index.html')) && vectorsPresent;

function reference(bytes: Buffer) {
  return {
    crc32: crc32(bytes).toString(16).padStart(8, '0'),
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

/** Every offset where `needle` starts in `bytes` (overlapping ones too, as the page lists them). */
function offsetsOf(bytes: Buffer, needle: Buffer): number[] {
  const out: number[] = [];
  for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle, i + 1)) out.push(i);
  return out;
}

describe.skipIf(!ready)('selection hashes, all matches, regular expressions', () => {
  let site: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-sel-search-'));
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

  async function hashes(page: Page): Promise<{ crc32: string; sha256: string }> {
    await page.getByRole('button', { name: 'hashes', exact: true }).click();
    await page.getByTestId('hash-sha-256').waitFor();
    return {
      crc32: (await page.getByTestId('hash-crc-32').textContent()) ?? '',
      sha256: (await page.getByTestId('hash-sha-256').textContent()) ?? '',
    };
  }

  it('a selected node’s CRC-32 and SHA-256 are those of its bytes, and copy', async () => {
    const file = vector('scbf', 'basic', 'basic.scbf');
    const page = await open([file]);
    await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
    const node = await clickNode(page, 'header');
    expect(node.length).toBeGreaterThan(0);
    const expected = reference(readFileSync(file).subarray(node.offset, node.offset + node.length));
    expect(await hashes(page)).toEqual(expected);
    await page.getByRole('button', { name: 'copy SHA-256' }).click();
    await page.getByTestId('hash-status').filter({ hasText: 'copied SHA-256' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(expected.sha256);
    await page.getByRole('button', { name: 'copy CRC-32' }).click();
    await page.getByTestId('hash-status').filter({ hasText: 'copied CRC-32' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(expected.crc32);
    // Another selection: the hashes shown were of the old one, so they go.
    const other = (await treeNodes(page)).find(
      (n) => n.length > 0 && (n.offset !== node.offset || n.length !== node.length),
    );
    await clickNode(page, other!.name);
    await page.getByTestId('hash-sha-256').waitFor({ state: 'detached' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await hashes(page);
    await page.screenshot({ path: '/tmp/sel-search-hashes-1280.png' });
    await page.setViewportSize({ width: 400, height: 800 });
    await page.screenshot({ path: '/tmp/sel-search-hashes-400.png', fullPage: true });
    await page.close();
  });

  it('a range of several hashing chunks is hashed whole', async () => {
    // 9 MiB and one byte: more than two of the worker's 4 MiB chunks, the last one short.
    const file = join(dir, 'offsets.bin');
    writeOffsetFile(file, (9 << 20) + 1);
    const page = await open([file]);
    await page.locator('.hexcols .b[data-offset="0"]').click();
    await page.getByRole('grid').press('Control+Shift+End');
    await page
      .getByTestId('hex-selection')
      .filter({ hasText: `(${(9 << 20) + 1} B)` })
      .waitFor();
    expect(await hashes(page)).toEqual(reference(readFileSync(file)));
    await page.close();
  });

  async function listAll(page: Page, mode: string, query: string, regex = false): Promise<void> {
    // The last list stays until the new one replaces it, and two searches can have the same count
    // ("1 match"): close it first, so the count waited for is the new search's.
    const results = page.getByTestId('search-results');
    if ((await results.count()) > 0) {
      await page.getByRole('button', { name: 'Close the list of matches' }).click();
      await results.waitFor({ state: 'detached' });
    }
    await page.getByLabel('Search for').selectOption(mode);
    if (mode === 'text') await page.getByTestId('search-regex').setChecked(regex);
    await page.getByTestId('search-query').fill(query);
    await page.getByRole('button', { name: 'List all matches' }).click();
  }
  const listed = (page: Page) =>
    page.$$eval('[data-testid="search-results"] li button', (els) =>
      els.map((e) => Number(e.getAttribute('data-offset'))),
    );

  it('lists every match of bytes, as Node finds them, and a match selects its bytes', async () => {
    // Over 1 MiB: matches past the worker's first window are found too.
    const file = vector('scbf', 'large_100k', 'large_100k.scbf');
    const bytes = readFileSync(file);
    const page = await open([file]);
    const zeros = offsetsOf(bytes, Buffer.from([0, 0]));
    expect(zeros.length).toBeGreaterThan(1);
    expect(zeros.length).toBeLessThan(1000);
    expect(zeros.at(-1)).toBeGreaterThan(1 << 20);
    await listAll(page, 'hex', '00 00');
    await page
      .getByTestId('search-count')
      .filter({ hasText: `${zeros.length} matches` })
      .waitFor();
    expect(await listed(page)).toEqual(zeros);
    expect(await page.getByTestId('search-more').count()).toBe(0);
    // Past the limit: the first 1,000, in order, and a note that there are more.
    const braces = offsetsOf(bytes, Buffer.from('{'));
    expect(braces.length).toBeGreaterThan(1000);
    await listAll(page, 'text', '{');
    await page.getByTestId('search-count').filter({ hasText: '1,000+ matches' }).waitFor();
    await page.getByTestId('search-more').waitFor();
    expect(await listed(page)).toEqual(braces.slice(0, 1000));
    // Regular expressions over the worker's 1 MiB windows: `^` is the file's start only, and a
    // match across a window boundary is found whole.
    await listAll(page, 'text', '^[\\s\\S]', true);
    await page.getByTestId('search-count').filter({ hasText: '1 match' }).waitFor();
    expect(await listed(page)).toEqual([0]);
    const across = [...bytes.subarray((1 << 20) - 8, (1 << 20) + 8)]
      .map((b) => `\\x${b.toString(16).padStart(2, '0')}`)
      .join('');
    const acrossAt = [...bytes.toString('latin1').matchAll(new RegExp(across, 'g'))].map((m) => m.index);
    expect(acrossAt).toContain((1 << 20) - 8);
    await listAll(page, 'text', across, true);
    await page
      .getByTestId('search-count')
      .filter({ hasText: `${acrossAt.length} match` })
      .waitFor();
    expect(await listed(page)).toEqual(acrossAt);
    await listAll(page, 'text', '{', false);
    await page.getByTestId('search-more').waitFor();
    const pick = braces[700];
    await page.locator(`[data-testid="search-results"] button[data-offset="${pick}"]`).click();
    await page.waitForFunction(
      (o) => document.querySelector('.hexcols .b.sel')?.getAttribute('data-offset') === String(o),
      pick,
    );
    expect(
      await page.$$eval('.hexcols .b.sel', (els) => els.map((e) => Number(e.getAttribute('data-offset')))),
    ).toEqual([pick]);
    await page.close();
  });

  it('a regular expression finds its matches at the offsets Node finds, and a bad one says so', async () => {
    const file = vector('taridx', 'ustar_flat_2shards', 'train_0000.tar');
    const text = readFileSync(file).toString('latin1');
    const pattern = '"caption": "sample \\d+"';
    const expected = [...text.matchAll(new RegExp(pattern, 'g'))].map((m) => [m.index, m[0].length]);
    expect(expected.length).toBeGreaterThan(1);
    const page = await open([file]);
    // Without the checkbox the same characters are plain text, found nowhere.
    await listAll(page, 'text', pattern, false);
    await page.getByTestId('search-count').filter({ hasText: 'no match in the file' }).waitFor();
    await listAll(page, 'text', pattern, true);
    await page
      .getByTestId('search-count')
      .filter({ hasText: `${expected.length} matches` })
      .waitFor();
    expect(await listed(page)).toEqual(expected.map(([offset]) => offset));
    // Next match: the first one, all of its bytes selected.
    await page.getByRole('button', { name: 'Next match' }).click();
    await page
      .getByTestId('search-status')
      .filter({ hasText: `found at 0x${expected[0][0].toString(16)}` })
      .waitFor();
    expect(await page.getByTestId('hex-selection').textContent()).toContain(`(${expected[0][1]} B)`);
    // The list of matches and the hashes shown: axe-core finds nothing wrong with them.
    await page.getByRole('button', { name: 'hashes', exact: true }).click();
    await page.getByTestId('hash-sha-256').waitFor();
    expect(await violations(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: '/tmp/sel-search-matches-1280.png' });
    await page.setViewportSize({ width: 400, height: 800 });
    await page.screenshot({ path: '/tmp/sel-search-matches-400.png', fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    // An invalid expression: a message, and the page goes on working.
    await page.getByTestId('search-query').fill('caption(');
    await page.getByRole('button', { name: 'Next match' }).click();
    await page.getByTestId('search-status').filter({ hasText: 'invalid regular expression' }).waitFor();
    await page.getByRole('button', { name: 'List all matches' }).click();
    await page.getByTestId('search-status').filter({ hasText: 'invalid regular expression' }).waitFor();
    // The list of the same count is still shown: listAll closes it, so the count is the new list's.
    await listAll(page, 'text', 'caption', true);
    await page
      .getByTestId('search-count')
      .filter({ hasText: `${expected.length} matches` })
      .waitFor();
    await page.close();
  });
});
