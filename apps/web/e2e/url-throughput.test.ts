import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MldfFileWriter } from '@binscope/mldf/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchBrowser } from './browser';
import { detectedFormat, distDir, waitForValidation } from './helpers';
import { type StaticServer, startStaticServer } from './server';

const ready = chromiumPresent && existsSync(join(distDir, 'index.html'));

/** 25,000 samples of a 64×64×3 image, a label and a small JSON record: ~311 MB. */
const SAMPLES = 25_000;
const SIDE = 64;
/** What every response waits before its first byte (the server's per-response latency). */
const LATENCY_MS = 20;
/**
 * The link the page is judged on: 20 ms per request and 1 Gbit/s. Each request is counted as
 * costing its latency in full, as if none overlapped with another: a bound on the real time,
 * which read-ahead only shortens. The faster the link, the more a request costs in bytes not
 * sent, so a fast one is the strict case.
 */
const LINK_BYTES_PER_SECOND = 125e6;
const MIN_EFFICIENCY = 0.7;

/**
 * Share of the link's throughput a pass gets at most that needs `useful` bytes and was sent
 * `served` bytes in `requests` requests: bytes sent twice count as time lost, as latency does.
 */
function efficiency(useful: number, served: number, requests: number): number {
  const seconds = served / LINK_BYTES_PER_SECOND + (requests * LATENCY_MS) / 1000;
  return useful / LINK_BYTES_PER_SECOND / seconds;
}

/** Written by the package's streaming writer: values are spilled to disk, never held in memory. */
async function writeLargeFile(path: string): Promise<void> {
  let seed = 42;
  const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
  const pool = Array.from({ length: 16 }, () =>
    Uint8Array.from({ length: SIDE * SIDE * 3 }, () => next() >>> 24),
  );
  const writer = MldfFileWriter.create(path, [
    { name: 'image', type: 'IMAGE_RAW' },
    { name: 'label', type: 'INT' },
    { name: 'meta', type: 'JSON' },
  ]);
  for (let i = 0; i < SAMPLES; i++) {
    const pixels = pool[i % pool.length].slice();
    pixels[0] = i & 0xff;
    writer.add({
      image: { height: SIDE, width: SIDE, channels: 3, pixels },
      label: i % 1000,
      meta: { id: i, split: i % 10 === 0 ? 'val' : 'train' },
    });
  }
  await writer.finish();
}

/** Every progress message the worker sent, with the byte counters it carried. */
const RECORD_PROGRESS = () => {
  const seen: Array<{ percent: number; bytesRead?: number; size?: number }> = [];
  (window as unknown as { seenProgress: typeof seen }).seenProgress = seen;
  const PageWorker = window.Worker;
  window.Worker = class extends PageWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      this.addEventListener('message', (event: MessageEvent) => {
        const data = event.data as {
          progress?: { done: number; total?: number };
          stats?: { bytesRead: number; size: number };
        } | null;
        if (!data?.progress?.total) return;
        seen.push({
          percent: Math.floor((100 * data.progress.done) / data.progress.total),
          bytesRead: data.stats?.bytesRead,
          size: data.stats?.size,
        });
      });
    }
  };
};

