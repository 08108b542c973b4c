import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtFile, describeWith, reachBuilt } from '@binscope/testkit';
import { expect, it } from 'vitest';

// Checks the built package (turbo builds before tests): what a bundler pulls in from each entry.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const built = builtFile(path.join(dist, 'magic.js'));

describeWith(built, 'built entries', () => {
  it('magic.js carries no parser code: the plugin comes by import()', async () => {
    const magic = path.join(dist, 'magic.js');
    const { files, external } = reachBuilt(magic, { dynamic: false });
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
    const { files, external } = reachBuilt(path.join(dist, 'index.js'), { dynamic: true });
    expect(files.some((f) => /sample-[\w-]+\.js$/.test(f))).toBe(true);
    expect([...external].sort()).toEqual(['@binscope/core', '@binscope/core/binary']);
    for (const file of files) expect(fs.readFileSync(file, 'utf8'), file).not.toMatch(/["']node:/);
  });
});
