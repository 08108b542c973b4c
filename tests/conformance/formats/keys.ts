/**
 * Proves a format module compares every key of expected.json: the checks read the expected
 * values through a proxy that records each key read, and whatever was never read is reported.
 * A key added to the vectors that no check reads then fails the case instead of passing unseen.
 */
export interface TrackedKeys<T> {
  readonly value: T;
  /** Paths of keys no check read, e.g. `header.arrays[1].itemsize`. */
  unread(): string[];
}

export function trackKeys<T extends object>(root: T, ignored: readonly string[] = []): TrackedKeys<T> {
  const read = new Set<string>();
  const skipped = new Set(ignored);
  const wrap = (value: unknown, where: string): unknown => {
    if (value === null || typeof value !== 'object') return value;
    return new Proxy(value as object, {
      get(target, key, receiver) {
        const child = Reflect.get(target, key, receiver);
        if (typeof key !== 'string' || !Object.hasOwn(target, key)) return child;
        const path = Array.isArray(target) ? `${where}[${key}]` : where ? `${where}.${key}` : key;
        read.add(path);
        return wrap(child, path);
      },
    });
  };
  const unread = (value: unknown, where: string, out: string[]): string[] => {
    if (value === null || typeof value !== 'object') return out;
    for (const [key, child] of Object.entries(value)) {
      const path = Array.isArray(value) ? `${where}[${key}]` : where ? `${where}.${key}` : key;
      if (skipped.has(path)) continue;
      if (!read.has(path)) out.push(path);
      else unread(child, path, out);
    }
    return out;
  };
  return { value: wrap(root, '') as T, unread: () => unread(root, '', []) };
}
