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

/** What `entry` reaches, through static imports only or (`dynamic`) through `import()` too. */
function resolveImports(
  entry: string,
  condition: 'node' | 'default',
  dynamic = true,
): { files: string[]; external: Set<string> } {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      if (!dynamic && match[2] !== undefined) continue;
      const spec = match[1] ?? match[2];
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      else if (spec === '#zlib') visit(path.join(root, pkg.imports['#zlib'][condition]));
      else if (spec === '@binscope/core') visit(path.join(coreDist, 'index.js'));
      else if (spec === '@binscope/core/node') visit(path.join(coreDist, 'node/index.js'));
      else if (spec.startsWith('@binscope/core/')) visit(path.join(coreDist, `${spec.slice(15)}.js`));
      else external.add(spec);
    }
  };
  visit(entry);
  return { files: [...seen], external };
}

describeWith(built, 'built entries', () => {
  it('the browser chain of index.js (converters and sample included) has no node: import, only pako and papaparse', () => {
    const { files, external } = resolveImports(path.join(dist, 'index.js'), 'default');
    expect(files).toContain(path.join(dist, 'zlib-browser.js'));
    expect(files).not.toContain(path.join(dist, 'zlib-node.js'));
    expect([...external].sort()).toEqual(['pako', 'papaparse']);
    for (const file of files) expect(fs.readFileSync(file, 'utf8'), file).not.toMatch(/["']node:/);
  });

  it('in Node, index.js reaches node:zlib through "#zlib"', () => {
    const { files, external } = resolveImports(path.join(dist, 'index.js'), 'node');
    expect(files).toContain(path.join(dist, 'zlib-node.js'));
    expect(external.has('node:zlib')).toBe(true);
  });

  it('magic.js carries no parser code: the plugin and the converters come by import()', async () => {
    const magic = path.join(dist, 'magic.js');
    const { files, external } = resolveImports(magic, 'default', false);
    expect([...external]).toEqual([]);
    const text = files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    // Markers of the parser (a message of the layout parse), the inflater and the CSV parser.
    expect(text).not.toMatch(/meta_table_offset|points into the header|inflate|Cursor|papaparse/i);
    expect(text).toMatch(/import\(["']\.\/plugin-[\w-]+\.js["']\)/);
    // And the entry it gives loads the real plugin and converters.
    const { scbfFormat, csvToScbfConverter } = await import(magic);
    expect((await scbfFormat.load()).id).toBe('scbf');
    expect(typeof (await csvToScbfConverter.load()).convert).toBe('function');
  });

  it('papaparse is reached only on demand: from node.js, and from index.js through import() alone', () => {
    expect(resolveImports(path.join(dist, 'node.js'), 'node').external.has('papaparse')).toBe(true);
    expect(resolveImports(path.join(dist, 'index.js'), 'node', false).external.has('papaparse')).toBe(false);
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
