import { defineConfig } from 'vitest/config';

// Timeouts only bound a hung test: a busy machine makes work slower, never wrong.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000 },
});
