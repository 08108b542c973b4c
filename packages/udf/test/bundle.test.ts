import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtFile, describeWith } from '@binscope/testkit';
import { expect, it } from 'vitest';

// Checks the built package (turbo builds before tests): what an app's detection step pulls in.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const built = builtFile(path.join(dist, 'magic.js'));

const SPECIFIER =
  /(?:import|export)\s*(?:[^'"]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The package's files `entry` reaches through static imports, and the packages it names. */
function staticImports(entry: string): { files: string[]; external: Set<string> } {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (match[2] !== undefined) continue;
      const spec = match[1];
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      else external.add(spec);
    }
  };
  visit(entry);
  return { files: [...seen], external };
}

describeWith(built, 'built entries', () => {
  it('magic.js carries no parser code: the plugin comes by import()', async () => {
    const magic = path.join(dist, 'magic.js');
    const { files, external } = staticImports(magic);
    // The contract's root entry only (DETECTION_SCORE), no Node built-in.
    expect([...external]).toEqual(['@binscope/core']);
    const text = files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    // Markers of the parser: the dataset check value, a descriptor check, the walk.
    expect(text).not.toMatch(/7fcea59b|2144249243|lookup entry|reserved primitive|DatasetWalk/);
    expect(text).toMatch(/import\(["']\.\/plugin-[\w-]+\.js["']\)/);
    const { udfFormat } = await import(magic);
    expect((await udfFormat.load()).id).toBe('udf');
  });

  it('the sample writer is its own chunk, loaded when asked', () => {
    const text = (files: string[]) => files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const eager = staticImports(path.join(dist, 'index.js')).files;
    expect(text(eager)).not.toMatch(/binscope demo scene/);
    const lazy = fs.readdirSync(dist).filter((f) => /^sample-[\w-]+\.js$/.test(f));
    expect(text(lazy.map((f) => path.join(dist, f)))).toMatch(/binscope demo scene/);
  });
});