describe.skipIf(!ready)('validating a 300 MB file by URL', () => {
  let site: StaticServer;
  let files: StaticServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let dir: string;
  let size = 0;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-throughput-'));
    await writeLargeFile(join(dir, 'big.mldf'));
    size = statSync(join(dir, 'big.mldf')).size;
    site = await startStaticServer(distDir, { spa: true });
    files = await startStaticServer(dir, { cors: true, delayMs: LATENCY_MS });
    browser = await launchBrowser();
  }, 900_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([site?.close(), files?.close()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the link model can fail', () => {
    // 3,188 requests for 320 MB (issue #35) is far below the goal, and so is every byte sent
    // twice; one request per 8 MiB window is above it.
    expect(efficiency(320e6, 320e6, 3188)).toBeLessThan(MIN_EFFICIENCY);
    expect(efficiency(320e6, 2 * 320e6, 320e6 / (8 << 20))).toBeLessThan(MIN_EFFICIENCY);
    expect(efficiency(320e6, 320e6, 320e6 / (8 << 20))).toBeGreaterThan(MIN_EFFICIENCY);
  });

  it('reads ahead in growing windows, reads each byte about once, and shows honest progress', async () => {
    expect(size).toBeGreaterThanOrEqual(300e6);
    const page = await browser.context.newPage();
    await page.addInitScript(RECORD_PROGRESS);
    await page.goto(site.url);
    await page.getByTestId('url-input').fill(`${files.url}/big.mldf`);
    await page.getByRole('button', { name: 'Open URL' }).click();
    expect(await detectedFormat(page)).toBe('mldf');
    const requests = () => files.received.get('/big.mldf') ?? 0;
    const served = () => files.served.get('/big.mldf') ?? 0;

    // Opening and jumping to the middle are random reads: small requests, no read-ahead.
    await page.getByLabel('Go to offset').fill(String(Math.floor(size / 2)));
    await page.getByLabel('Go to offset').press('Enter');
    await page.waitForSelector(`.hexcols .b[data-offset="${Math.floor(size / 2)}"]:not(:empty)`);
    const opened = { requests: requests(), served: served() };
    expect(opened.served).toBeLessThan(1 << 20);

    const started = Date.now();
    await page.getByRole('button', { name: 'Validate' }).click();
    // Only bounds a hung page: before read-ahead this took minutes.
    await page.getByTestId('validity').waitFor({ timeout: 1_000_000 });
    const report = await waitForValidation(page);
    const seconds = (Date.now() - started) / 1000;
    const validation = { requests: requests() - opened.requests, served: served() - opened.served };
    const share = efficiency(size, validation.served, validation.requests);
    // For the record only (never asserted: the machine is shared).
    console.info(
      `${(size / 1e6).toFixed(1)} MB by URL at ${LATENCY_MS} ms: validation made ${validation.requests} requests, ` +
        `${validation.served} B served (${(validation.served / size).toFixed(3)} × the file), ` +
        `${(validation.served / validation.requests / 2 ** 20).toFixed(2)} MiB per request, ` +
        `${(100 * share).toFixed(1)} % of a 1 Gbit/s link by the counts, ${seconds.toFixed(1)} s`,
    );
    expect(report.valid).toBe(true);
    // The validator reads the whole file (its values are checked), each byte about once.
    expect(validation.served).toBeGreaterThan(0.9 * size);
    expect(validation.served).toBeLessThanOrEqual(1.1 * size);
    expect(share).toBeGreaterThanOrEqual(MIN_EFFICIENCY);

    // Progress never runs ahead of the bytes fetched: every percentage shown was backed by
    // at least that share of the file having arrived.
    const seen = await page.evaluate(
      () =>
        (window as unknown as { seenProgress: Array<{ percent: number; bytesRead?: number }> }).seenProgress,
    );
    console.info(`percentages shown: ${seen.map((p) => p.percent).join(' ')}`);
    expect(seen.some((p) => p.percent > 0 && p.percent < 100)).toBe(true);
    for (const p of seen) {
      expect(p.bytesRead, 'each progress message carries the byte counters').toBeTypeOf('number');
      expect(p.percent).toBeLessThanOrEqual((100 * (p.bytesRead ?? 0)) / size + 1);
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i].percent).toBeGreaterThanOrEqual(seen[i - 1].percent);
    await page.close();
  }, 1_200_000);

  it('cancel aborts the windows being read ahead and asks for nothing more', async () => {
    const page = await browser.context.newPage();
    await page.goto(site.url);
    await page.getByTestId('url-input').fill(`${files.url}/big.mldf`);
    await page.getByRole('button', { name: 'Open URL' }).click();
    expect(await detectedFormat(page)).toBe('mldf');
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.waitForFunction(() => {
      const p = Number(
        document.querySelector('[data-testid="validation-progress"]')?.getAttribute('data-percent'),
      );
      return p >= 20 && p < 80;
    });
    // Past the first windows (read directly, at the caller's request), the pass reads ahead:
    // it soon waits for a window fetched ahead that the server now holds.
    files.pause();
    await expect.poll(() => files.waiting('/big.mldf'), { timeout: 600_000 }).toBeGreaterThan(0);
    await page.getByTestId('validation-progress').getByRole('button', { name: 'cancel' }).click();
    await page.getByTestId('validation-cancelled').waitFor();
    // Every request still on its way is given up by the page, while the server holds it. The
    // bound only tells a cancel from the page's own 30 s idle timeout, which would also end a
    // request nobody aborted; a cancel takes milliseconds, however busy the machine.
    await expect.poll(() => files.waiting('/big.mldf'), { timeout: 20_000 }).toBe(0);
    const asked = files.received.get('/big.mldf') ?? 0;
    files.resume();
    // A pass still going would now ask for its next window; a cancelled one asks for nothing.
    await page.waitForTimeout(1000);
    expect(files.received.get('/big.mldf') ?? 0).toBe(asked);
    expect(await page.getByTestId('validity').count()).toBe(0);
    await page.close();
  }, 1_200_000);
});
