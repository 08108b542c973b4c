import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// `pnpm run test:all` runs every package's suite in one vitest: the files of all suites share one
// pool of workers, so the longest suite (the CLI's, which spawns the built CLI) no longer runs
// alone at the end while the other CPU idles. Each package keeps its own config (timeouts,
// aliases, plugins) and still runs alone with `pnpm test` in its folder. The browser suite
// (apps/web, vitest.e2e.config.ts) needs a build and Chromium and runs in `test:e2e`.
export default defineConfig({
  test: {
    // Most files spend their time in the processes they spawn (the CLI, Python, a test S3
    // server): one worker per CPU keeps the CPUs busy (vitest's default leaves one idle).
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      'packages/*/vitest.config.ts',
      'apps/cli/vitest.config.ts',
      'tests/conformance/vitest.config.ts',
      'bench/vitest.config.ts',
    ],
  },
});
