import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLargeSamples } from './large-samples';
import { chromiumPresent, launchBrowser } from './browser';
import { detectedFormat, distDir, pickFiles, pickFolder, waitForValidation } from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && existsSync(join(distDir, 'index.html'));

/**
 * Every percentage the worker reported to the page, in order. Recorded from the worker's
 * messages, not from what React drew: a validation that ends within one frame batches its
 * renders, so the drawn percentages depend on the machine's speed (the cancel test below
 * checks the drawn percentage, against a server slowed on purpose).
 */
const RECORD_PERCENTAGES = () => {
  const seen: number[] = [];
  (window as unknown as { seenPercent: number[] }).seenPercent = seen;
  const PageWorker = window.Worker;
  window.Worker = class extends PageWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      this.addEventListener('message', (event: MessageEvent) => {
        const progress = (event.data as { progress?: { done: number; total?: number } } | null)?.progress;
        if (progress?.total) seen.push(Math.floor((100 * progress.done) / progress.total));
      });
    }
  };
};

/** Keeps the page's workers reachable, so a test can talk to the worker itself. */
const KEEP_WORKERS = () => {
  const kept: Worker[] = [];
  (window as unknown as { keptWorkers: Worker[] }).keptWorkers = kept;
  const PageWorker = window.Worker;
  window.Worker = class extends PageWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      kept.push(this);
    }
  };
};

/** Sends the worker a request that reads nothing (the format list) and waits for its answer. */
const ASK_WORKER = () =>
  new Promise<void>((answered) => {
    const [worker] = (window as unknown as { keptWorkers: Worker[] }).keptWorkers;
    const id = 1e9;
    worker.addEventListener('message', (event: MessageEvent) => {
      if ((event.data as { id?: number } | null)?.id === id) answered();
    });
    worker.postMessage({ id, type: 'formats' });
  });

const seenPercent = (page: Page) =>
  page.evaluate(() => (window as unknown as { seenPercent: number[] }).seenPercent);

describe.skipIf(!ready)('validation shows a percentage, with cancel', () => {
  let site: StaticServer;
  let slow: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-progress-'));
    // Large enough that validating takes many steps; written by the project's writers.
    const { files } = await makeLargeSamples({ scbf: 0, mldf: 500, udf: 400, taridx: 150, scdl: 40000 });
    for (const [path, bytes] of files) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), bytes);
    }
    site = await startStaticServer(distDir, { spa: true });
    slow = await startStaticServer(dir, { cors: true, delayMs: 40 });
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([site?.close(), slow?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const cases: Array<[string, (page: Page) => Promise<void>]> = [
    ['mldf', (page) => pickFiles(page, [join(dir, 'samples.mldf')])],
    ['udf', (page) => pickFiles(page, [join(dir, 'mesh.udf')])],
    ['taridx', (page) => pickFiles(page, [join(dir, 'train.taridx'), join(dir, 'train_0000.tar')])],
    ['scdl', (page) => pickFolder(page, join(dir, 'archive'))],
  ];
  for (const [format, open] of cases) {
    it(`${format}: counts up to 100 % and ends with the report`, async () => {
      const page = await browser.context.newPage();
      await page.addInitScript(RECORD_PERCENTAGES);
      await page.goto(site.url);
      await open(page);
      expect(await detectedFormat(page)).toBe(format);
      const report = await waitForValidation(page);
      expect(report.valid).toBe(true);
      const seen = await seenPercent(page);
      console.info(`${format}: percentages shown ${seen.join(' ')}`);
      expect(seen.some((p) => p > 0 && p < 100)).toBe(true);
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
      expect(seen.at(-1)).toBe(100);
      await page.close();
    });
  }

  it('cancel stops a validation mid-way and leaves no report', async () => {
    const page = await browser.context.newPage();
    await page.addInitScript(KEEP_WORKERS);
    await page.goto(site.url);
    await page.getByTestId('url-input').fill(`${slow.url}/samples.mldf`);
    await page.getByRole('button', { name: 'Open URL' }).click();
    expect(await detectedFormat(page)).toBe('mldf');
    await page.getByRole('button', { name: 'Validate' }).click();
    const progress = page.getByTestId('validation-progress');
    await page.waitForFunction(() => {
      const p = Number(
        document.querySelector('[data-testid="validation-progress"]')?.getAttribute('data-percent'),
      );
      return p > 0 && p < 100;
    });
    // What the page asked for stays on its way while it cancels, on any machine.
    slow.pause();
    await progress.getByRole('button', { name: 'cancel' }).click();
    await page.getByTestId('validation-cancelled').waitFor();
    expect(await page.getByTestId('validity').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Validate' }).isVisible()).toBe(true);
    // The worker takes messages in order: once it answers one sent after the cancel, it has
    // taken the cancel, however busy the machine.
    await page.evaluate(ASK_WORKER);
    const asked = slow.received.get('/samples.mldf') ?? 0;
    slow.resume();
    // A validation still going would now get its held reads and ask for the rest of the file
    // (it was between 0 and 100 %); a cancelled one asks for nothing more.
    await page.waitForTimeout(1000);
    expect(slow.received.get('/samples.mldf') ?? 0).toBe(asked);
    expect(await page.getByTestId('validity').count()).toBe(0);
    await page.close();
  });
});
