import { defineConfig } from 'vitest/config';

// End-to-end tests drive the built site (`vite build` runs first, see package.json) in
// Debian's chromium. Timeouts only bound a hung browser; nothing asserts on time.
export default defineConfig({
  test: {
    include: ['e2e/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
