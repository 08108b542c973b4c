import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumPresent, useSiteAndBrowser } from './browser';
import { distDir, pickFiles, vector, vectorsPresent } from './helpers';

// The README promises an accessible page: axe-core (WCAG 2 A and AA rules) finds nothing in
// every view a user reaches first, in both themes.

const ready = chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html'));
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const found = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<{ violations: Violation[] }> } }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return found.map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe.skipIf(!ready)('accessibility (axe-core)', () => {
  const live = useSiteAndBrowser();

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`the start page, a file's structure and its data table: no violations (${colorScheme})`, async () => {
      const page = await live.browser.context.newPage();
      await page.emulateMedia({ colorScheme });
      await page.goto(live.site.url);
      await page.getByTestId('drop-zone').waitFor();
      expect(await violations(page), 'start page').toEqual([]);

      await pickFiles(page, [vector('scbf', 'basic', 'basic.scbf')]);
      await page.locator('[data-testid="tree-node"]').nth(1).waitFor();
      await page.waitForSelector('.hexcols .b[data-offset="0"]:not(:empty)');
      expect(await violations(page), 'structure').toEqual([]);

      await page.getByRole('tab', { name: 'Data' }).click();
      await page.locator('table').first().waitFor();
      expect(await violations(page), 'data table').toEqual([]);
      await page.close();
    });

    it(`a broken file's marked tree and defect list: no violations (${colorScheme})`, async () => {
      const page = await live.browser.context.newPage();
      await page.emulateMedia({ colorScheme });
      await page.goto(live.site.url);
      await page.getByTestId('drop-zone').waitFor();
      await pickFiles(page, [vector('mldf', 'invalid', 'ptr_oob.mldf')]);
      await page
        .locator('[data-testid="tree-node"][aria-selected="true"] [data-testid="node-problem"]')
        .waitFor();
      await page.getByTestId('defects').waitFor();
      await page.waitForSelector('.hexcols .b.sel');
      expect(await violations(page), 'broken file').toEqual([]);
      await page.close();
    });
  }
});
