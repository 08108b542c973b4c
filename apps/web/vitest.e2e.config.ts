import { defineConfig } from 'vitest/config';

// End-to-end tests drive the built site (`vite build` runs first, see package.json) in
// Debian's chromium. Timeouts only bound a hung browser; nothing asserts on time.
export default defineConfig({
  test: {
    include: ['e2e/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // A browser on a busy 2-CPU machine now and then misses an event a test waits for; under CI a
    // failed test runs once more. Its first error is printed (e2e/setup.ts) and `.ci/run` ends
    // by naming every test that passed only on the retry, so a flake is seen, not hidden.
    retry: process.env.CI ? 1 : 0,
    setupFiles: ['e2e/setup.ts'],
  },
});
