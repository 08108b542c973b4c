import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineConfig, type Plugin, type UserConfig } from 'vite';
import { makeSamples } from './samples/make-samples';

/** Writes the sample files with each format's own writer into the build (nothing binary is committed). */
function samples(): Plugin {
  return {
    name: 'binscope-samples',
    apply: 'build',
    async generateBundle() {
      const { files, manifest } = await makeSamples();
      for (const [path, source] of files)
        this.emitFile({ type: 'asset', fileName: `samples/${path}`, source });
      this.emitFile({ type: 'asset', fileName: 'samples/index.json', source: JSON.stringify(manifest) });
    },
  };
}

const packagesDir = resolve(import.meta.dirname, '..', '..', 'packages');

/**
 * Which built module holds each format's plugin, by format id: the list's `load()` gives the
 * plugin object, and the modules of the workspace's built packages that export that very
 * object are where it is (of several, the one that builds it with core's `definePlugin`,
 * not those that only pass it on). Derived from `@binscope/formats`, so a format added to
 * the list names its chunk with no edit here.
 */
async function pluginModules(): Promise<Map<string, string[]>> {
  const { formats } = await import('@binscope/formats');
  const ids = new Map<unknown, string>();
  for (const format of formats) if (format.load) ids.set(await format.load(), format.id);
  const byModule = new Map<string, string[]>();
  const builders = new Set<string>();
  for (const pkg of readdirSync(packagesDir)) {
    const dist = join(packagesDir, pkg, 'dist');
    let files: string[];
    try {
      files = readdirSync(dist).filter((f) => f.endsWith('.js'));
    } catch {
      continue;
    }
    for (const file of files) {
      const path = join(dist, file);
      const exported = await import(pathToFileURL(path).href).catch(() => ({}));
      const found = [...new Set(Object.values(exported).flatMap((v) => (ids.has(v) ? [ids.get(v)!] : [])))];
      if (!found.length) continue;
      const key = path.replaceAll('\\', '/');
      byModule.set(key, found.sort());
      if (readFileSync(path, 'utf8').includes('definePlugin(')) builders.add(key);
    }
  }
  // A re-export (a package's index of its plugin) is left out when the builder was found.
  for (const [key, found] of byModule)
    if (!builders.has(key) && found.every((id) => [...builders].some((b) => byModule.get(b)?.includes(id))))
      byModule.delete(key);
  return byModule;
}

export default defineConfig(async (): Promise<UserConfig> => {
  const modules = await pluginModules();
  // Each format's parser is a chunk of its own, fetched when a file of that format is opened;
  // naming it after the format makes that visible in the build (and testable).
  const parserChunkName = (chunk: { moduleIds: readonly string[] }) => {
    // By the modules a chunk holds, not its facade: a plugin module other chunks import too
    // (a converter beside it) lands in a shared chunk without one.
    const ids = [...new Set(chunk.moduleIds.flatMap((m) => modules.get(m.replaceAll('\\', '/')) ?? []))];
    return ids.length ? `assets/parser-${ids.sort().join('+')}-[hash].js` : 'assets/[name]-[hash].js';
  };
  return {
    plugins: [samples()],
    // React without @vitejs/plugin-react: esbuild (already inside Vite) compiles JSX with the
    // automatic runtime. We give up Fast Refresh (dev reloads the page instead); see README.
    esbuild: { jsx: 'automatic', jsxImportSource: 'react' },
    worker: { format: 'es', rollupOptions: { output: { chunkFileNames: parserChunkName } } },
    build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 4096 },
    server: { host: '127.0.0.1' },
    preview: { host: '127.0.0.1' },
  };
});
