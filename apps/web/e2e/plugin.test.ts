import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import {
  clickNode,
  detectedFormat,
  distDir,
  pickFiles,
  screenshot,
  treeNodes,
  waitForHighlight,
  waitForValidation,
} from './helpers';
import { type StaticServer, startStaticServer } from './server';
import { type ToyRecord, toyFile } from './toy-format';

const ready = chromiumPresent && existsSync(join(distDir, 'index.html'));

const RECORDS: ToyRecord[] = [
  { id: 7, score: 1.5, name: 'alpha' },
  { id: 8, score: -2.25, name: 'beta' },
  { id: 9, score: 1024, name: 'gamma' },
];

/**
 * Bundles the test's toy format (e2e/toy-format.ts, written against @binscope/core) into one
 * self-contained ES module, as a third party would publish a plugin for the page.
 */
async function bundleToyPlugin(outDir: string): Promise<string> {
  await build({
    configFile: false,
    logLevel: 'silent',
    build: {
      outDir,
      emptyOutDir: false,
      minify: false,
      lib: {
        entry: join(import.meta.dirname, 'toy-format.ts'),
        formats: ['es'],
        fileName: () => 'toy-plugin.js',
      },
    },
  });
  return join(outDir, 'toy-plugin.js');
}

/**
 * A format the app has never heard of, defined only in this test: loaded into the page with
 * `?plugin=` (same origin) or the plugin picker, it shows in the tree, hex and data views
 * with no edit to any app file. A plugin URL of another origin is refused.
 */
describe.skipIf(!ready)('a third-party format plugin, loaded into the page', () => {
  let site: StaticServer;
  let other: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  const dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-plugin-'));
  const toy = join(dir, 'three.toy');
  let plugin: string;

  beforeAll(async () => {
    plugin = await bundleToyPlugin(dir);
    writeFileSync(toy, toyFile(RECORDS));
    site = await startStaticServer(distDir, { spa: true, extra: { '/plugins/toy.js': plugin } });
    other = await startStaticServer(dir, { cors: true });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([site?.close(), other?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  async function page(query = ''): Promise<Page> {
    const p = await browser.context.newPage();
    await p.goto(`${site.url}/${query}`);
    await p.getByTestId('drop-zone').waitFor();
    return p;
  }

  it('?plugin= loads it: the toy file opens with its tree, hex view, validation and data', async () => {
    const p = await page('?plugin=/plugins/toy.js');
    // The format list the page names formats from now has it.
    await p.waitForFunction(() =>
      document.querySelector('[data-testid="drop-formats"]')?.textContent?.includes('TOY'),
    );
    await pickFiles(p, [toy]);
    expect(await detectedFormat(p)).toBe('toy');
    expect(await waitForValidation(p)).toMatchObject({ valid: true, errors: [] });

    // Tree → hex: a record's name field highlights exactly its 8 bytes.
    await p.locator('[data-testid="tree-node"][data-name="records"]').waitFor();
    await p.locator('[data-testid="tree-node"][data-name="records"] .twisty').click();
    await p.locator('[data-testid="tree-node"][data-name="record 1"] .twisty').click();
    // The expanded record's children render after the click: wait for them, then count.
    await p.locator('[data-testid="tree-node"][data-name="name"]').first().waitFor();
    const names = (await treeNodes(p)).filter((n) => n.name === 'name');
    expect(names).toHaveLength(1);
    const field = await clickNode(p, 'name');
    expect(field.offset).toBe(8 + 16 + 8);
    expect(await waitForHighlight(p)).toEqual(Array.from({ length: 8 }, (_, i) => field.offset + i));
    await screenshot(p, 'plugin-toy-structure');

    // Data: the records by their schema; a cell's bytes are the value shown.
    await p.getByRole('tab', { name: 'Data' }).click();
    const rows = p.locator('[data-testid="records-table"] tbody tr');
    await rows.first().waitFor();
    const cells = await rows.evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())),
    );
    expect(cells).toEqual(RECORDS.map((r) => [String(r.id), String(r.score), r.name]));
    await screenshot(p, 'plugin-toy-data');
    const score = p.locator('[data-testid="records-table"] tbody tr').nth(1).getByTestId('bytes-cell').nth(1);
    expect(Number(await score.getAttribute('data-offset'))).toBe(8 + 16 + 4);
    await score.click();
    // The structure tab's hex view starts anew: its cells read '··' until their bytes arrive.
    await p.waitForFunction(() => {
      const cells = [...document.querySelectorAll('.hexcols .b.sel')];
      return cells.length === 4 && cells.every((c) => c.textContent !== '··');
    });
    const bytes = await p.$$eval('.hexcols .b.sel', (els) =>
      els.map((e) => Number.parseInt(e.textContent ?? '', 16)),
    );
    expect(new DataView(Uint8Array.from(bytes).buffer).getFloat32(0, true)).toBe(RECORDS[1].score);

    // Its second table, picked by name: the header's magic as bytes.
    await p.getByRole('tab', { name: 'Data' }).click();
    await p.getByTestId('table-picker').selectOption('header');
    await p.getByTestId('record-card').first().waitFor();
    expect(await p.getByTestId('record-card').first().textContent()).toContain('TOYF');
    await p.close();
  });

  it('the plugin picker loads it from a file', async () => {
    const p = await page();
    await p.getByTestId('plugin-input').setInputFiles(plugin);
    await p.getByTestId('plugin-loaded').waitFor();
    await pickFiles(p, [toy]);
    expect(await detectedFormat(p)).toBe('toy');
    await p.locator('[data-testid="tree-node"][data-name="header"]').waitFor();
    await p.close();
  });

  it('a plugin from another origin is refused, and the file stays unknown', async () => {
    const p = await page(`?plugin=${encodeURIComponent(`${other.url}/toy-plugin.js`)}`);
    const failure = p.getByTestId('failure');
    await failure.waitFor();
    expect(await failure.textContent()).toContain('refused');
    await pickFiles(p, [toy]);
    expect(await detectedFormat(p)).toBe('unknown');
    // Nothing was fetched from the other origin.
    expect(other.served.size).toBe(0);
    await p.close();
  });

  it('without a plugin the toy file is unknown (the app has no such format)', async () => {
    const p = await page();
    await pickFiles(p, [toy]);
    expect(await detectedFormat(p)).toBe('unknown');
    expect(readFileSync(toy).subarray(0, 4).toString()).toBe('TOYF');
    await p.close();
  });
});
