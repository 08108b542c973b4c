import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileTarget, MemorySource, recordToJson } from '@binscope/core';
import { mldfPlugin } from '@binscope/mldf';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { violations } from './a11y-check';
import { chromiumPresent, useSiteAndBrowser } from './browser';
import { detectedFormat, distDir, dropFiles, pickFiles, screenshot, vector, vectorsPresent } from './helpers';

// Compare: a second file opened beside the first and compared by content in the worker. One
// stored value changed → exactly that difference, shown in both trees and both hex views;
// identical copies → equal; files of two formats → said so.

const ready = chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html'));
const ORIGINAL = vector('mldf', 'basic_mixed', 'basic_mixed.mldf');
const RECORD = 1;
const FIELD = 'score';

async function recordOf(bytes: Uint8Array, index: number) {
  const reader = await mldfPlugin.open(fileTarget(new MemorySource(bytes, 'x.mldf')));
  for await (const record of mldfPlugin.records(reader, { offset: index, limit: 1, locations: true }))
    return { json: await recordToJson(reader.schema, record), locations: record.locations ?? {} };
  throw new Error(`no record ${index}`);
}

/** Waits until one side's hex view highlights exactly [start, end) and returns its selected node. */
async function waitForSide(page: Page, side: 'A' | 'B', start: number, end: number) {
  const scope = `[data-testid="compare-side-${side}"]`;
  await page.waitForFunction(
    ([s, e, sel]) => {
      const offsets = [...document.querySelectorAll(`${sel} .hexcols .b.sel`)].map((el) =>
        Number(el.getAttribute('data-offset')),
      );
      return offsets.length === e - s && offsets[0] === s && offsets[offsets.length - 1] === e - 1;
    },
    [start, end, scope] as const,
  );
  const node = page.locator(`${scope} [data-testid="tree-node"][aria-selected="true"]`);
  await node.waitFor();
  return {
    offset: Number(await node.getAttribute('data-offset')),
    length: Number(await node.getAttribute('data-length')),
  };
}

describe.skipIf(!ready)('compare two files', () => {
  const live = useSiteAndBrowser();
  let dir: string;
  let changed: string;
  let copy: string;
  let location: { offset: number; length: number };
  let values: { a: unknown; b: unknown };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-compare-'));
    const bytes = new Uint8Array(readFileSync(ORIGINAL));
    const before = await recordOf(bytes, RECORD);
    // One byte of one stored value, found through the reader's byte locations.
    const at = before.locations[FIELD]?.[0];
    if (!at?.length) throw new Error(`no location for ${FIELD}`);
    location = { offset: at.offset, length: at.length };
    const patched = bytes.slice();
    patched[at.offset + at.length - 1] ^= 0x40;
    const after = await recordOf(patched, RECORD);
    values = { a: before.json[FIELD], b: after.json[FIELD] };
    expect(values.b).not.toEqual(values.a);
    changed = join(dir, 'changed.mldf');
    writeFileSync(changed, patched);
    copy = join(dir, 'copy.mldf');
    copyFileSync(ORIGINAL, copy);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function openCompare(): Promise<Page> {
    const page = await live.browser.context.newPage();
    await page.goto(live.site.url);
    await pickFiles(page, [ORIGINAL]);
    expect(await detectedFormat(page)).toBe('mldf');
    await page.getByRole('tab', { name: 'Compare' }).click();
    return page;
  }

  it('one changed value: exactly that difference, selected in both trees and both hex views; axe clean', async () => {
    const page = await openCompare();
    await page.getByTestId('compare-file-input').setInputFiles(changed);
    await page.getByTestId('compare-outcome').waitFor();
    const listed = page.getByTestId('difference');
    expect(await listed.count()).toBe(1);
    const d = listed.first();
    expect(await d.getAttribute('data-path')).toBe(`records[${RECORD}].${FIELD}`);
    expect(await d.getAttribute('data-kind')).toBe('record');
    for (const side of ['a', 'b'])
      expect([
        Number(await d.getAttribute(`data-${side}-offset`)),
        Number(await d.getAttribute(`data-${side}-length`)),
      ]).toEqual([location.offset, location.length]);
    const text = await d.textContent();
    // As the page writes a value: JSON, except that -0 keeps its sign (this vector's score is -0).
    const shown = (v: unknown) => (Object.is(v, -0) ? '-0' : JSON.stringify(v));
    expect(text).toContain(shown(values.a));
    expect(text).toContain(shown(values.b));

    await d.click();
    expect(await d.getAttribute('aria-pressed')).toBe('true');
    const end = location.offset + location.length;
    for (const side of ['A', 'B'] as const) {
      const node = await waitForSide(page, side, location.offset, end);
      // The node selected holds the differing bytes.
      expect(node.offset).toBeLessThanOrEqual(location.offset);
      expect(node.offset + node.length).toBeGreaterThanOrEqual(end);
    }
    await screenshot(page, 'compare');
    expect(await violations(page), 'compare view').toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await violations(page), 'compare view, dark').toEqual([]);
    // At 400 px the files stack, each as wide as the page, and nothing scrolls sideways.
    await page.setViewportSize({ width: 400, height: 800 });
    await page.waitForFunction(() => {
      const [a, b] = [...document.querySelectorAll('.compare-side')].map((e) => e.getBoundingClientRect());
      return !!a && !!b && b.top >= a.bottom - 1;
    });
    const boxes = await page
      .locator('.compare-side')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
    for (const width of boxes) expect(width).toBeGreaterThan(300);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    await screenshot(page, 'compare-400');
    await page.close();
  });

  it('an identical copy (dropped) is equal; a file of another format is said to be one', async () => {
    const page = await openCompare();
    await dropFiles(page, [copy], 'compare-drop');
    const equal = page.getByTestId('compare-equal');
    await equal.waitFor();
    expect(await equal.textContent()).toMatch(/equal in content/);
    expect(await page.getByTestId('difference').count()).toBe(0);
    // The drop was the compare view's: the open file is still the original.
    expect(await page.getByTestId('summary-file').textContent()).toBe('basic_mixed.mldf');

    await page.getByTestId('compare-file-input').setInputFiles(vector('scbf', 'basic', 'basic.scbf'));
    const formats = page.getByTestId('compare-formats');
    await formats.waitFor();
    expect(await formats.textContent()).toContain('MLDF');
    expect(await formats.textContent()).toContain('SCBF');
    await page.close();
  });
});
