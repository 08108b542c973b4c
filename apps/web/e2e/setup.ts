import { beforeEach } from 'vitest';

// Under CI a failed browser test runs once more (vitest.e2e.config.ts). A test that then passes
// would leave no trace of why it failed the first time, so every failure prints its error here:
// Playwright's message carries the call log (what the action was waiting for: visible, enabled,
// stable, or another element taking the click). The run's summary lists the retried tests.
beforeEach((context) => {
  context.onTestFailed(() => {
    for (const error of context.task.result?.errors ?? []) {
      const where = (error.stack ?? '').split('\n').filter((line) => line.includes('/e2e/'));
      console.error(`[e2e failure] ${context.task.name}\n${error.message}\n${where.slice(0, 3).join('\n')}`);
    }
  });
});
