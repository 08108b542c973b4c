/**
 * Loops for lists whose length a file sets. `Math.max(...list)`, `push(...list)` and
 * `String.fromCharCode(...bytes)` pass every item as an argument on the call stack, so a
 * file with 150,000 columns overflows it ("Maximum call stack size exceeded"); these do not.
 * (Fixed-size spreads, such as a 4-byte magic, need none of this.)
 */

/** The largest `key(item)`, or `empty` for no items. */
export function maxOf<T>(
  items: Iterable<T>,
  key: (item: T) => number,
  empty = Number.NEGATIVE_INFINITY,
): number {
  let best = empty;
  let first = true;
  for (const item of items) {
    const value = key(item);
    if (first || value > best) best = value;
    first = false;
  }
  return best;
}

/** The smallest `key(item)`, or `empty` for no items. */
export function minOf<T>(
  items: Iterable<T>,
  key: (item: T) => number,
  empty = Number.POSITIVE_INFINITY,
): number {
  let best = empty;
  let first = true;
  for (const item of items) {
    const value = key(item);
    if (first || value < best) best = value;
    first = false;
  }
  return best;
}

/** Appends `items` to `target` one by one (no argument list); returns `target`. */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
