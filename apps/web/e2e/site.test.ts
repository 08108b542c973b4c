import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, CHROMIUM, launchBrowser } from './browser';
import {
  clickNode,
  detectedFormat,
  distDir,
  dropFiles,
  type NodeInfo,
  pickFiles,
  pickFolder,
  resultsDir,
  screenshot,
  treeNodes,
  vector,
  vectorsDir,
  vectorsPresent,
  waitForHighlight,
  waitForValidation,
} from './helpers';
import { type StaticServer, startStaticServer } from './server';

const sitePresent = existsSync(join(distDir, 'index.html'));
if (!chromiumPresent)
  console.warn(`e2e skipped: no chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
if (!vectorsPresent)
  console.warn(`e2e vector tests skipped: no vectors at ${vectorsDir} (set BINSCOPE_VECTORS)`);
if (!sitePresent)
  console.warn(`e2e skipped: ${distDir} has no built site (run vite build; the e2e script does)`);

const ready = chromiumPresent && sitePresent;
// Under CI a skipped e2e run would pass while proving nothing: fail, naming what is missing.
if (['1', 'true'].includes((process.env.CI ?? '').toLowerCase()) && !(ready && vectorsPresent)) {
  const missing = [
    !chromiumPresent && `chromium at ${CHROMIUM}`,
    !sitePresent && `the built site in ${distDir}`,
    !vectorsPresent && `vectors at ${vectorsDir}`,
  ].filter(Boolean);
  throw new Error(`CI: e2e cannot run without ${missing.join(', ')}`);
}

describe.skipIf(!ready)('the built site in chromium', () => {
  let site: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    site = await startStaticServer(distDir, { spa: true });
    browser = await launchBrowser();
    context = browser.context;
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  async function newPage(): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(site.url);
    await page.getByTestId('drop-zone').waitFor();
    return page;
  }

  /**
   * The structure checks every format gets: tree nodes are there, clicking a node
   * highlights exactly its bytes, and clicking a byte selects the node that owns it.
   */
  async function checkTreeAndHex(page: Page, expectedNames: string[]): Promise<NodeInfo> {
    await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
    const nodes = await treeNodes(page);
    expect(nodes.length).toBeGreaterThan(1);
    const names = nodes.map((n) => n.name);
    for (const name of expectedNames) expect(names).toContain(name);

    // Tree → hex: a small node, so its whole range is on screen.
    const small =
      nodes.slice(1).find((n) => n.length > 1 && n.length <= 256) ??
      nodes.slice(1).find((n) => n.length > 0)!;
    await clickNode(page, small.name);
    const highlighted = await waitForHighlight(page);
    expect(highlighted[0]).toBe(small.offset);
    expect(highlighted).toEqual(
      Array.from({ length: Math.min(small.length, highlighted.length) }, (_, i) => small.offset + i),
    );
    if (small.length <= 256) expect(highlighted.length).toBe(small.length);
    expect(await page.getByTestId('hex-selection').textContent()).toContain(`(${small.length} B)`);

    // Hex → tree: click a byte of another node; the selected tree node must own it.
    const other = (await treeNodes(page)).find(
      (n) =>
        n.length > 0 &&
        n.name !== small.name &&
        (n.offset < small.offset || n.offset >= small.offset + small.length),
    );
    if (other) {
      await page.getByLabel('Go to offset').fill(String(other.offset));
      await page.getByLabel('Go to offset').press('Enter');
      const cell = page.locator(`.hexcols .b[data-offset="${other.offset}"]`);
      await cell.click();
      await page.waitForFunction((offset) => {
        const el = document.querySelector('[data-testid="tree-node"][aria-selected="true"]');
        if (!el) return false;
        const start = Number(el.getAttribute('data-offset'));
        return start <= offset && offset < start + Number(el.getAttribute('data-length'));
      }, other.offset);
      const owner = (await treeNodes(page)).find((n) => n.selected)!;
      expect(owner.offset).toBeLessThanOrEqual(other.offset);
      expect(owner.offset + owner.length).toBeGreaterThan(other.offset);
    }
    return small;
  }

  it('starts with an empty drop zone', async () => {
    const page = await newPage();
    expect(await page.getByRole('button', { name: 'Open files…' }).isVisible()).toBe(true);
    await screenshot(page, 'empty');
    await page.close();
  });

  describe.skipIf(!vectorsPresent)('vectors', () => {
    it('SCBF through the file picker: format, tree ↔ hex, valid, table', async () => {
      const page = await newPage();
      await pickFiles(page, [vector('scbf', 'basic', 'basic.scbf')]);
      expect(await detectedFormat(page)).toBe('scbf');
      await checkTreeAndHex(page, []);
      const validation = await waitForValidation(page);
      expect(validation).toMatchObject({ valid: true, errors: [] });
      await screenshot(page, 'scbf-structure');
      await page.getByRole('tab', { name: 'Data' }).click();
      const rows = page.locator('[data-testid="records-table"] tbody tr');
      await rows.first().waitFor();
      expect(await rows.count()).toBeGreaterThan(0);
      // Column selection: unticking a column removes it from the table.
      const headers = () =>
        page.$$eval('[data-testid="records-table"] thead th', (els) => els.map((e) => e.textContent));
      const first = (await page.locator('[data-testid="column-picker"] label').first().textContent())!
        .trim()
        .split(' ')[0];
      expect(await headers()).toContain(first);
      await page.locator('[data-testid="column-picker"] input').first().uncheck();
      await page.waitForFunction(
        (name) =>
          ![...document.querySelectorAll('[data-testid="records-table"] thead th')].some(
            (e) => e.textContent === name,
          ),
        first,
      );
      await screenshot(page, 'scbf-data');
      await page.close();
    });

    it('UDF through the file picker', async () => {
      const page = await newPage();
      await pickFiles(page, [vector('udf', 'nested_text_json', 'nested_text_json.udf')]);
      expect(await detectedFormat(page)).toBe('udf');
      await checkTreeAndHex(page, []);
      expect(await waitForValidation(page)).toMatchObject({ valid: true, errors: [] });
      await screenshot(page, 'udf-structure');
      await page.getByRole('tab', { name: 'Data' }).click();
      // The tables the file holds are listed by reading it; one table's rows are its values.
      const expected = JSON.parse(readFileSync(vector('udf', 'nested_text_json', 'expected.json'), 'utf8'));
      const ids: string[] = expected.datasets
        .flatMap((d: { tables: Array<{ key_name: string; values?: unknown[] }> }) => d.tables)
        .find((t: { key_name: string }) => t.key_name === 'poly_ids')
        .values.map(String);
      const picker = page.getByTestId('table-picker');
      // The picker shows before the listed tables arrive: wait for the one this test reads.
      await picker.locator('option', { hasText: '/poly_ids' }).waitFor({ state: 'attached' });
      const label = (await picker.locator('option').allTextContents()).find((t) => t.includes('/poly_ids'));
      expect(label).toBe(`children[1]/poly_ids (${ids.length})`);
      await picker.selectOption({ label: label! });
      const cells = page.locator('[data-testid="records-table"] tbody tr td:last-child');
      await page.waitForFunction(
        (n) => document.querySelectorAll('[data-testid="records-table"] tbody tr').length === n,
        ids.length,
      );
      expect((await cells.allTextContents()).map((t) => t.trim())).toEqual(ids);
      await screenshot(page, 'udf-data');
      await page.close();
    });

    it('MLDF by drag and drop', async () => {
      const page = await newPage();
      await dropFiles(page, [vector('mldf', 'ndarray_image', 'ndarray_image.mldf')]);
      expect(await detectedFormat(page)).toBe('mldf');
      await checkTreeAndHex(page, []);
      expect(await waitForValidation(page)).toMatchObject({ valid: true, errors: [] });
      await screenshot(page, 'mldf-structure');
      await page.getByRole('tab', { name: 'Data' }).click();
      await page.getByTestId('record-card').first().waitFor();
      // ndarray_image has an IMAGE_RAW field: every sample's image is drawn on a canvas.
      await page.getByTestId('image-value').first().waitFor();
      const expected = JSON.parse(readFileSync(vector('mldf', 'ndarray_image', 'expected.json'), 'utf8'));
      expect(await page.getByTestId('record-card').count()).toBe(expected.header.num_samples);
      expect(await page.getByTestId('image-value').count()).toBe(expected.header.num_samples);
      await screenshot(page, 'mldf-data');
      await page.close();
    });

    it('TARIDX picked together with its tar shards', async () => {
      const dir = vector('taridx', 'ustar_flat_2shards');
      const page = await newPage();
      await pickFiles(
        page,
        readdirSync(dir)
          .filter((f) => f.endsWith('.tar') || f.endsWith('.taridx'))
          .map((f) => join(dir, f)),
      );
      expect(await detectedFormat(page)).toBe('taridx');
      await checkTreeAndHex(page, []);
      expect(await waitForValidation(page)).toMatchObject({ valid: true, errors: [] });
      await screenshot(page, 'taridx-structure');
      await page.getByRole('tab', { name: 'Data' }).click();
      const cards = page.getByTestId('record-card');
      await cards.first().waitFor();
      // With the shards open, keys come from the tar headers and payloads can be read.
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
      const first = expected.samples[0];
      expect(await cards.first().textContent()).toContain(first.key ?? first.stem);
      // The samples table reads each member's payload: the first one's bytes, as in its shard.
      const member = first.members[0];
      const payload = readdirSync(dir)
        .filter((f) => f.endsWith('.tar'))
        .map((f) => readFileSync(join(dir, f)).subarray(512, 512 + member.size))
        .find((b) => createHash('sha256').update(b).digest('hex') === member.sha256);
      expect(payload).toBeDefined();
      await page.getByTestId('table-picker').selectOption('samples');
      const value = page.getByTestId('record-card').first().getByTestId('bytes-value').first();
      await value.waitFor();
      const hex = [...payload!.subarray(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
      expect(await value.textContent()).toContain(hex);
      await screenshot(page, 'taridx-data');
      await page.close();
    });

    it('SCDL archive through the folder picker', async () => {
      const page = await newPage();
      await pickFolder(page, vector('scdl', 'basic_float32_raw', 'archive'));
      expect(await detectedFormat(page)).toBe('scdl');
      await checkTreeAndHex(page, []);
      expect(await waitForValidation(page)).toMatchObject({ valid: true, errors: [] });
      await screenshot(page, 'scdl-structure');
      await page.getByRole('tab', { name: 'Data' }).click();
      const firstRow = page.getByTestId('record-card').first();
      await firstRow.waitFor();
      // Row 0's column indices and values (per expected.json).
      const expected = JSON.parse(readFileSync(vector('scdl', 'basic_float32_raw', 'expected.json'), 'utf8'));
      const row0 = expected.matrix.rows[0];
      expect(row0.col_indices.length).toBeGreaterThan(1);
      const rowText = (await firstRow.textContent()) ?? '';
      expect(rowText).toContain(row0.col_indices.join(', '));
      expect(rowText).toContain(row0.values.join(', '));
      await screenshot(page, 'scdl-data');
      await page.close();
    });

    it('converts a dropped .h5ad to SCDL: the downloaded zip matches upstream byte for byte, and opens', async () => {
      const caseDir = vector('scdl', 'uint16_counts_from_X');
      const conversion = JSON.parse(readFileSync(join(caseDir, 'source', 'conversion.json'), 'utf8'));
      const expected = JSON.parse(readFileSync(join(caseDir, 'expected.json'), 'utf8'));
      const page = await newPage();
      await pickFiles(page, [join(caseDir, 'source', conversion.inputs[0])]);
      expect(await detectedFormat(page)).toBe('h5ad');
      // Read before it is converted: its summary, and the rows of X in the data view.
      expect(Number(await page.getByTestId('count-obs').textContent())).toBe(expected.matrix.num_rows);
      await page.getByRole('tab', { name: 'Data' }).click();
      await page.getByTestId('record-card').first().waitFor();
      await screenshot(page, 'h5ad-data');
      // The options upstream used (conversion.json), set the way a user would.
      await page.getByRole('tab', { name: 'Convert to SCDL' }).click();
      await page.getByLabel('dataDtype').selectOption(conversion.data_dtype);
      if (conversion.matrix === 'X') await page.getByLabel('useX').check();
      await screenshot(page, 'h5ad-convert');
      const downloading = page.waitForEvent('download');
      await page.getByTestId('convert-download').click();
      const download = await downloading;
      const zipPath = join(resultsDir, download.suggestedFilename());
      await download.saveAs(zipPath);
      const unzipped = unzipSync(readFileSync(zipPath));
      const top = Object.keys(unzipped)[0].split('/')[0];
      for (const name of ['header.sch', 'data.npy', 'row_ptr.npy', 'col_ptr.npy']) {
        const ours = unzipped[`${top}/${name}`];
        expect(ours, name).toBeDefined();
        expect(
          Buffer.from(ours).equals(readFileSync(join(caseDir, 'archive', name))),
          `${name} is byte-identical`,
        ).toBe(true);
      }
      await page.getByTestId('convert-done').waitFor();
      await screenshot(page, 'h5ad-converted');
      await page.getByTestId('open-converted').click();
      await page.waitForFunction(
        () => document.querySelector('[data-testid="format"]')?.getAttribute('data-format') === 'scdl',
      );
      expect(await waitForValidation(page)).toMatchObject({ valid: true, errors: [] });
      await screenshot(page, 'h5ad-opened');
      await page.close();
    });

    it('a value the data dtype cannot hold is refused, and converts once the lossy cast is ticked (C10)', async () => {
      const page = await newPage();
      await pickFiles(page, [vector('scdl', 'basic_float32_raw', 'source', 'input.h5ad')]);
      expect(await detectedFormat(page)).toBe('h5ad');
      await page.getByRole('tab', { name: 'Convert to SCDL' }).click();
      await page.getByLabel('dataDtype').selectOption('uint8');
      await page.getByTestId('convert-download').click();
      const refusal = (await page.getByTestId('convert-error').textContent()) ?? '';
      expect(refusal).toContain('value 1.25 cannot be stored as uint8 (not a whole number)');
      await page.getByLabel('lossyCast').check();
      const downloading = page.waitForEvent('download');
      await page.getByTestId('convert-download').click();
      await downloading;
      await page.getByTestId('convert-done').waitFor();
      await page.close();
    });

    it('an invalid file shows its error, and the error jumps to its offset', async () => {
      const page = await newPage();
      await pickFiles(page, [vector('scbf', 'invalid', 'corrupt_zlib.scbf')]);
      expect(await detectedFormat(page)).toBe('scbf');
      const validation = await waitForValidation(page);
      expect(validation.valid).toBe(false);
      expect(validation.errors).toContain('DecompressError');
      const problem = page
        .locator('[data-testid="problem-error"][data-code="DecompressError"] button')
        .first();
      const where = (await problem.locator('.where').textContent()) ?? '';
      const offset = Number(where.slice(where.lastIndexOf('@') + 1));
      await problem.click();
      await page.waitForFunction(
        (o) => document.querySelector('.hexcols .b.cur')?.getAttribute('data-offset') === String(o),
        offset,
      );
      await screenshot(page, 'invalid-scbf');
      await page.close();
    });

    it('an unrecognised file gets the honest unknown view with its first bytes', async () => {
      const page = await newPage();
      await pickFiles(page, [vector('udf', 'invalid', 'bad_magic.udf')]);
      expect(await detectedFormat(page)).toBe('unknown');
      await page.getByTestId('unknown-view').waitFor();
      // Most of UDF's magic and its extension: named as a UDF with a damaged signature.
      expect(await page.getByTestId('near-miss').textContent()).toContain(
        'Nearly a UDF file, but its signature is damaged: BadMagic — byte 2 is 0x58, expected 0x46',
      );
      const dump = (await page.getByTestId('head-bytes').textContent()) ?? '';
      expect(dump).toMatch(/^00000000 {2}[0-9a-f]{2} /);
      await page.waitForSelector('.hexcols .b[data-offset="0"]:not(:empty)');
      await screenshot(page, 'unknown');
      await page.close();
    });

    it('a URL is read with range requests: fewer bytes fetched than the file has', async () => {
      const file = vector('scbf', 'large_100k', 'large_100k.scbf');
      const size = statSync(file).size;
      const files = await startStaticServer(vectorsDir, { cors: true });
      try {
        const page = await newPage();
        await page.getByTestId('url-input').fill(`${files.url}/scbf/large_100k/large_100k.scbf`);
        await page.getByRole('button', { name: 'Open URL' }).click();
        expect(await detectedFormat(page)).toBe('scbf');
        await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
        await page.waitForSelector('.hexcols .b[data-offset="0"]');
        const counter = page.getByTestId('bytes-counter');
        const fetched = Number(await counter.getAttribute('data-read'));
        expect(Number(await counter.getAttribute('data-size'))).toBe(size);
        expect(fetched).toBeGreaterThan(0);
        expect(fetched).toBeLessThan(size);
        const served = [...files.served.values()].reduce((a, b) => a + b, 0);
        expect(served).toBeLessThan(size);
        expect(await counter.textContent()).toMatch(/^fetched /);
        await screenshot(page, 'url-scbf');
        await page.close();
      } finally {
        await files.close();
      }
    });

    it('is usable from the keyboard: tree arrows move the selection, hex arrows and Enter pick a node', async () => {
      const page = await newPage();
      await pickFiles(page, [vector('scbf', 'basic', 'basic.scbf')]);
      await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
      await page.getByRole('tree').focus();
      await page.keyboard.press('ArrowDown');
      let selected = (await treeNodes(page)).find((n) => n.selected);
      expect(selected).toBeDefined();
      const first = selected!;
      await page.keyboard.press('ArrowDown');
      selected = (await treeNodes(page)).find((n) => n.selected);
      expect(selected && (selected.name !== first.name || selected.offset !== first.offset)).toBe(true);
      await waitForHighlight(page);
      // Tab moves on to the hex view; the cursor moves with arrows and Enter selects the owner.
      await page.getByRole('grid').focus();
      await page.keyboard.press('Control+Home');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Enter');
      await page.waitForFunction(
        () => document.querySelector('.hexcols .b.cur')?.getAttribute('data-offset') === '1',
      );
      // The owning node is selected after a round trip to the worker: wait for it.
      await expect
        .poll(
          async () => {
            const owner = (await treeNodes(page)).find((n) => n.selected);
            return owner !== undefined && owner.offset <= 1 && owner.offset + owner.length > 1;
          },
          // Bounds a hang only: a busy machine answers late, not wrongly.
          { timeout: 60_000 },
        )
        .toBe(true);
      await screenshot(page, 'keyboard');
      await page.close();
    });
  });

  it('raised no uncaught page errors', () => {
    expect(pageErrors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);
  });
});
