import * as fs from 'node:fs';

/**
 * Temp files, temp folders and locks this process has under way. A writer killed by SIGKILL
 * leaves them for the next successful write to remove; on SIGINT/SIGTERM they go at once.
 */
const live = new Set<string>();

export function trackTemp(p: string): void {
  live.add(p);
}

export function untrackTemp(p: string): void {
  live.delete(p);
}

/** Removes every temp still under way; returns what it removed. Synchronous: safe in a signal handler. */
export function removeTrackedTemps(): string[] {
  const removed: string[] = [];
  for (const p of live) {
    try {
      fs.rmSync(p, { recursive: true, force: true });
      removed.push(p);
    } catch {}
  }
  live.clear();
  return removed;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * On SIGINT or SIGTERM, removes the temps under way, then dies of the same signal (so the
 * exit status still says which). Returns a function that takes the handlers off again.
 */
export function removeTempsOnSignals(): () => void {
  const handlers = SIGNALS.map((signal) => {
    const handler = () => {
      removeTrackedTemps();
      for (const [s, h] of handlers) process.off(s, h);
      process.kill(process.pid, signal);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [s, h] of handlers) process.off(s, h);
  };
}
