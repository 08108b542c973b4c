import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Page } from 'playwright-core';

export const appDir = resolve(import.meta.dirname, '..');
export const repoRoot = resolve(appDir, '..', '..');
export const vectorsDir = resolve(repoRoot, process.env.BINSCOPE_VECTORS ?? '../shared/vectors');
export const vectorsPresent = existsSync(vectorsDir);
export const distDir = join(appDir, 'dist');
export const resultsDir = join(appDir, 'test-results');

export const vector = (...parts: string[]) => join(vectorsDir, ...parts);

/**
 * Options for `expect.poll`: its own default gives up after 1 s, which a busy machine's page
 * (a worker's answer, a page load) can take. This bounds a hang only.
 */
export const POLL = { timeout: 60_000 } as const;

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(resultsDir, { recursive: true });
  const path = join(resultsDir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

export interface NodeInfo {
  name: string;
  offset: number;
  length: number;
  selected: boolean;
}

export async function treeNodes(page: Page): Promise<NodeInfo[]> {
  return page.$$eval('[data-testid="tree-node"]', (els) =>
    els.map((el) => ({
      name: el.getAttribute('data-name') ?? '',
      offset: Number(el.getAttribute('data-offset')),
      length: Number(el.getAttribute('data-length')),
      selected: el.getAttribute('aria-selected') === 'true',
    })),
  );
}

/** Waits for the summary and returns the detected format id ('unknown' when none). */
export async function detectedFormat(page: Page): Promise<string> {
  const badge = page.getByTestId('format');
  await badge.waitFor();
  return (await badge.getAttribute('data-format')) ?? '';
}

/** Offsets of the highlighted bytes in the hex column (rendered rows only). */
export async function highlightedOffsets(page: Page): Promise<number[]> {
  return page.$$eval('.hexcols .b.sel', (els) => els.map((el) => Number(el.getAttribute('data-offset'))));
}

/** Offsets of the hex cells that have loaded bytes (not the '··' placeholder). */
export async function loadedCells(page: Page): Promise<number> {
  return page.$$eval('.hexcols .b[data-offset]', (els) => els.filter((el) => el.textContent !== '··').length);
}

/** Opens files through the file picker, as a user would. */
export async function pickFiles(page: Page, files: string[]): Promise<void> {
  await page.getByTestId('file-input').setInputFiles(files);
}

/** Opens a folder through the folder picker (`webkitdirectory`). */
export async function pickFolder(page: Page, dir: string): Promise<void> {
  await page.getByTestId('folder-input').setInputFiles(dir);
}

/**
 * Drops files onto the page: builds a DataTransfer in the page from the files' bytes and
 * dispatches dragenter/dragover/drop on the drop zone (the page's, or the one named by its
 * test id), as the browser does for a real drag.
 */
export async function dropFiles(page: Page, files: string[], testId = 'app'): Promise<void> {
  const payload = files.map((f) => ({ name: basename(f), base64: readFileSync(f).toString('base64') }));
  const dataTransfer = await page.evaluateHandle((items) => {
    const dt = new DataTransfer();
    for (const item of items) {
      const bytes = Uint8Array.from(atob(item.base64), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], item.name));
    }
    return dt;
  }, payload);
  const target = page.getByTestId(testId);
  await target.dispatchEvent('dragenter', { dataTransfer });
  await target.dispatchEvent('dragover', { dataTransfer });
  await target.dispatchEvent('drop', { dataTransfer });
}

/** Clicks a tree node by name (first match) and returns its range. */
export async function clickNode(page: Page, name: string): Promise<NodeInfo> {
  const row = page.locator(`[data-testid="tree-node"][data-name="${name}"]`).first();
  await row.click();
  return {
    name,
    offset: Number(await row.getAttribute('data-offset')),
    length: Number(await row.getAttribute('data-length')),
    selected: true,
  };
}

export async function waitForHighlight(page: Page): Promise<number[]> {
  await page.waitForFunction(() => {
    const cells = document.querySelectorAll('.hexcols .b.sel');
    return cells.length > 0 && [...cells].every((c) => c.textContent !== '··');
  });
  return highlightedOffsets(page);
}

export async function waitForValidation(
  page: Page,
): Promise<{ valid: boolean; errors: string[]; warnings: string[] }> {
  await page.getByTestId('validity').waitFor();
  const valid = (await page.getByTestId('validity').getAttribute('data-valid')) === 'true';
  const errors = await page.$$eval('[data-testid="problem-error"]', (els) =>
    els.map((el) => el.getAttribute('data-code') ?? ''),
  );
  const warnings = await page.$$eval('[data-testid="problem-warning"]', (els) =>
    els.map((el) => el.getAttribute('data-code') ?? ''),
  );
  return { valid, errors, warnings };
}
