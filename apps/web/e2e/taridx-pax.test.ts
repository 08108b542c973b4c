import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeDirectory } from '@binscope/core/node';
import { indexShards } from '@binscope/taridx';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import { distDir, pickFiles } from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && existsSync(join(distDir, 'index.html'));

/**
 * A fold written by GNU tar `--format=posix`: a PAX `x` header named `./PaxHeaders/<name>`
 * before each member, with the member's key and extension. The index records them as rows;
 * the page lists and previews members only.
 */
describe.skipIf(!ready)('TARIDX over GNU tar --format=posix shards', () => {
  let site: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  const dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-pax-'));

  beforeAll(async () => {
    const src = join(dir, 'src');
    mkdirSync(src);
    writeFileSync(join(src, 'ü.cls'), '3');
    writeFileSync(join(src, 'ü.json'), '{"label": 3}');
    execFileSync('tar', ['--format=posix', '-cf', join(dir, 'train_0.tar'), '-C', src, 'ü.cls', 'ü.json']);
    const { bytes } = await indexShards({ directory: new NodeDirectory(dir), fold: 'train' });
    writeFileSync(join(dir, 'train.taridx'), bytes);
    site = await startStaticServer(distDir, { spa: true });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists each member once and previews the file, not its PAX record', async () => {
    const page: Page = await browser.context.newPage();
    await page.goto(site.url);
    await page.getByTestId('drop-zone').waitFor();
    await pickFiles(page, [join(dir, 'train.taridx'), join(dir, 'train_0.tar')]);
    await page.getByRole('tab', { name: 'Data' }).click();
    // Four rows in the index (x, ü.cls, x, ü.json), two members.
    const members = page.getByTestId('record-card').first().locator('table.nested tbody tr');
    await members.first().waitFor();
    expect(await members.evaluateAll((trs) => trs.map((tr) => tr.children[0].textContent))).toEqual([
      'cls',
      'json',
    ]);
    // The samples table reads each member's payload: the file, not its PAX record.
    await page.getByTestId('table-picker').selectOption('samples');
    const card = page.getByTestId('record-card').first();
    const cls = card.locator('dt', { hasText: /^cls/ }).locator('xpath=following-sibling::dd[1]');
    await cls.getByTestId('bytes-value').waitFor();
    expect(await cls.locator('pre').last().textContent()).toBe('3');
    expect(
      (await page.locator('[data-testid="column-picker"] label').allTextContents()).map((t) => t.trim()),
    ).toEqual([
      expect.stringMatching(/^key /),
      expect.stringMatching(/^cls /),
      expect.stringMatching(/^json /),
    ]);
    await page.close();
  });
});
