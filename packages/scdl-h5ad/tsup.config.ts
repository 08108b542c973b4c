import { defineConfig } from 'tsup';

export default defineConfig({
  // h5-worker: the worker thread node.ts starts for HDF5 work (loaded by URL, not exported).
  entry: {
    index: 'src/index.ts',
    magic: 'src/magic.ts',
    'magic-node': 'src/magic-node.ts',
    node: 'src/node.ts',
    'h5-worker': 'src/h5-worker.ts',
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  splitting: true,
  // h5wasm stays a runtime dependency: its node and wasm builds are picked per entry.
  external: ['h5wasm', 'h5wasm/node'],
});
