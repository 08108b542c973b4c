/**
 * The browser entry bundled by esbuild for a browser (no Node built-ins allowed) and run in
 * Chromium over an in-memory fold: its MLDF bytes must be the ones Node writes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryDirectory, MemorySink } from '@binscope/core';
import { builtFile, describeWith, IN_CI, type Prerequisite } from '@binscope/testkit';
import { build, type Metafile } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { convertTaridxToMldf } from '../src/index.js';
import { makeFold } from './fold.js';

const root = path.resolve(import.meta.dirname, '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function chromiumInstalled(): Prerequisite {
  if (fs.existsSync(CHROMIUM)) return { present: true, missing: '' };
  const missing = `no Chromium at ${CHROMIUM} (bash scripts/ensure-chromium.sh, or set CHROMIUM_PATH)`;
  if (IN_CI) throw new Error(`CI: ${missing}`);
  console.warn(`skipped: ${missing}`);
  return { present: false, missing };
}

/** Every module the bundle pulled in, relative to the package folder. */
function bundledInputs(metafile: Metafile): string[] {
  return Object.keys(metafile.inputs);
}

describeWith([builtFile(path.join(root, 'dist/index.js')), chromiumInstalled()], 'in a browser', () => {
  let bundle: { code: string; inputs: string[] };
  let browser: Browser;

  beforeAll(async () => {
    // platform 'browser': a `node:` import or a bare built-in (fs, path, …) fails the build.
    const result = await build({
      entryPoints: [path.join(import.meta.dirname, 'browser/entry.ts')],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: root,
    });
    bundle = { code: result.outputFiles[0].text, inputs: bundledInputs(result.metafile) };
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('the bundle is the browser entry with both image decoders and nothing of Node', () => {
    expect(bundle.inputs).toContain('dist/index.js');
    expect(bundle.inputs.filter((p) => p.startsWith('src/') || p === 'dist/node.js')).toEqual([]);
    // libjpeg-turbo's WebAssembly, inlined (no fetch), and its emscripten glue.
    expect(bundle.inputs.some((p) => p.includes('@jsquash/jpeg/codec/dec/mozjpeg_dec.js'))).toBe(true);
    expect(bundle.inputs.some((p) => p.includes('jpeg-codec'))).toBe(true);
    expect(bundle.code).not.toMatch(/\bBuffer\.from\(/);
    expect(bundle.inputs.some((p) => p.includes('fast-png'))).toBe(true);
    expect(
      bundle.inputs.filter((p) => /(^|[/:])node:|\bnode_modules\/(buffer|process|path-browserify)\//.test(p)),
    ).toEqual([]);
    expect(bundle.code).not.toMatch(
      /\brequire\(["'](?:node:)?(?:fs|path|os|crypto|zlib|stream|buffer)["']\)/,
    );
    expect(bundle.code).not.toMatch(/["']node:[a-z_]+["']/);
  });

  it('converts a fold with PNG, JPEG, .json, .txt, .cls and .npy members to the bytes Node writes', async () => {
    const { files } = await makeFold();
    const options = { checksum: true };
    const nodeSink = new MemorySink();
    await convertTaridxToMldf({ directory: new MemoryDirectory(files), fold: 'train' }, nodeSink, options);
    const page = await browser.newPage();
    try {
      await page.addScriptTag({ content: bundle.code });
      const shards = Object.fromEntries(
        Object.entries(files).map(([name, bytes]) => [name, Buffer.from(bytes).toString('base64')]),
      );
      const got = await page.evaluate(
        async ({ shards, options }) => {
          const g = globalThis as unknown as {
            convertFold(
              s: Record<string, string>,
              f: string,
              o: object,
            ): Promise<{ mldf: string; samples: number }>;
            process?: unknown;
          };
          return { ...(await g.convertFold(shards, 'train', options)), hasProcess: g.process !== undefined };
        },
        { shards, options },
      );
      expect(got.hasProcess).toBe(false);
      expect(got.samples).toBe(6);
      const browserBytes = Buffer.from(got.mldf, 'base64');
      expect(browserBytes.byteLength).toBe(nodeSink.position);
      expect(browserBytes.equals(Buffer.from(nodeSink.bytes()))).toBe(true);
    } finally {
      await page.close();
    }
  });
});
