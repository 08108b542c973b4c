import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtFile, describeWith } from '@binscope/testkit';
import { expect, it } from 'vitest';

// Checks the built package (turbo builds before tests): what a bundler pulls in from each entry.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const built = builtFile(path.join(dist, 'magic.js'));

const SPECIFIER =
  /(?:import|export)\s*(?:[^'"]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The package's own files `entry` reaches (static imports only, or `import()` too), and what it imports from outside. */
function reach(entry: string, dynamic: boolean): { files: string[]; external: Set<string> } {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (!dynamic && match[2] !== undefined) continue;
      const spec = match[1] ?? match[2];
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
    const { files, external } = reach(magic, false);
    expect([...external]).toEqual([]);
    const text = files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    // Markers of the parser (header and layout messages), the reader and the writer.
    expect(text).not.toMatch(/field_desc_ptr|metadata_ptr|allocation table|ReadAhead|MldfReader|MldfWriter/);
    expect(text).toMatch(/import\(["']\.\/plugin-[\w-]+\.js["']\)/);
    const { mldfFormat } = await import(magic);
    const plugin = await mldfFormat.load();
    expect(plugin.id).toBe('mldf');
    expect(typeof plugin.open).toBe('function');
  });

  it('index.js and everything it may load (the sample writer included) is browser-safe', () => {
    const { files, external } = reach(path.join(dist, 'index.js'), true);
    expect(files.some((f) => /sample-[\w-]+\.js$/.test(f))).toBe(true);
    expect([...external].sort()).toEqual(['@binscope/core', '@binscope/core/binary']);
    for (const file of files) expect(fs.readFileSync(file, 'utf8'), file).not.toMatch(/["']node:/);
  });
});
