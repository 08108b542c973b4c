/** Thrown into a producer whose consumer stopped early; swallowed where the producer is awaited. */
const STOPPED = Symbol('stopped');

/**
 * A producer that pushes items (`emit`, awaited: it waits until the item is taken) as an async
 * generator that pulls them, one item in flight: the streaming matrix readers, written for
 * the converter's push-style sink, feed `records()` without holding more than one chunk.
 * When the consumer stops early the producer's pending `emit` rejects, ending it.
 */
export async function* pulled<T>(
  run: (emit: (item: T) => Promise<void>) => Promise<void>,
): AsyncGenerator<T> {
  let offered: { item: T; taken(): void; refused(): void } | undefined;
  let waiting: { taken(): void; refused(): void } | undefined;
  let wake: (() => void) | undefined;
  let stopped = false;
  let finished = false;
  let failure: { error: unknown } | undefined;
  const emit = (item: T) =>
    new Promise<void>((taken, refused) => {
      if (stopped) refused(STOPPED);
      else {
        offered = { item, taken, refused: () => refused(STOPPED) };
        wake?.();
      }
    });
  const done = run(emit).then(
    () => {
      finished = true;
      wake?.();
    },
    (error: unknown) => {
      if (error !== STOPPED) failure = { error };
      finished = true;
      wake?.();
    },
  );
  try {
    for (;;) {
      if (!offered && !finished)
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      if (offered) {
        const current = offered;
        offered = undefined;
        waiting = current;
        yield current.item;
        waiting = undefined;
        current.taken();
        continue;
      }
      if (failure) throw failure.error;
      return;
    }
  } finally {
    stopped = true;
    waiting?.refused();
    offered?.refused();
    await done;
  }
}
