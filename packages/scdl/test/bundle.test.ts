import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtFile, describeWith, reachBuilt } from '@binscope/testkit';
import { expect, it } from 'vitest';

// Checks the built package (turbo builds before tests): what an app that only detects
// formats pulls in from /magic, and what a browser bundle of the main entry reaches.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const coreDist = path.resolve(root, 'node_modules/@binscope/core/dist');
const built = builtFile(path.join(dist, 'magic.js'));

/** Strings only the archive parse, the header parse and the parquet reader contain. */
const PARSER =
  /only numeric arrays are supported|row_ptr ends at|is not an ArrayDType|array count|hyparquet|parquetMetadata/;

describeWith(built, 'built entries', () => {
  it('magic.js carries no parser code: the plugin and the header parse come by import()', async () => {
    const magic = path.join(dist, 'magic.js');
    const { files, external } = reachBuilt(magic, { dynamic: false, coreDist });
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
    const { files, external } = reachBuilt(path.join(dist, 'index.js'), { dynamic: true, coreDist });
    expect([...external].sort()).toEqual(['hyparquet', 'hyparquet-writer', 'hyparquet/src/column.js']);
    for (const file of files) expect(fs.readFileSync(file, 'utf8'), file).not.toMatch(/["']node:/);
  });
});
