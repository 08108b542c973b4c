import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // What tsup's base64 loader does for the build: a `.wasm` import is its bytes as base64.
  plugins: [
    {
      name: 'wasm-bytes',
      enforce: 'pre',
      load(id) {
        if (!id.endsWith('.wasm')) return null;
        const base64 = readFileSync(id).toString('base64');
        return `export default ${JSON.stringify(base64)};`;
      },
    },
  ],
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Through vite, so that the plugin above sees the codec's `.wasm` import.
    server: { deps: { inline: [/@jsquash\/jpeg\/codec\/dec/] } },
  },
});
