import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What a package exports, entry by entry ("." and each subpath of package.json "exports"), as
 * sorted names: read from the source files the built entries come from (dist/x.js ← src/x.ts),
 * so a test pins the public API without needing a build.
 */
export async function publicApi(packageDir: string): Promise<Record<string, string[]>> {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { default?: string; import?: string }>;
  };
  const api: Record<string, string[]> = {};
  for (const [entry, target] of Object.entries(pkg.exports)) {
    const built = typeof target === 'string' ? target : (target.import ?? target.default);
    if (!built?.endsWith('.js')) continue;
    const source = path.join(packageDir, built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
    if (!fs.existsSync(source)) throw new Error(`${entry}: no source file ${source} for ${built}`);
    api[entry] = Object.keys(await import(pathToFileURL(source).href)).sort();
  }
  return api;
}
