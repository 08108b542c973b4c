import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  // The packages stay external: each one's /magic entry is tiny and its parser a dynamic import.
  external: [/^@binscope\//],
});
