import * as fs from 'node:fs';
import * as path from 'node:path';

const SPECIFIER =
  /(?:import|export)\s*(?:[^'"]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/**
 * The built files `entry` reaches (static imports only, or `import()` too with `dynamic`) and
 * the bare specifiers it imports from outside: what a bundler would pull in. With `coreDist`,
 * `@binscope/core` and its subpaths are followed into that folder instead of counted outside.
 */
export function reachBuilt(
  entry: string,
  options: { dynamic: boolean; coreDist?: string },
): { files: string[]; external: Set<string> } {
  const seen = new Set<string>();
  const external = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (!options.dynamic && match[2] !== undefined) continue;
      const spec = match[1] ?? match[2];
      if (spec.startsWith('.')) pending.push(path.resolve(path.dirname(file), spec));
      else if (options.coreDist && spec === '@binscope/core')
        pending.push(path.join(options.coreDist, 'index.js'));
      else if (options.coreDist && spec.startsWith('@binscope/core/'))
        pending.push(path.join(options.coreDist, `${spec.slice('@binscope/core/'.length)}.js`));
      else external.add(spec);
    }
  }
  return { files: [...seen], external };
}
