import * as fs from 'node:fs';
import * as path from 'node:path';
import { builtFile, describeWith, reachBuilt } from '@binscope/testkit';
import { expect, it } from 'vitest';

// The built package as a browser bundler sees it (turbo builds before tests).

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const coreDist = path.resolve(root, 'node_modules/@binscope/core/dist');
const text = (files: string[]) => files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');

describeWith(builtFile(path.join(dist, 'magic.js')), 'built entries', () => {
  it('magic.js carries no parser and no apache-arrow: the plugin and the exports come by import()', async () => {
    const magic = path.join(dist, 'magic.js');
    const { files, external } = reachBuilt(magic, { dynamic: false });
    expect([...external]).toEqual(['@binscope/core']);
    expect(text(files)).not.toMatch(/apache-arrow|fast-png|RecordBatch|footer|tabularValue/);
    expect(text(files)).toMatch(/import\(["']\.\/plugin-[\w-]+\.js["']\)/);
    const { arrowFormat, recordsToArrowsConverter } = await import(magic);
    expect((await arrowFormat.load()).id).toBe('arrow');
    expect(typeof (await recordsToArrowsConverter.load()).convertRecords).toBe('function');
  });

  it('the browser chain of index.js (plugin and exports included) has no node: import', () => {
    const { files, external } = reachBuilt(path.join(dist, 'index.js'), { dynamic: true, coreDist });
    expect([...external].filter((s) => !s.startsWith('@binscope/core')).sort()).toEqual([
      'apache-arrow',
      'apache-arrow/ipc/metadata/file',
      'fast-png',
    ]);
    for (const file of files) expect(fs.readFileSync(file, 'utf8'), file).not.toMatch(/["']node:/);
  });
});
