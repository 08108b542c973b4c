import type { Awaitable } from '@binscope/core';
import { type FileOffset, fileOffsetKey } from './types.js';

/** A reference to a dataset and where the reference itself is stored (for error offsets). */
export interface DatasetRef {
  at: FileOffset;
  /** Absolute offset of the FileOffset field that points here. */
  from: number;
}

/** Where the file header stores the root's FileOffset: the `from` of the root's reference. */
export const ROOT_FROM = 0x10;

/** What a walk's visit of one reference gives: the value to yield and the references it holds. */
export interface Visited<T> {
  value: T;
  children: readonly DatasetRef[];
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
 * The U7 walk over a file's datasets: depth-first pre-order (tables in descriptor order,
 * DATASET elements in order), each (offset, size) once, (0, 0) skipped, cycles survived. An
 * explicit stack, so a chain of a million datasets cannot overflow the call stack; `seen` is
 * checked when a reference is popped (not pushed), which gives exactly recursive pre-order.
 *
 * One code path for every source: `step()` answers synchronously whenever `visit` does (a
 * local file or memory), so a walk of those makes no promise at all; the async iterator on
 * top costs one resolved promise per value.
 */
export class DatasetWalk<T> implements AsyncIterable<T> {
  private readonly stack: DatasetRef[];
  private readonly seen = new SeenOffsets();

  constructor(
    root: FileOffset | null,
    /** Loads a reference's dataset and lists its children; undefined skips it (nothing to yield). */
    private readonly visit: (ref: DatasetRef) => Awaitable<Visited<T> | undefined>,
  ) {
    this.stack = root ? [{ at: root, from: ROOT_FROM }] : [];
  }

  /** The next value of the walk, or undefined at its end; a promise only when a read was one. */
  step(): Awaitable<T | undefined> {
    for (let ref = this.pop(); ref !== undefined; ref = this.pop()) {
      const visited = this.visit(ref);
      if (visited instanceof Promise) return visited.then((v) => (v ? this.accept(v) : this.step()));
      if (visited) return this.accept(visited);
    }
    return undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: (): Promise<IteratorResult<T>> => {
        try {
          const value = this.step();
          return value instanceof Promise ? value.then(result) : Promise.resolve(result(value));
        } catch (error) {
          return Promise.reject(error);
        }
      },
    };
  }

  /** The next reference to visit, skipping null ones and those already visited. */
  private pop(): DatasetRef | undefined {
    const { stack, seen } = this;
    while (stack.length > 0) {
      const ref = stack.pop()!;
      if (ref.at.offset === 0 && ref.at.size === 0) continue;
      if (seen.add(ref.at)) return ref;
    }
    return undefined;
  }

  private accept(visited: Visited<T>): T {
    const { children } = visited;
    for (let i = children.length - 1; i >= 0; i--) this.stack.push(children[i]);
    return visited.value;
  }
}

function result<T>(value: T | undefined): IteratorResult<T> {
  return value === undefined ? { done: true, value: undefined } : { done: false, value };
}
