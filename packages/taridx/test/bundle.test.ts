import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtFile, describeWith } from '@binscope/testkit';
import { expect, it } from 'vitest';

// Checks the built package (turbo builds before tests): what a bundler pulls in from each entry.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const coreDist = path.resolve(root, 'node_modules/@binscope/core/dist');
const built = builtFile(path.join(dist, 'index.js'));

const SPECIFIER =
  /(?:import|export)\s*(?:[^'"]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** What `entry` reaches, through static imports only or (`dynamic`) through `import()` too. */
function resolveImports(entry: string, dynamic = true): { files: string[]; external: Set<string> } {
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
  it('magic.js carries no parser code: the plugin and the converter come by import()', async () => {
    const magic = path.join(dist, 'magic.js');
    const { files, external } = resolveImports(magic, false);
    expect([...external]).toEqual([]);
    const text = files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    // Markers of the parser (a message of the header checks, the row grouping, the hasher).
    expect(text).not.toMatch(/off_crash|points into the 64-byte header|groupRows|xxhash|h64Raw/);
    expect(text).toMatch(/import\(["']\.\/plugin-[\w-]+\.js["']\)/);
    expect(text).toMatch(/import\(["']\.\/convert-[\w-]+\.js["']\)/);
    // And the entries it gives load the real plugin and converter.
    const { taridxFormat, tarToTaridxConverter, tarShardFormat } = await import(magic);
    expect((await taridxFormat.load()).id).toBe('taridx');
    expect(typeof (await tarToTaridxConverter.load()).convert).toBe('function');
    expect(tarShardFormat.load).toBeUndefined();
  });

  it('the browser chain of index.js (converter and sample included) has no node: import', () => {
    const { files, external } = resolveImports(path.join(dist, 'index.js'));
    expect(files.some((f) => /sample-[\w-]+\.js$/.test(f))).toBe(true);
    expect([...external].sort()).toEqual(['xxhash-wasm']);
    for (const file of files) expect(fs.readFileSync(file, 'utf8'), file).not.toMatch(/["']node:/);
  });
});
