import { defineConfig, type Plugin } from 'vite';
import { makeSamples } from './samples/make-samples';

/** Writes the sample files with the project's writers into the build (nothing binary is committed). */
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

const PARSER_ENTRY = /\/packages\/([a-z0-9-]+)\/(?:dist|src)\/index\.[jt]s$/;

function parserChunkName(chunk: { facadeModuleId: string | null }): string {
  const format = chunk.facadeModuleId?.replaceAll('\\', '/').match(PARSER_ENTRY)?.[1];
  return format ? `assets/parser-${format}-[hash].js` : 'assets/[name]-[hash].js';
}

// React without @vitejs/plugin-react: esbuild (already inside Vite) compiles JSX with the
// automatic runtime. We give up Fast Refresh (dev reloads the page instead); see README.
export default defineConfig({
  plugins: [samples()],
  esbuild: { jsx: 'automatic', jsxImportSource: 'react' },
  worker: {
    format: 'es',
    // Each format's parser is a chunk of its own, fetched when a file of that format is
    // opened; naming it after the format makes that visible in the build (and testable).
    rollupOptions: { output: { chunkFileNames: parserChunkName } },
  },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 4096 },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
