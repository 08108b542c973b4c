import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    binary: 'src/binary.ts',
    http: 'src/http.ts',
    s3: 'src/s3.ts',
    'node/index': 'src/node/index.ts',
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  splitting: true,
});
