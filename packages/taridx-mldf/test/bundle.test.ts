import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtFile, describeWith } from '@binscope/testkit';
import { expect, it } from 'vitest';

// Checks the built package (turbo builds before tests): /magic is metadata only.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const built = builtFile(path.join(dist, 'magic.js'));

const SPECIFIER = /(?:import|export)\s*(?:[^'"]*?\sfrom\s*)?["']([^"']+)["']/g;

/** The files and packages `entry` reaches through static imports. */
function staticImports(entry: string): { files: string[]; external: Set<string> } {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (match[1].startsWith('.')) visit(path.resolve(path.dirname(file), match[1]));
      else external.add(match[1]);
    }
  };
  visit(entry);
  return { files: [...seen], external };
}

describeWith(built, 'built /magic entry', () => {
  it('carries no converter code: the JPEG decoder, the MLDF writer and the taridx reader come by import()', async () => {
    const magic = path.join(dist, 'magic.js');
    const { files, external } = staticImports(magic);
    expect([...external]).toEqual([]);
    const text = files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    expect(text).not.toMatch(/MldfWriter|jsquash|fast-png|openTaridx|wasm/);
    expect(text).toMatch(/import\(["']\.\/converter-[\w-]+\.js["']\)/);
    const { taridxToMldfConverter } = await import(magic);
    expect(typeof (await taridxToMldfConverter.load()).convert).toBe('function');
  });
});
