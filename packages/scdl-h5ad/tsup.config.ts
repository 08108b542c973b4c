import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', magic: 'src/magic.ts', node: 'src/node.ts' },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  splitting: true,
  // h5wasm stays a runtime dependency: its node and wasm builds are picked per entry.
  external: ['h5wasm', 'h5wasm/node'],
});
