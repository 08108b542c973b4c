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

/** Strings only the AnnData reader, the HDF5 mounts and the conversion contain. */
const PARSER = /h5wasm|encoding-type|neither X nor raw\.X|not a valid row pointer|WORKERFS|ScdlWriter/;

describeWith(built, 'built entries', () => {
  it('magic.js carries no parser code: the plugin and the converter come by import()', async () => {
    const magic = path.join(dist, 'magic.js');
    const { files, external } = reachBuilt(magic, { dynamic: false, coreDist });
    expect([...external]).toEqual([]);
    const text = files
      .filter((f) => f.startsWith(dist))
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    expect(text).not.toMatch(PARSER);
    expect(text).toMatch(/import\(["']\.\/plugin-[\w-]+\.js["']\)/);
    expect(text).toMatch(/import\(["']\.\/converter-[\w-]+\.js["']\)/);
    // The entries it gives load the real plugin and converter.
    const { h5adFormat, h5adToScdlConverter } = await import(magic);
    expect((await h5adFormat.load()).id).toBe('h5ad');
    expect(typeof (await h5adToScdlConverter.load()).convert).toBe('function');
  });

  it('the browser chain of index.js (plugin, converter, mounts) has no node: import', () => {
    const { files, external } = reachBuilt(path.join(dist, 'index.js'), { dynamic: true, coreDist });
    expect([...external].sort()).toEqual(['@binscope/scdl', 'h5wasm']);
    for (const file of files) expect(fs.readFileSync(file, 'utf8'), file).not.toMatch(/["']node:/);
  });
});
