import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { InspectResult } from '@binscope/core';
import { openPath } from '@binscope/core/node';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { inspectedFormat } from '../src/worker/inspect-mode';
import { registry as currentRegistry } from '../src/worker/registry';
import { chromiumPresent, useSiteAndBrowser } from './browser';
import {
  distDir,
  highlightedOffsets,
  pickFiles,
  pickFolder,
  screenshot,
  treeNodes,
  vectorsDir,
} from './helpers';

const ready = chromiumPresent && existsSync(vectorsDir) && existsSync(join(distDir, 'index.html'));

/** The invalid vectors and their expected first error class, from each format's invalid/README.md table. */
function invalidVectors(): Array<{ format: string; name: string; path: string; errorClass: string }> {
  if (!existsSync(vectorsDir)) return [];
  const out = [];
  for (const format of readdirSync(vectorsDir).sort()) {
    const readme = join(vectorsDir, format, 'invalid', 'README.md');
    if (!existsSync(readme)) continue;
    for (const line of readFileSync(readme, 'utf8').split('\n')) {
      const cells = line.split('|').map((c) => c.trim());
      if (cells.length < 5) continue;
      const name = cells[1].replace(/`/g, '').replace(/\/$/, '');
      const errorClass = cells[cells.length - 2].replace(/`/g, '');
      if (!name || name === 'file' || /^-+$/.test(name) || !/^[A-Za-z]+$/.test(errorClass)) continue;
      out.push({ format, name, path: join(vectorsDir, format, 'invalid', name), errorClass });
    }
  }
  return out;
}

/** What the page must show: the format's inspect mode run on the same bytes, in Node. */
async function expectedInspection(path: string): Promise<InspectResult | undefined> {
  const target = openPath(path);
  const registry = currentRegistry();
  const format = inspectedFormat(await registry.detect(target), registry);
  const plugin = format ? await registry.load(format.id) : undefined;
  const result = await plugin?.inspectTarget(target);
  return result;
}

describe.skipIf(!ready)(
  'a broken file shows its partial tree, the defect selected and its bytes highlighted',
  () => {
    const live = useSiteAndBrowser();
    async function open(path: string): Promise<Page> {
      const page = await live.browser.context.newPage();
      await page.goto(live.site.url);
      await page.getByTestId('drop-zone').waitFor();
      if (statSync(path).isDirectory()) await pickFolder(page, path);
      else await pickFiles(page, [path]);
      await page.getByTestId('format').waitFor();
      return page;
    }

    for (const bad of invalidVectors()) {
      it(`${bad.format}/invalid/${bad.name}: ${bad.errorClass} marked and selected`, async () => {
        const expected = await expectedInspection(bad.path);
        const page = await open(bad.path);
        // Every broken vector is some format's, or nearly (a damaged signature): never "unknown".
        if (!expected) throw new Error(`${bad.path}: neither detected nor a near miss`);
        const first = expected.located[0];
        expect(first?.code).toBe(bad.errorClass);
        const selected = page.locator('[data-testid="tree-node"][aria-selected="true"]');
        await selected.waitFor();

        // The same partial tree as the format's inspect mode: the root and its children, in order.
        const topNames = (expected.root.children ?? []).map((c) => c.name);
        await page.waitForFunction(
          (n) => document.querySelectorAll('[data-testid="tree-node"][aria-level="2"]').length >= n,
          topNames.length,
        );
        const shownTop = await page.$$eval('[data-testid="tree-node"][aria-level="2"]', (els) =>
          els.map((e) => e.getAttribute('data-name')),
        );
        expect(shownTop.slice(0, topNames.length)).toEqual(topNames);
        // Structure around the defect, not the file alone.
        expect(topNames.length).toBeGreaterThan(0);
        expect((await treeNodes(page)).length).toBeGreaterThan(1);

        // The selected node is the first defect's node, marked with its class (icon and words).
        const names = first.path === '' ? [expected.root.name] : first.path.split('/');
        expect(await selected.getAttribute('data-name')).toBe(names[names.length - 1]);
        expect((await selected.getAttribute('data-problems'))?.split(' ')).toContain(bad.errorClass);
        const mark = selected.getByTestId('node-problem');
        expect(await mark.getAttribute('data-severity')).toBe('error');
        expect(await mark.textContent()).toMatch(new RegExp(`^✗ error .*${bad.errorClass}`));

        // Its bytes are a highlighted range in the hex view (not a one-byte cursor).
        const length = Number(await selected.getAttribute('data-length'));
        const offset = Number(await selected.getAttribute('data-offset'));
        if (length > 0) {
          await page.waitForFunction(() => document.querySelectorAll('.hexcols .b.sel').length > 0);
          const lit = await highlightedOffsets(page);
          expect(lit[0]).toBe(offset);
          expect(lit.length).toBe(Math.min(length, lit.length));
          if (length > 1) expect(lit.length).toBeGreaterThan(1);
          expect(lit.every((o, i) => o === offset + i)).toBe(true);
        }

        // The defect list names it with its class, offset, message and node path; a click selects it.
        const item = page.locator(`[data-testid="defect"][data-path="${first.path}"]`).first();
        expect(await item.getAttribute('data-code')).toBe(bad.errorClass);
        expect(await item.textContent()).toContain(first.message);
        await page.locator('[data-testid="tree-node"]').first().click();
        await item.getByRole('button').click();
        // Selecting the root (a folder has no bytes of its own) is not a failure.
        expect(await page.getByTestId('failure').count()).toBe(0);
        await page.waitForFunction(
          (name) =>
            document
              .querySelector('[data-testid="tree-node"][aria-selected="true"]')
              ?.getAttribute('data-name') === name,
          names[names.length - 1],
        );
        await screenshot(page, `inspect-broken-${bad.format}-${bad.name}`);
        await page.close();
      });
    }
  },
);
