import { type FileOffset, fileOffsetKey } from './types.js';

/** A reference to a dataset and where the reference itself is stored (for error offsets). */
export interface DatasetRef {
  at: FileOffset;
  /** Absolute offset of the FileOffset field that points here. */
  from: number;
}

/** The (offset, size) pairs a walk has visited, keyed by number (no key strings). */
class SeenOffsets {
  private readonly sizes = new Map<number, number>();
  private readonly more = new Set<string>();
  /** True when `at` was not seen before (and records it). */
  add(at: FileOffset): boolean {
    const size = this.sizes.get(at.offset);
    if (size === undefined) {
      this.sizes.set(at.offset, at.size);
      return true;
    }
    if (size === at.size) return false;
    const key = fileOffsetKey(at);
    if (this.more.has(key)) return false;
    this.more.add(key);
    return true;
  }
}

/**
 * The U7 visiting order with an explicit stack, so a chain of a million datasets cannot
 * overflow the call stack. Checking `seen` when popping (not when pushing) gives exactly
 * recursive pre-order. Yields each ref to visit; the caller sends back its children (or
 * nothing for a ref that yielded no dataset).
 */
function* refOrder(root: FileOffset): Generator<DatasetRef, void, DatasetRef[] | undefined> {
  const seen = new SeenOffsets();
  const stack: DatasetRef[] = [{ at: root, from: 0x10 }];
  while (stack.length > 0) {
    const ref = stack.pop()!;
    if (ref.at.offset === 0 && ref.at.size === 0) continue;
    if (!seen.add(ref.at)) continue;
    const children = yield ref;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** The U7 walk: `visit` loads a ref's dataset (undefined to skip it) and lists its children. */
export async function* walkRefs<T>(
  root: FileOffset | null,
  visit: (ref: DatasetRef) => Promise<{ value: T; children: DatasetRef[] } | undefined>,
): AsyncGenerator<T> {
  if (!root) return;
  const order = refOrder(root);
  for (let step = order.next(); !step.done; ) {
    const visited = await visit(step.value);
    if (visited) yield visited.value;
    step = order.next(visited?.children);
  }
}

/** walkRefs without promises (same order and rules). */
export function* walkRefsSync<T>(
  root: FileOffset | null,
  visit: (ref: DatasetRef) => { value: T; children: DatasetRef[] } | undefined,
): Generator<T> {
  if (!root) return;
  const order = refOrder(root);
  for (let step = order.next(); !step.done; ) {
    const visited = visit(step.value);
    if (visited) yield visited.value;
    step = order.next(visited?.children);
  }
}
