import { defineConfig } from 'vitest/config';

// The tests spawn the built CLI as a user would; each spawn is a fresh Node process, so a test's
// time grows with the machine's load: a test of ~30 CLI runs took 17 s in a busy CI run and 78 s
// with the CPUs busier still. Timeouts only bound a hung test.
export default defineConfig({
  test: { testTimeout: 300_000, hookTimeout: 120_000, include: ['test/**/*.test.ts'] },
});
