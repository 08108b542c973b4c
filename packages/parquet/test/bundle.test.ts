import * as fs from 'node:fs';
import * as path from 'node:path';
import { builtFile, describeWith, reachBuilt } from '@binscope/testkit';
import { build } from 'esbuild';
import { gzipSync } from 'fflate';
import { expect, it } from 'vitest';

// Checks the built package (turbo builds before tests): what an app's detection step pulls in,
// and that a browser bundle of the whole package (reader, export, their libraries) builds.

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const coreDist = path.resolve(root, 'node_modules/@binscope/core/dist');

/** Strings only the reader and the writer contain. */
const PARSER = /ParquetWriter|parquetMetadata|footer does not decode|row group \$\{/;

/** esbuild's browser bundle of `entry`, minified: a `node:` import or a bare built-in fails the build. */
async function browserBundle(contents: string, external: string[] = []) {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'js' },
    bundle: true,
    external,
    platform: 'browser',
    format: 'esm',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles.map((f) => f.contents);
  const bytes = code.reduce((n, c) => n + c.byteLength, 0);
  const gzipped = code.reduce((n, c) => n + gzipSync(c, { level: 9 }).byteLength, 0);
  return { bytes, gzipped, inputs: Object.keys(result.metafile.inputs) };
}

describeWith(builtFile(path.join(dist, 'magic.js')), 'built entries', () => {
  it('magic.js carries no reader or writer: they come by import()', async () => {
    const magic = path.join(dist, 'magic.js');
    const { files, external } = reachBuilt(magic, { dynamic: false, coreDist });
    expect([...external]).toEqual([]);
    const text = files
      .filter((f) => f.startsWith(dist))
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    expect(text).not.toMatch(PARSER);
    expect(text).toMatch(/import\(["']\.\/plugin-[\w-]+\.js["']\)/);
    expect(text).toMatch(/import\(["']\.\/export-[\w-]+\.js["']\)/);
    const { parquetFormat, recordsToParquetConverter } = await import(magic);
    expect((await parquetFormat.load()).id).toBe('parquet');
    expect(typeof (await recordsToParquetConverter.load()).convertRecords).toBe('function');
  });

  it('the whole package bundles for a browser, with no Node built-in', async () => {
    const all = await browserBundle(
      `export * from ${JSON.stringify(path.join(dist, 'index.js'))}; import('hyparquet-compressors');`,
    );
    expect(all.inputs.some((i) => /hyparquet-writer/.test(i))).toBe(true);
    expect(all.inputs.some((i) => /hyparquet-compressors/.test(i))).toBe(true);
    expect(all.inputs.filter((i) => /^node:|\(disabled\)/.test(i))).toEqual([]);
    // What each part adds to a page that already has core: sizes for the README, not asserted.
    const chunk = (prefix: string) =>
      path.join(dist, fs.readdirSync(dist).find((f) => f.startsWith(prefix) && f.endsWith('.js'))!);
    const core = ['@binscope/core', '@binscope/core/*'];
    const parts = {
      export: await browserBundle(`export * from ${JSON.stringify(chunk('export-'))};`, core),
      reader: await browserBundle(`export * from ${JSON.stringify(chunk('plugin-'))};`, [
        ...core,
        'hyparquet-compressors',
      ]),
      decompressors: await browserBundle("export * from 'hyparquet-compressors';"),
    };
    for (const [name, p] of Object.entries(parts))
      console.log(`browser bundle, minified, beside core: ${name} ${p.bytes} B, ${p.gzipped} B gzipped`);
  });
});
