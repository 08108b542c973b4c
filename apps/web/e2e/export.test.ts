import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from './browser';
import {
  BASIC,
  cat,
  choose,
  download,
  LARGE,
  nextPage,
  OPFS_PICKER,
  openData,
  ready,
  SAMPLE,
  SHOWN,
  sha256,
  WHOLE,
} from './export-helpers';
import { distDir, screenshot } from './helpers';
import { violations } from './a11y-check';
import { type StaticServer, startStaticServer } from './server';

/** A converter plugin written for the test (e2e/toy-export.ts), bundled as a third party would. */
async function bundleToyExport(outDir: string): Promise<string> {
  await build({
    configFile: false,
    logLevel: 'silent',
    build: {
      outDir,
      emptyOutDir: false,
      minify: false,
      lib: {
        entry: join(import.meta.dirname, 'toy-export.ts'),
        formats: ['es'],
        fileName: () => 'toy-export.js',
      },
    },
  });
  return join(outDir, 'toy-export.js');
}

describe.skipIf(!ready)('Export on the data view', () => {
  let site: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  const dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-export-'));

  beforeAll(async () => {
    const plugin = await bundleToyExport(dir);
    site = await startStaticServer(distDir, { spa: true, extra: { '/plugins/toy-export.js': plugin } });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function page(query = ''): Promise<Page> {
    const p = await browser.context.newPage();
    await p.addInitScript(OPFS_PICKER);
    await p.goto(`${site.url}/${query}`);
    await p.getByTestId('drop-zone').waitFor();
    return p;
  }

  it('SCBF: the records shown, as CSV and JSON Lines, are byte for byte what `cat` prints', async () => {
    const p = await page();
    await openData(p, LARGE);
    await nextPage(p, '50–99', 50);
    const csv = await download(p, 'CSV (.csv)', SHOWN);
    expect(csv.equals(cat(LARGE, '--format', 'csv', '--offset', '50', '-n', '50'))).toBe(true);
    const jsonl = await download(p, 'JSON Lines (.jsonl)', SHOWN);
    expect(jsonl.toString().split('\n')).toHaveLength(51);
    expect(jsonl.equals(cat(LARGE, '--format', 'jsonl', '--offset', '50', '-n', '50'))).toBe(true);

    // Only the fields read are exported.
    await p.locator('[data-testid="column-picker"] label', { hasText: 'flag' }).locator('input').uncheck();
    const some = await download(p, 'CSV (.csv)', SHOWN);
    const expected = cat(
      LARGE,
      '--format',
      'csv',
      '--offset',
      '50',
      '-n',
      '50',
      '--columns',
      'id,category,value,label',
    );
    expect(some.equals(expected)).toBe(true);
    await screenshot(p, 'export-control');

    // By keyboard: the control opens from its summary and each input has its label.
    await p.reload();
    await openData(p, LARGE);
    const control = p.getByTestId('export');
    await control.locator('summary').focus();
    await p.keyboard.press('Enter');
    expect(await control.getAttribute('open')).not.toBeNull();
    await p.keyboard.press('Tab');
    expect(await p.evaluate(() => document.activeElement?.id)).toBe(
      await control.getByLabel('export as', { exact: true }).getAttribute('id'),
    );
    expect(await violations(p)).toEqual([]);
    await p.close();
  });

  it('SCBF: the whole table streams into a picked file, equal to `cat`; a download too', async () => {
    const p = await page();
    await openData(p, LARGE);
    await choose(p, 'CSV (.csv)', WHOLE);
    await p.getByRole('button', { name: 'Save to a file…' }).click();
    await p.getByTestId('export-done').waitFor();
    expect(await p.getByTestId('export-done').textContent()).toContain('saved large_100k.csv');
    const written = await p.evaluate(async () => {
      const root = await navigator.storage.getDirectory();
      const file = await (await root.getFileHandle('large_100k.csv')).getFile();
      const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
      return {
        size: file.size,
        sha: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join(''),
      };
    });
    const all = cat(LARGE, '--format', 'csv');
    expect(written).toEqual({ size: all.byteLength, sha: sha256(all) });
    expect(await p.getByTestId('export-sha256').textContent()).toBe(sha256(all));

    const jsonl = await download(p, 'JSON Lines (.jsonl)', WHOLE);
    expect(sha256(jsonl)).toBe(sha256(cat(LARGE, '--format', 'jsonl')));
    await p.close();
  });

  it('MLDF sample: JSON Lines of the shown records equal `cat`; CSV needs flat fields, as in the CLI', async () => {
    const p = await page();
    await openData(p, SAMPLE);
    const jsonl = await download(p, 'JSON Lines (.jsonl)', SHOWN);
    const shown = jsonl.toString().trimEnd().split('\n').length;
    expect(shown).toBeGreaterThan(1);
    expect(jsonl.equals(cat(SAMPLE, '--format', 'jsonl', '-n', String(shown)))).toBe(true);

    await choose(p, 'CSV (.csv)', SHOWN);
    await p.getByTestId('export-download').click();
    const error = p.getByTestId('export-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/"image", "embedding", "meta" hold lists or objects/);

    const fields = p.locator('[data-testid="column-picker"] label');
    for (const name of ['image', 'embedding', 'meta'])
      await p
        .getByTestId('column-picker')
        .getByRole('checkbox', { name: new RegExp(`^${name}\\b`) })
        .uncheck();
    const csv = await download(p, 'CSV (.csv)', SHOWN);
    const read = await fields.evaluateAll((els) =>
      els.filter((e) => e.querySelector('input')?.checked).map((e) => e.textContent?.trim().split(' ')[0]),
    );
    expect(csv.equals(cat(SAMPLE, '--format', 'csv', '-n', String(shown), '--columns', read.join(',')))).toBe(
      true,
    );
    await screenshot(p, 'export-mldf');
    await p.close();
  });

  it("a converter from any format that a plugin registers is offered and gets exactly the export's records", async () => {
    const p = await page('?plugin=/plugins/toy-export.js');
    await openData(p, LARGE);
    await nextPage(p, '50–99', 50);
    const tsv = (await download(p, 'Toy TSV (.toytsv)', SHOWN)).toString();
    const rows = cat(LARGE, '--format', 'jsonl', '--offset', '50', '-n', '50')
      .toString()
      .trimEnd()
      .split('\n')
      .map((l) => Object.values(JSON.parse(l)).map(String).join('\t'));
    expect(tsv).toBe(`id\tcategory\tvalue\tflag\tlabel\n${rows.join('\n')}\n`);

    await openData(p, BASIC);
    const whole = (await download(p, 'Toy TSV (.toytsv)', WHOLE)).toString();
    expect(whole.trimEnd().split('\n')).toHaveLength(1 + 6);
    await p.close();
  });

  it('cancel stops an export and leaves no file behind', async () => {
    const p = await page('?plugin=/plugins/toy-export.js');
    await openData(p, BASIC);
    await choose(p, 'Toy wait (.toywait)', WHOLE);
    await p.getByRole('button', { name: 'Save to a file…' }).click();
    const progress = p.getByTestId('export-progress');
    await progress.filter({ hasText: 'waiting to be cancelled' }).waitFor();
    await screenshot(p, 'export-progress');
    await p.getByTestId('export').getByRole('button', { name: 'cancel' }).click();
    await progress.waitFor({ state: 'detached' });
    expect(await p.getByTestId('export-done').count()).toBe(0);
    expect(await p.getByTestId('export-error').count()).toBe(0);
    // The picked file was created empty by the picker; the 300 KiB written before cancel were discarded.
    const size = await p.evaluate(async () => {
      const root = await navigator.storage.getDirectory();
      return (await (await root.getFileHandle('basic.toywait')).getFile()).size;
    });
    expect(size).toBe(0);
    await p.close();
  });
});
