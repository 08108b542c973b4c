import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { chromiumPresent, useSiteAndBrowser } from './browser';
import { type DefectCase, defectCases, inspectPath, nodeAtNames } from './defect-cases';
import { distDir, pickFiles, pickFolder, screenshot, vector, vectorsPresent } from './helpers';

const ready = chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html'));
const cases = ready ? await defectCases() : [];
afterAll(() => {
  for (const c of cases) if (c.dir) rmSync(c.dir, { recursive: true, force: true });
});

/** The selected tree row: its names from the root's child down (by aria-level), range and marks. */
async function selectedNode(page: Page) {
  await page.locator('[data-testid="tree-node"][aria-selected="true"]').waitFor();
  return page.$$eval('[data-testid="tree-node"]', (rows) => {
    const at = rows.findIndex((r) => r.getAttribute('aria-selected') === 'true');
    const names: string[] = [];
    let level = Number(rows[at].getAttribute('aria-level'));
    names.unshift(rows[at].getAttribute('data-name') ?? '');
    for (let i = at - 1; i >= 0 && level > 2; i--) {
      const l = Number(rows[i].getAttribute('aria-level'));
      if (l < level) {
        names.unshift(rows[i].getAttribute('data-name') ?? '');
        level = l;
      }
    }
    const row = rows[at];
    return {
      names,
      offset: Number(row.getAttribute('data-offset')),
      length: Number(row.getAttribute('data-length')),
      problems: (row.getAttribute('data-problems') ?? '').split(' ').filter(Boolean),
    };
  });
}

describe.skipIf(!ready)('a broken file opens on the field that holds the offending value', () => {
  const live = useSiteAndBrowser();

  async function open(what: DefectCase['open']): Promise<Page> {
    const page = await live.browser.context.newPage();
    await page.goto(live.site.url);
    await page.getByTestId('drop-zone').waitFor();
    if ('folder' in what) await pickFolder(page, what.folder);
    else await pickFiles(page, what.files);
    await page.getByTestId('format').waitFor();
    return page;
  }

  for (const c of cases) {
    it(`${c.name}: ${c.field.join(' / ')} is selected, its own bytes highlighted`, async () => {
      const expected = await inspectPath(c.main);
      const first = expected.located.find((l) => l.severity === 'error');
      expect(first).toBeDefined();
      const { node } = await nodeAtNames(expected.root, c.field);
      const page = await open(c.open);
      const shown = await selectedNode(page);
      expect(shown.names).toEqual(c.field);
      expect({ offset: shown.offset, length: shown.length }).toEqual({
        offset: node.offset,
        length: node.length,
      });
      expect(shown.problems).toContain(first!.code);
      await screenshot(page, `defect-node-${c.name}`);
      await page.close();
    });
  }

  it('a broken index opened with its shards is shown as the index, its BadMagic marked', async () => {
    const dir = vector('taridx', 'ustar_flat_2shards');
    const index = vector('taridx', 'invalid', 'bad_magic.taridx');
    const alone = await inspectPath(index);
    expect(alone.errors[0].code).toBe('BadMagic');
    const page = await open({ files: [index, join(dir, 'train_0000.tar'), join(dir, 'train_0001.tar')] });
    // The page names the file it shows and the partial tree of the index's own inspect mode.
    const shown = await selectedNode(page);
    expect(shown.problems).toContain('BadMagic');
    const top = (alone.root.children ?? []).map((n) => n.name);
    const level2 = await page.$$eval('[data-testid="tree-node"][aria-level="2"]', (els) =>
      els.map((e) => e.getAttribute('data-name')),
    );
    expect(level2.slice(0, top.length)).toEqual(top);
    const defect = page.locator('[data-testid="defect"][data-code="BadMagic"]');
    expect(await defect.count()).toBeGreaterThan(0);
    await page.close();
  });

  it('SCBF schema_json: each "column i" owns exactly its own object of the JSON', async () => {
    const file = vector('scbf', 'basic', 'basic.scbf');
    const bytes = readFileSync(file);
    const page = await open({ files: [file] });
    await page.locator('[data-testid="tree-node"][data-name="header"]').click();
    await page.keyboard.press('ArrowRight');
    const json = page.locator('[data-testid="tree-node"][data-name="schema_json"]');
    await json.click();
    await page.keyboard.press('ArrowRight');
    await page.locator('[data-testid="tree-node"][data-name="column 0"]').waitFor();
    const columns = await page.$$eval('[data-testid="tree-node"][data-name^="column "]', (els) =>
      els
        .filter((e) => e.getAttribute('aria-level') === '4')
        .map((e) => ({
          offset: Number(e.getAttribute('data-offset')),
          length: Number(e.getAttribute('data-length')),
        })),
    );
    const jsonStart = Number(await json.getAttribute('data-offset'));
    const jsonLength = Number(await json.getAttribute('data-length'));
    const schema = JSON.parse(bytes.subarray(jsonStart, jsonStart + jsonLength).toString('utf8'));
    expect(columns.length).toBe(schema.columns.length);
    columns.forEach((range, i) => {
      // Each node's bytes are that column's object, whole and alone.
      const text = bytes.subarray(range.offset, range.offset + range.length).toString('utf8');
      expect(JSON.parse(text)).toEqual(schema.columns[i]);
    });
    await page.close();
  });
});
