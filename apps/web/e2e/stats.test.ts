import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySource, type Value } from '@binscope/core';
import { mldfPlugin, openMldf } from '@binscope/mldf';
import { encodeScbf, openScbf, scbfPlugin, splitNulls } from '@binscope/scbf';
import { openScdlArchive, scdlPlugin } from '@binscope/scdl/node';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRID_MAX, ndGrid } from '../src/worker/ndarray-grid';
import { violations } from './a11y-check';
import { chromiumPresent, launchBrowser } from './browser';
import { distDir, POLL, pickFiles, pickFolder, screenshot, vector, vectorsPresent } from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && vectorsPresent;
const LARGE = vector('scbf', 'large_100k', 'large_100k.scbf');
const MIXED = vector('mldf', 'basic_mixed', 'basic_mixed.mldf');
const COUNTS = vector('scdl', 'uint16_counts_from_X', 'archive');
const IMAGES = vector('mldf', 'ndarray_image', 'ndarray_image.mldf');

/** Every value of some fields, read in Node through the format package's own reader. */
async function columnValues(file: string, fields: string[]): Promise<Map<string, Value[]>> {
  const source = new MemorySource(readFileSync(file));
  const isScbf = file.endsWith('.scbf');
  const reader = isScbf ? await openScbf(source) : await openMldf(source);
  const records = isScbf
    ? scbfPlugin.records(reader as Awaited<ReturnType<typeof openScbf>>, { columns: fields })
    : mldfPlugin.records(reader as Awaited<ReturnType<typeof openMldf>>, { columns: fields });
  const out = new Map(fields.map((f) => [f, [] as Value[]]));
  for await (const record of records) for (const f of fields) out.get(f)?.push(record.values[f] ?? null);
  return out;
}

interface ShownField {
  count: number;
  nulls: number;
  min: number;
  max: number;
  mean: number;
  bins: Array<{ lo: number; hi: number; count: number }>;
  top: Array<{ value: string; count: number }>;
}

/** What the statistics view shows for a field, from its data attributes. */
async function shown(page: Page, field: string): Promise<ShownField> {
  const card = page.locator(`[data-testid="field-stats"][data-field="${field}"]`);
  const number = async (name: string) => Number(await card.getAttribute(`data-${name}`));
  return {
    count: await number('count'),
    nulls: await number('nulls'),
    min: await number('min'),
    max: await number('max'),
    mean: await number('mean'),
    bins: await card.locator('[data-testid="bin"]').evaluateAll((rows) =>
      rows.map((r) => ({
        lo: Number(r.getAttribute('data-lo')),
        hi: Number(r.getAttribute('data-hi')),
        count: Number(r.getAttribute('data-count')),
      })),
    ),
    top: await card.locator('[data-testid="top-value"]').evaluateAll((rows) =>
      rows.map((r) => ({
        value: r.getAttribute('data-value') ?? '',
        count: Number(r.getAttribute('data-count')),
      })),
    ),
  };
}

/** Checks a numeric field's shown statistics against its values, each bin counted here. */
function expectNumeric(view: ShownField, values: Value[]): void {
  const numbers = values.filter((v) => v !== null).map((v) => Number(v));
  expect(view.nulls).toBe(values.length - numbers.length);
  expect(view.count).toBe(numbers.length);
  expect(view.min).toBe(numbers.reduce((a, b) => Math.min(a, b)));
  expect(view.max).toBe(numbers.reduce((a, b) => Math.max(a, b)));
  const mean = numbers.reduce((a, b) => a + b, 0) / numbers.length;
  expect(Math.abs(view.mean - mean)).toBeLessThanOrEqual(Math.abs(mean) * 1e-12 + 1e-9);
  expect(view.bins.length).toBeGreaterThan(0);
  for (const bin of view.bins)
    expect(bin.count, `[${bin.lo}, ${bin.hi})`).toBe(numbers.filter((v) => v >= bin.lo && v < bin.hi).length);
  // The bins cover every value: none left out at either end.
  expect(view.bins.reduce((a, b) => a + b.count, 0)).toBe(numbers.length);
}

