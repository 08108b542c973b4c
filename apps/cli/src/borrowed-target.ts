import type { ByteSource, DirectorySource, Target } from '@binscope/core';

/**
 * A target lent to a plugin: closing it (or a file opened from it) does nothing until the
 * lender releases it. Inspect mode may open a reader, build the tree and close the reader before
 * returning, while the tree's lazy children (rows of an index, samples) still read through the
 * same sources when they are printed; the command closes everything once, at the end.
 */
export interface BorrowedTarget {
  target: Target;
  /** Closes the files plugins opened through the borrowed target (the lender closes its own). */
  release(): Promise<void>;
}

function keepOpen(source: ByteSource): ByteSource {
  return {
    get size() {
      return source.size;
    },
    get name() {
      return source.name;
    },
    // The one read method, request and all: a synchronous source stays synchronous.
    read: (offset, length, request) => source.read(offset, length, request),
    close: async () => {},
  };
}

function lendDirectory(directory: DirectorySource, opened: ByteSource[]): DirectorySource {
  return {
    name: directory.name,
    list: () => directory.list(),
    has: (path) => directory.has(path),
    async open(path) {
      const source = await directory.open(path);
      opened.push(source);
      return keepOpen(source);
    },
    // Plugins close the folders they are given; the lender closes this one.
    close: async () => {},
  } as DirectorySource;
}

export function borrowTarget(target: Target): BorrowedTarget {
  const opened: ByteSource[] = [];
  const lent: Target =
    target.kind === 'directory'
      ? { kind: 'directory', directory: lendDirectory(target.directory, opened) }
      : {
          kind: 'file',
          source: keepOpen(target.source),
          ...(target.siblings ? { siblings: lendDirectory(target.siblings, opened) } : {}),
        };
  return {
    target: lent,
    async release() {
      for (const source of opened.splice(0)) {
        try {
          await source.close?.();
        } catch {
          // Closing a file opened only for reading cannot lose data.
        }
      }
    },
  };
}
