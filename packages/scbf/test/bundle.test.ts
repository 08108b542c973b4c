import * as fs from 'node:fs';
import * as path from 'node:path';
import { builtFile, describeWith } from '@binscope/testkit';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// Checks the built package (turbo builds before tests): what a browser bundler would pull in
// from each entry, resolving "#zlib" the way a browser build does (no "node" condition).

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const coreDist = path.resolve(root, 'node_modules/@binscope/core/dist');
const built = builtFile(path.join(dist, 'index.js'));

const SPECIFIER =
  /(?:import|export)\s*(?:[^'"]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function resolveImports(
  entry: string,
  condition: 'node' | 'default',
): { files: string[]; external: Set<string> } {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const spec = match[1] ?? match[2];
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      else if (spec === '#zlib') visit(path.join(root, pkg.imports['#zlib'][condition]));
      else if (spec === '@binscope/core') visit(path.join(coreDist, 'index.js'));
      else external.add(spec);
    }
  };
  visit(entry);
  return { files: [...seen], external };
}

describeWith(built, 'built entries', () => {
  it("the browser chain of index.js has no node: import, only pako (and core's aws4fetch)", () => {
    const { files, external } = resolveImports(path.join(dist, 'index.js'), 'default');
    expect(files).toContain(path.join(dist, 'zlib-browser.js'));
    expect(files).not.toContain(path.join(dist, 'zlib-node.js'));
    // aws4fetch is core's S3 signer: fetch + WebCrypto only, so it runs in browsers.
    expect([...external].sort()).toEqual(['aws4fetch', 'pako']);
    for (const file of files) expect(fs.readFileSync(file, 'utf8'), file).not.toMatch(/["']node:/);
  });

  it('in Node, index.js reaches node:zlib through "#zlib"', () => {
    const { files, external } = resolveImports(path.join(dist, 'index.js'), 'node');
    expect(files).toContain(path.join(dist, 'zlib-node.js'));
    expect(external.has('node:zlib')).toBe(true);
  });

  it('magic.js carries no parser code', () => {
    const { files, external } = resolveImports(path.join(dist, 'magic.js'), 'default');
    expect([...external]).toEqual([]);
    const text = files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    expect(text).not.toMatch(/inflate|Cursor|csv/i);
  });

  it('papaparse is only reached from node.js', () => {
    expect(resolveImports(path.join(dist, 'node.js'), 'node').external.has('papaparse')).toBe(true);
    expect(resolveImports(path.join(dist, 'index.js'), 'node').external.has('papaparse')).toBe(false);
  });

  it('node and browser builds decode a file identically', async () => {
    const { encodeScbf, openScbf, zlibName } = await import(path.join(dist, 'index.js'));
    const browserZlib = await import(path.join(dist, 'zlib-browser.js'));
    expect(zlibName).toBe('node:zlib');
    const { MemorySource } = await import('@binscope/core');
    const bytes: Uint8Array = await encodeScbf([
      { name: 'a', values: Int32Array.from({ length: 5000 }, (_, i) => i * i) },
      { name: 's', values: Array.from({ length: 5000 }, (_, i) => `s${i}é`) },
    ]);
    const reader = await openScbf(new MemorySource(bytes));
    for (const column of reader.columns) {
      for (const block of column.blocks) {
        const viaNode: Uint8Array = await reader.readBlock(block, column);
        const compressed = bytes.subarray(block.offset, block.offset + block.compressedSize);
        const viaPako = browserZlib.inflateBlock(compressed, block.uncompressedSize);
        expect(viaPako.ok).toBe(true);
        expect(Buffer.from(viaPako.bytes).equals(Buffer.from(viaNode))).toBe(true);
      }
    }
  });
});
