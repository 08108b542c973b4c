import * as fs from 'node:fs';

/**
 * Temp files, temp folders and locks this process has under way. A writer killed by SIGKILL
 * leaves them for the next successful write to remove; on SIGINT/SIGTERM they go at once,
 * and so do the uploads in progress (trackCleanup).
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

/**
 * Cleanups that need the network (aborting a multipart upload, deleting the objects of an
 * unfinished archive): they cannot run synchronously, so the signal handlers wait for them.
 */
const cleanups = new Set<() => Promise<void>>();

/** Registers an async cleanup for SIGINT/SIGTERM; returns the function that takes it off again. */
export function trackCleanup(cleanup: () => Promise<void>): () => void {
  cleanups.add(cleanup);
  syncHandlers();
  return () => {
    cleanups.delete(cleanup);
    syncHandlers();
  };
}

/** Runs every tracked cleanup once (failures are ignored: each reports its own). */
export async function runTrackedCleanups(): Promise<void> {
  const pending = [...cleanups];
  cleanups.clear();
  syncHandlers();
  await Promise.all(pending.map((cleanup) => cleanup().catch(() => {})));
}

/** How long a signalled process waits for network cleanups before it dies anyway. */
const CLEANUP_GRACE_MS = 20_000;

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

let armed = false;
let installed: (readonly [NodeJS.Signals, () => void])[] | undefined;

/**
 * On SIGINT or SIGTERM, removes the temps under way and waits (up to 20 s) for the tracked
 * async cleanups (uploads to abort), then dies of the same signal (so the exit status still
 * says which). The handlers are off while it waits: a second Ctrl-C ends the process at once.
 * Returns a function that takes the handlers off again.
 *
 * The handlers are installed only while there is something to clean up. A handler runs on the
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
  const wanted = armed && (live.size > 0 || cleanups.size > 0);
  if (wanted && !installed) {
    installed = SIGNALS.map((signal) => {
      const handler = () => {
        const waitFor = cleanups.size > 0;
        uninstall();
        armed = false;
        removeTrackedTemps();
        const die = () => process.kill(process.pid, signal);
        if (!waitFor) return die();
        const timer = setTimeout(die, CLEANUP_GRACE_MS);
        void runTrackedCleanups().then(() => {
          clearTimeout(timer);
          die();
        });
      };
      process.on(signal, handler);
      return [signal, handler] as const;
    });
  } else if (!wanted && installed) uninstall();
}

function uninstall(): void {
  for (const [s, h] of installed ?? []) process.off(s, h);
  installed = undefined;
}