/** Shannon entropy in bits per byte. */
function entropyOf(bytes: Uint8Array): number {
  const counts = new Map<number, number>();
  for (const b of bytes) counts.set(b, (counts.get(b) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) h -= (c / bytes.length) * Math.log2(c / bytes.length);
  return h;
}

/** The most frequent values, counted here, in the view's order (count, then value). */
function topOf(values: Value[], n: number): Array<{ value: string; count: number }> {
  const counts = new Map<string, number>();
  for (const v of values) if (v !== null) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, n)
    .map(([value, count]) => ({ value, count }));
}

describe.skipIf(!ready)('Statistics of a table', () => {
  let site: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-stats-'));

  beforeAll(async () => {
    site = await startStaticServer(distDir);
    browser = await launchBrowser();
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function openStats(file: string, folder = false): Promise<void> {
    await page.goto(site.url);
    await page.getByTestId('drop-zone').waitFor();
    await (folder ? pickFolder(page, file) : pickFiles(page, [file]));
    await page.getByRole('tab', { name: 'Data' }).click();
    await page.getByRole('radio', { name: 'statistics' }).check();
    await page.locator('[data-testid="stats-view"][data-done="true"]').waitFor();
  }

  it('SCBF: histograms, min, max, mean and nulls equal the values read here; text top values', async () => {
    await openStats(LARGE);
    const values = await columnValues(LARGE, ['id', 'value', 'category', 'label']);
    expect(await page.getByTestId('stats-view').getAttribute('data-sampled')).toBe('false');
    expect(await page.getByTestId('stats-status').textContent()).toContain('All 100,000 records');
    // `id` runs 0..99999 in order: its bins start from the first values and grow to the last.
    expectNumeric(await shown(page, 'id'), values.get('id') ?? []);
    expectNumeric(await shown(page, 'value'), values.get('value') ?? []);
    const category = await shown(page, 'category');
    expect(category.nulls).toBe(0);
    expect(category.top).toEqual(topOf(values.get('category') ?? [], 12));
    // `label` never repeats: no list of values seen once, just that statement.
    const labels = values.get('label') ?? [];
    expect(new Set(labels).size).toBe(labels.length);
    const label = page.locator('[data-field="label"]');
    expect(await label.getByTestId('top-value').count()).toBe(0);
    expect(await label.getByTestId('no-repeats').textContent()).toContain('No value repeats');
    await page.locator('[data-field="value"] .bins > summary').click();
    await screenshot(page, 'stats-scbf');
    expect(await violations(page)).toEqual([]);

    // The byte entropy strip in the hex scrubber's track: each sampled block's entropy, computed here.
    await page.getByRole('tab', { name: 'Structure' }).click();
    await page.getByRole('button', { name: 'entropy', exact: true }).click();
    await page.getByTestId('entropy-strip').waitFor();
    expect(await page.getByTestId('entropy-summary').textContent()).toContain('256 samples');
    const cells = await page.locator('[data-testid="entropy-cell"]').evaluateAll((els) =>
      els.map((el) => ({
        offset: Number(el.getAttribute('data-offset')),
        length: Number(el.getAttribute('data-length')),
        entropy: Number(el.getAttribute('data-entropy')),
      })),
    );
    const bytes = readFileSync(LARGE);
    expect(cells).toHaveLength(256);
    expect(cells[0].offset).toBe(0);
    expect(cells.at(-1)?.offset).toBeGreaterThan(bytes.length * 0.99);
    for (const cell of cells)
      expect(cell.entropy, `at ${cell.offset}`).toBeCloseTo(
        entropyOf(bytes.subarray(cell.offset, cell.offset + cell.length)),
        9,
      );
    await screenshot(page, 'stats-entropy');
    expect(await violations(page)).toEqual([]);
  });

  it('MLDF: the label distribution (64-bit labels included) and the scores', async () => {
    await openStats(MIXED);
    const values = await columnValues(MIXED, ['label', 'score']);
    const label = await shown(page, 'label');
    expect(label.top).toEqual(topOf(values.get('label') ?? [], 12));
    expect(label.top.map((t) => t.value)).toContain('9223372036854775807');
    expectNumeric(label, values.get('label') ?? []);
    expectNumeric(await shown(page, 'score'), values.get('score') ?? []);
    expect(await violations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await violations(page), 'dark theme').toEqual([]);
    await screenshot(page, 'stats-mldf-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('a large table is estimated from a spread sample first; Exact reads every record', async () => {
    const total = 250_000;
    // Every 97th value null (the null bitmap extension), the others spread over 0..999.
    const n = Array.from({ length: total }, (_, i) => (i % 97 === 5 ? null : (i * 7919) % 1000));
    const file = join(dir, 'many.scbf');
    const { columns, nulls } = splitNulls([{ name: 'n', type: 'int32', values: n }]);
    writeFileSync(file, await encodeScbf(columns, { extensions: { nulls } }));
    await openStats(file);
    const view = page.getByTestId('stats-view');
    expect(await view.getAttribute('data-sampled')).toBe('true');
    const sampled = Number(await view.getAttribute('data-records'));
    expect(sampled).toBeLessThan(total);
    expect(await page.getByTestId('stats-status').textContent()).toContain(
      `Estimate from ${sampled.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} records`,
    );
    await page.getByRole('button', { name: 'Exact' }).click();
    await page.locator('[data-testid="stats-view"][data-done="true"][data-sampled="false"]').waitFor();
    expect(await view.getAttribute('data-records')).toBe(String(total));
    expectNumeric(await shown(page, 'n'), n);
  });

  it('SCDL: per-cell totals, counts and sparsity, and per-gene totals, from the schema metadata', async () => {
    const reader = await openScdlArchive(COUNTS);
    const genes = Number(reader.schema.fields.find((f) => f.name === 'values')?.metadata?.columns);
    const cellTotals: number[] = [];
    const cellCounts: number[] = [];
    const geneTotals = new Float64Array(genes);
    for await (const record of scdlPlugin.records(reader, { columns: ['indices', 'values'] })) {
      const indices = record.values.indices as number[];
      const values = record.values.values as number[];
      cellTotals.push(values.reduce((a, b) => a + Number(b), 0));
      cellCounts.push(values.length);
      values.forEach((v, k) => {
        geneTotals[Number(indices[k])] += Number(v);
      });
    }
    await reader.close();
    expect(genes).toBe(300);
    await openStats(COUNTS, true);
    const card = page.locator('[data-testid="field-stats"][data-field="values"]');
    const derived = async (kind: string) => {
      const block = card.locator(`[data-testid="derived-stats"][data-derived="${kind}"]`);
      return {
        min: Number(await block.getAttribute('data-min')),
        max: Number(await block.getAttribute('data-max')),
        bins: await block.locator('[data-testid="bin"]').evaluateAll((rows) =>
          rows.map((r) => ({
            lo: Number(r.getAttribute('data-lo')),
            hi: Number(r.getAttribute('data-hi')),
            count: Number(r.getAttribute('data-count')),
          })),
        ),
      };
    };
    const expectBins = (view: Awaited<ReturnType<typeof derived>>, numbers: number[]) => {
      expect(view.min).toBe(Math.min(...numbers));
      expect(view.max).toBe(Math.max(...numbers));
      for (const bin of view.bins)
        expect(bin.count, `[${bin.lo}, ${bin.hi})`).toBe(
          numbers.filter((v) => v >= bin.lo && v < bin.hi).length,
        );
      expect(view.bins.reduce((a, b) => a + b.count, 0)).toBe(numbers.length);
    };
    expectBins(await derived('sum'), cellTotals);
    expectBins(await derived('count'), cellCounts);
    expectBins(await derived('columns'), Array.from(geneTotals));
    const meanCount = cellCounts.reduce((a, b) => a + b, 0) / cellCounts.length;
    expect(Number(await card.getByTestId('sparsity').getAttribute('data-value'))).toBeCloseTo(
      1 - meanCount / genes,
      12,
    );
    const top = await card.locator('[data-testid="top-column"]').evaluateAll((rows) =>
      rows.map((r) => ({
        column: Number(r.getAttribute('data-column')),
        total: Number(r.getAttribute('data-total')),
      })),
    );
    const expected = Array.from(geneTotals, (total, column) => ({ column, total }))
      .sort((a, b) => b.total - a.total || a.column - b.column)
      .slice(0, 10);
    expect(top).toEqual(expected);
    await page.setViewportSize({ width: 1280, height: 800 });
    await card.locator('[data-derived="sum"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'stats-scdl');
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(await violations(page)).toEqual([]);
  });

  it('a 2-D array is drawn as a heatmap of its shape, min black and max white', async () => {
    const [first] = (await columnValues(IMAGES, ['features'])).get('features') ?? [];
    const array = first as unknown as { shape: number[]; data: ArrayLike<number> };
    const data = Array.from(array.data, Number);
    const [rows, cols] = array.shape;
    await page.goto(site.url);
    await page.getByTestId('drop-zone').waitFor();
    await pickFiles(page, [IMAGES]);
    await page.getByRole('tab', { name: 'Data' }).click();
    const heatmap = page.getByTestId('record-card').first().getByTestId('heatmap');
    await heatmap.waitFor();
    expect(Number(await heatmap.getAttribute('data-rows'))).toBe(rows);
    expect(Number(await heatmap.getAttribute('data-cols'))).toBe(cols);
    const min = Math.min(...data);
    const max = Math.max(...data);
    expect(Number(await heatmap.getAttribute('data-min'))).toBe(min);
    expect(Number(await heatmap.getAttribute('data-max'))).toBe(max);
    // The canvas holds one pixel per cell: the min cell drawn black, the max cell white.
    const painted = () =>
      heatmap.locator('canvas').evaluate((canvas: HTMLCanvasElement) => {
        const pixels = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
        return {
          width: canvas.width,
          height: canvas.height,
          gray: Array.from({ length: pixels.length / 4 }, (_, p) => pixels[p * 4]),
        };
      });
    // An effect paints the canvas after it shows (until then it is all transparent black).
    await expect.poll(async () => (await painted()).gray[data.indexOf(max)], POLL).toBe(255);
    const drawn = await painted();
    expect([drawn.height, drawn.width]).toEqual([rows, cols]);
    expect(drawn.gray[data.indexOf(min)]).toBe(0);
    expect(drawn.gray[data.indexOf(max)]).toBe(255);
    expect(await heatmap.locator('canvas').getAttribute('aria-label')).toContain(`${rows} × ${cols}`);
    await heatmap.scrollIntoViewIfNeeded();
    await screenshot(page, 'heatmap-mldf');
  });

  it('a large 2-D array crosses to the page strided to at most GRID_MAX cells a side', () => {
    const [rows, cols] = [1000, 1300];
    const data = Float32Array.from({ length: rows * cols }, (_, i) => (i * 7) % 1009);
    const grid = ndGrid({ dtype: 'f32', shape: [rows, cols], data });
    expect(grid).toMatchObject({
      rows,
      cols,
      rowStep: 2,
      colStep: 3,
      shownRows: 500,
      shownCols: 434,
      min: 0,
    });
    expect(grid?.max).toBe(1008);
    expect(Math.max(grid?.shownRows ?? 0, grid?.shownCols ?? 0)).toBeLessThanOrEqual(GRID_MAX);
    for (const [r, c] of [
      [0, 0],
      [499, 433],
      [123, 321],
    ])
      expect(grid?.cells[r * 434 + c], `${r},${c}`).toBe(data[r * 2 * cols + c * 3]);
    expect(ndGrid({ dtype: 'f32', shape: [2, 3, 4], data: new Float32Array(24) })).toBeUndefined();
  });
});
