import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { distDir } from './helpers';
import { type StaticServer, startStaticServer } from './server';

/** Debian's chromium (see the README); override with CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumPresent = existsSync(CHROMIUM);

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A browser with a fresh profile in a temp folder, removed on close. */
export async function launchBrowser(
  options: {
    viewport?: { width: number; height: number };
    deviceScaleFactor?: number;
    extraArgs?: string[];
  } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'binscope-e2e-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...ARGS, ...(options.extraArgs ?? [])],
    viewport: options.viewport ?? { width: 1440, height: 900 },
    deviceScaleFactor: options.deviceScaleFactor,
    acceptDownloads: true,
  });
  // Playwright waits 30 s by default; on a busy machine a wait may need longer. The tests'
  // own timeout (vitest.e2e.config.ts) still bounds a hung page.
  context.setDefaultTimeout(80_000);
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The built site served on 127.0.0.1 and a browser, started before a describe block's tests
 * and closed after them. Read `site`/`browser` inside tests (they exist once beforeAll ran).
 */
export function useSiteAndBrowser(): {
  readonly site: StaticServer;
  readonly browser: Awaited<ReturnType<typeof launchBrowser>>;
} {
  let site: StaticServer | undefined;
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  beforeAll(async () => {
    site = await startStaticServer(distDir, { spa: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });
  return {
    get site() {
      if (!site) throw new Error('the site starts in beforeAll');
      return site;
    },
    get browser() {
      if (!browser) throw new Error('the browser starts in beforeAll');
      return browser;
    },
  };
}
