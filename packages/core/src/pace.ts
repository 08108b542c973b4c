import { throwIfAborted } from './bytes.js';

/**
 * For long loops (a conversion's columns, a scan's records): call the returned function once
 * per step. It throws once `signal` is aborted, and every `everySteps` steps or `sliceMs`
 * milliseconds, whichever comes first, it gives the event loop a turn, so a signal handler
 * (SIGTERM, Ctrl-C), a timer or an abort can run. Awaiting a resolved promise does not: a
 * loop of them holds the event loop as firmly as a synchronous one.
 */
export function pacer(
  signal?: AbortSignal,
  options: { everySteps?: number; sliceMs?: number } = {},
): () => Promise<void> {
  const everySteps = options.everySteps ?? 256;
  const sliceMs = options.sliceMs ?? 50;
  let steps = 0;
  let since = Date.now();
  return async () => {
    throwIfAborted(signal);
    if (++steps < everySteps && Date.now() - since < sliceMs) return;
    steps = 0;
    await nextTurn();
    since = Date.now();
    throwIfAborted(signal);
  };
}

/** Resolves on a later turn of the event loop (after pending I/O, timers and signals). */
export function nextTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}
