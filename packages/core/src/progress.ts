import type { ProgressCallback, ProgressEvent } from './plugin.js';

/**
 * Reports `done` of a known `total` at most once per whole percent: a validator walking a
 * million items must not post a million messages to a page. The final count always reports.
 */
export function percentProgress(
  onProgress: ProgressCallback | undefined,
  total: number,
  phase = 'validate',
  unit: ProgressEvent['unit'] = 'items',
): (done: number) => void {
  let lastPercent = -1;
  let finished = false;
  return (done) => {
    if (!onProgress) return;
    const clamped = Math.min(Math.max(0, done), total);
    const percent = total > 0 ? Math.floor((100 * clamped) / total) : 100;
    if (percent === lastPercent && (clamped < total || finished)) return;
    lastPercent = percent;
    finished = clamped === total;
    onProgress({ phase, done: clamped, total, unit });
  };
}
