import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', magic: 'src/magic.ts' },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  splitting: true,
});
