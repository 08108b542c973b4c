import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Tests run against src: '#zlib' is node:zlib here; test/zlib.test.ts checks pako against it.
  resolve: { alias: { '#zlib': fileURLToPath(new URL('./src/zlib-node.ts', import.meta.url)) } },
  test: { include: ['test/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000 },
});
