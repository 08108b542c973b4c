import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', node: 'src/node.ts' },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  splitting: true,
  // The JPEG decoder's WebAssembly is inlined (its own chunk, loaded on first use), so nothing
  // is fetched or read from disk at run time, in Node or in a browser bundle.
  loader: { '.wasm': 'base64' },
  noExternal: [/\.wasm$/],
});
