import { defineConfig } from 'tsup';

export default defineConfig({
  // zlib-node/zlib-browser are separate entries that the package `imports` map ("#zlib") picks
  // by condition, so the browser build of index.js never reaches a `node:` import.
  entry: {
    index: 'src/index.ts',
    magic: 'src/magic.ts',
    node: 'src/node.ts',
    'zlib-node': 'src/zlib-node.ts',
    'zlib-browser': 'src/zlib-browser.ts',
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  splitting: true,
  external: ['#zlib'],
  removeNodeProtocol: false,
});
