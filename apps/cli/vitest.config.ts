import { defineConfig } from 'vitest/config';

// The tests spawn the built CLI as a user would; each spawn is a fresh Node process.
export default defineConfig({
  test: { testTimeout: 120_000, hookTimeout: 120_000, include: ['test/**/*.test.ts'] },
});
