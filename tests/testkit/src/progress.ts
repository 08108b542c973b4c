import type { ProgressEvent } from '@binscope/core';
import { expect } from 'vitest';

/** Progress counts up to its total and ends there; the total never changes mid-run. */
export function expectProgressToEnd(events: readonly ProgressEvent[]): void {
  expect(events.length).toBeGreaterThan(1);
  const total = events[0].total;
  expect(total).toBeGreaterThan(0);
  for (let i = 0; i < events.length; i++) {
    expect(events[i].total).toBe(total);
    if (i > 0) expect(events[i].done).toBeGreaterThanOrEqual(events[i - 1].done);
  }
  expect(events[0].done).toBeLessThan(total as number);
  expect(events.at(-1)?.done).toBe(total);
}
