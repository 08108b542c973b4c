import { defineConfig } from 'vitest/config';

// Timeouts only bound a hung test (the fuzz runs take 25 s on an idle machine, more on a busy one).
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], testTimeout: 300_000, hookTimeout: 120_000 },
});
