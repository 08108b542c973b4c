/** Helpers of the export tests: the CLI to compare with, and driving the Export control. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { chromiumPresent } from './browser';
import { distDir, pickFiles, repoRoot, vector, vectorsPresent } from './helpers';

export const CLI = join(repoRoot, 'apps', 'cli', 'bin', 'binscope.js');
export const ready =
  chromiumPresent && vectorsPresent && existsSync(join(distDir, 'index.html')) && existsSync(CLI);
export const LARGE = vector('scbf', 'large_100k', 'large_100k.scbf');
export const BASIC = vector('scbf', 'basic', 'basic.scbf');
export const SAMPLE = join(distDir, 'samples', 'mldf', 'train.mldf');

/** What the built CLI's `cat` prints for these arguments (exit 0). */
export function cat(file: string, ...args: string[]): Buffer {
  return execFileSync(process.execPath, [CLI, 'cat', file, ...args], { maxBuffer: 256 * 1024 * 1024 });
}

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * A save picker that answers with a file of the origin's private file system (OPFS): the
 * export streams into it through the same File System Access calls as into a file a user picks.
 */
export const OPFS_PICKER = `window.showSaveFilePicker = async (options) => {
  const root = await navigator.storage.getDirectory();
  window.__picked = options.suggestedName;
  return root.getFileHandle(options.suggestedName, { create: true });
};`;

export async function openData(page: Page, file: string): Promise<void> {
  await pickFiles(page, [file]);
  await page.getByRole('tab', { name: 'Data' }).click();
  await page.getByTestId('data-view').locator('[data-testid="page-range"]').waitFor();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="data-view"]')?.getAttribute('aria-busy') === 'false',
  );
}

/**
 * Goes to the next page of records and waits until the table shows it. The range the pager
 * names changes at once, the records only when the worker has read them; until then the last
 * page's records are shown, and they are what "the records shown" exports.
 */
export async function nextPage(page: Page, range: string, first: number): Promise<void> {
  await page.getByRole('button', { name: 'next ▶' }).click();
  await page.waitForFunction(
    (r) => document.querySelector('[data-testid="page-range"]')?.textContent?.includes(r),
    range,
  );
  await page.waitForFunction((n) => {
    const view = document.querySelector('[data-testid="data-view"]');
    const row = view?.querySelector('[data-testid="records-table"] tbody tr th button');
    return view?.getAttribute('aria-busy') === 'false' && row?.textContent === String(n);
  }, first);
}

/** Opens the Export control (if closed) and picks the export by its label and the records. */
export async function choose(page: Page, as: string, scope: RegExp): Promise<void> {
  const control = page.getByTestId('export');
  if ((await control.getAttribute('open')) === null) await control.locator('summary').click();
  await control.getByLabel('export as', { exact: true }).selectOption({ label: as });
  await control.getByRole('radio', { name: scope }).check();
}

/** The downloaded export's bytes; checks the size and SHA-256 the page shows for them. */
export async function download(page: Page, as: string, scope: RegExp): Promise<Buffer> {
  await choose(page, as, scope);
  const downloading = page.waitForEvent('download');
  await page.getByTestId('export-download').click();
  const file = await downloading;
  const bytes = readFileSync((await file.path())!);
  const done = page.getByTestId('export-done');
  await done.waitFor();
  expect(await page.getByTestId('export-sha256').textContent()).toBe(sha256(bytes));
  expect(await page.getByTestId('export-size').textContent()).toContain(
    `${bytes.byteLength.toLocaleString('en-US')} bytes`,
  );
  return bytes;
}

export const SHOWN = /records shown/;
export const WHOLE = /whole table/;
