import * as fs from 'node:fs';

/**
 * Temp files, temp folders and locks this process has under way. A writer killed by SIGKILL
 * leaves them for the next successful write to remove; on SIGINT/SIGTERM they go at once.
 */
const live = new Set<string>();

export function trackTemp(p: string): void {
  live.add(p);
  syncHandlers();
}

export function untrackTemp(p: string): void {
  live.delete(p);
  syncHandlers();
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
  syncHandlers();
  return removed;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

let armed = false;
let installed: (readonly [NodeJS.Signals, () => void])[] | undefined;

/**
 * On SIGINT or SIGTERM, removes the temps under way, then dies of the same signal (so the
 * exit status still says which). Returns a function that takes the handlers off again.
 *
 * The handlers are installed only while there are temps to remove. A handler runs on the
 * event loop, so while one is installed a long synchronous stretch delays the signal (writers
 * give the loop turns: core's `pacer`); with none, a signal ends the process at once, as it
 * should for a verb that writes nothing.
 */
export function removeTempsOnSignals(): () => void {
  armed = true;
  syncHandlers();
  return () => {
    armed = false;
    syncHandlers();
  };
}

function syncHandlers(): void {
  const wanted = armed && live.size > 0;
  if (wanted && !installed) {
    const handlers = SIGNALS.map((signal) => {
      const handler = () => {
        removeTrackedTemps();
        uninstall();
        process.kill(process.pid, signal);
      };
      process.on(signal, handler);
      return [signal, handler] as const;
    });
    installed = handlers;
  } else if (!wanted && installed) uninstall();
}

function uninstall(): void {
  for (const [s, h] of installed ?? []) process.off(s, h);
  installed = undefined;
}
