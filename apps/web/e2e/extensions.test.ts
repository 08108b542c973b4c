import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chromiumPresent, useSiteAndBrowser } from './browser';
import { detectedFormat, distDir, pickFiles, repoRoot, screenshot, waitForValidation } from './helpers';

// An SCBF file with the extension footer (block checksums, statistics, null bitmaps), written
// by the CLI as a user would: the page shows the null cells, the statistics and the checksums.

const cli = join(repoRoot, 'apps/cli/bin/binscope.js');
const ready = chromiumPresent && existsSync(join(distDir, 'index.html')) && existsSync(cli);
const scratch = mkdtempSync(join(tmpdir(), 'binscope-e2e-ext-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!ready)('SCBF extensions in the page', () => {
  const live = useSiteAndBrowser();

  it('null cells read "null", and the summary lists statistics and checksum status', async () => {
    const csv = join(scratch, 'scores.csv');
    writeFileSync(csv, 'id,score,name\n1,2.5,a\n,3.5,b\n3,,a\n');
    const file = join(scratch, 'scores.scbf');
    const made = spawnSync(process.execPath, [cli, 'convert', csv, file, '--nulls', '--extensions'], {
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);

    const page = await live.browser.context.newPage();
    await page.goto(live.site.url);
    await pickFiles(page, [file]);
    expect(await detectedFormat(page)).toBe('scbf');
    expect(await waitForValidation(page)).toMatchObject({ valid: true, errors: [] });
    const summary = (await page.locator('#summary-h').locator('..').textContent()) ?? '';
    expect(summary).toContain('block checksums (CRC32, 4 blocks; validate verifies)');
    expect(summary).toContain('null bitmaps (id, score)');
    expect(summary).toContain('min 2.5, max 3.5, nulls 1');

    await page.getByRole('tab', { name: 'Data' }).click();
    const rows = page.locator('[data-testid="records-table"] tbody tr');
    await rows.first().waitFor();
    const cells = await rows.evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')),
    );
    expect(cells.map((r) => r.slice(-3))).toEqual([
      ['1', '2.5', 'a'],
      ['null', '3.5', 'b'],
      ['3', 'null', 'a'],
    ]);
    await screenshot(page, 'scbf-extensions');
    await page.close();
  });
});
