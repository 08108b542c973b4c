import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtFile, describeWith } from '@binscope/testkit';
import { expect, it } from 'vitest';

// Checks the built package (turbo builds before tests): what an app that only detects
// formats pulls in from /magic, and what a browser bundle of the main entry reaches.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const coreDist = path.resolve(root, 'node_modules/@binscope/core/dist');
const built = builtFile(path.join(dist, 'magic.js'));

const SPECIFIER =
  /(?:import|export)\s*(?:[^'"]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The files `entry` reaches, through static imports only or (`dynamic`) through `import()` too. */
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
      else if (spec === '@binscope/core') visit(path.join(coreDist, 'index.js'));
      else if (spec.startsWith('@binscope/core/')) visit(path.join(coreDist, `${spec.slice(15)}.js`));
      else external.add(spec);
    }
  };
  visit(entry);
  return { files: [...seen], external };
}

/** Strings only the archive parse, the header parse and the parquet reader contain. */
const PARSER =
  /only numeric arrays are supported|row_ptr ends at|is not an ArrayDType|array count|hyparquet|parquetMetadata/;

describeWith(built, 'built entries', () => {
  it('magic.js carries no parser code: the plugin and the header parse come by import()', async () => {
    const magic = path.join(dist, 'magic.js');
    const { files, external } = reach(magic, false);
    expect([...external]).toEqual([]);
    const text = files
      .filter((f) => f.startsWith(dist))
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    expect(text).not.toMatch(PARSER);
    expect(text).toMatch(/import\(["']\.\/plugin-[\w-]+\.js["']\)/);
    expect(text).toMatch(/import\(["']\.\/expected-files-[\w-]+\.js["']\)/);
    // The entry it gives loads the real plugin.
    const { scdlFormat } = await import(magic);
    expect((await scdlFormat.load()).id).toBe('scdl');
  });

  it('the browser chain of index.js (plugin, writer, sample) has no node: import', () => {
    const { files, external } = reach(path.join(dist, 'index.js'), true);
    expect([...external].sort()).toEqual(['hyparquet', 'hyparquet-writer', 'hyparquet/src/column.js']);
    for (const file of files) expect(fs.readFileSync(file, 'utf8'), file).not.toMatch(/["']node:/);
  });
});
