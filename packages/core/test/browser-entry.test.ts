import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The browser entries (the contract, /binary, /http, /s3) must not reach Node built-ins: what
// reads files, ~/.aws and the environment stays in the node entry. Only /s3 may pull aws4fetch,
// so an app that reads no S3 never bundles it.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const built = fs.existsSync(path.join(dist, 'index.js'));
if (!built) {
  // As the testkit's prerequisites (which core cannot depend on): CI must not pass without it.
  const why = 'core browser-entry test: dist/ is not built (run the package build first)';
  if (['1', 'true'].includes((process.env.CI ?? '').toLowerCase())) throw new Error(`CI: ${why}`);
  console.warn(`skipped: ${why}`);
}

const SPECIFIER =
  /(?:import|export)\s*(?:[^'"]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function chain(entry: string): { files: string[]; external: Set<string> } {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const spec = match[1] ?? match[2];
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      else external.add(spec);
    }
  };
  visit(entry);
  return { files: [...seen], external };
}

describe.skipIf(!built)('core entries', () => {
  it('the browser entries import nothing of Node, and only /s3 imports aws4fetch', () => {
    for (const [entry, allowed] of [
      ['index.js', []],
      ['binary.js', []],
      ['http.js', []],
      ['s3.js', ['aws4fetch']],
    ] as const) {
      const { files, external } = chain(path.join(dist, entry));
      expect([...external].sort(), entry).toEqual(allowed);
      for (const file of files) {
        const text = fs.readFileSync(file, 'utf8');
        expect(text, file).not.toMatch(/["']node:|process\.env|homedir\(/);
      }
    }
    // aws4fetch as a browser bundler resolves it: Web Crypto and fetch only.
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/aws4fetch/package.json'), 'utf8'));
    const browserBuild = path.join(root, 'node_modules/aws4fetch', pkg.exports['.'].browser.default);
    expect(fs.readFileSync(browserBuild, 'utf8')).not.toMatch(
      /require\(["'](?:node:)?(?:crypto|fs|os|http)["']\)/,
    );
  });

  it('the node entry is where AWS settings are read from files and the environment', () => {
    const { files } = chain(path.join(dist, 'node/index.js'));
    const text = files.map((file) => fs.readFileSync(file, 'utf8')).join('\n');
    expect(text).toMatch(/AWS_PROFILE/);
    expect(text).toMatch(/from ["'](?:node:)?fs["']/);
  });
});
