import type { ByteSource } from '@binscope/core';

/** Bytes scanned per read; matches across two windows are found through an overlap. */
const WINDOW = 1 << 20;

/**
 * The offset of the first match of `pattern` at or after `from` (or, backward, the last one
 * starting before `from`), or null. Reads the file a window at a time, never all of it.
 */
export async function searchSource(
  source: ByteSource,
  pattern: Uint8Array,
  from: number,
  backward: boolean,
  signal: AbortSignal,
  onProgress?: (event: { done: number; total: number }) => void,
): Promise<number | null> {
  const n = pattern.byteLength;
  const size = source.size;
  if (n === 0 || n > WINDOW || size < n) return null;
  const total = backward ? Math.max(0, from) : Math.max(0, size - from);
  if (!backward) {
    for (let start = Math.max(0, from); start + n <= size; start += WINDOW) {
      signal.throwIfAborted();
      const length = Math.min(size - start, WINDOW + n - 1);
      const window = await source.read(start, length, { signal });
      const hit = indexOf(window, pattern, 0);
      if (hit >= 0 && hit < WINDOW) return start + hit;
      onProgress?.({ done: Math.min(total, start + WINDOW - from), total });
    }
    return null;
  }
  // Backward: windows end at `from - 1 + n` (a match must start before `from`).
  for (let end = Math.min(size, from - 1 + n); end >= n; end -= WINDOW) {
    signal.throwIfAborted();
    const start = Math.max(0, end - WINDOW - n + 1);
    const window = await source.read(start, end - start, { signal });
    const hit = lastIndexOf(window, pattern);
    if (hit >= 0) return start + hit;
    if (start === 0) break;
    onProgress?.({ done: Math.min(total, from - start), total });
  }
  return null;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  const last = haystack.byteLength - needle.byteLength;
  for (let i = haystack.indexOf(first, from); i >= 0 && i <= last; i = haystack.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.byteLength && haystack[i + k] === needle[k]) k++;
    if (k === needle.byteLength) return i;
  }
  return -1;
}

function lastIndexOf(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0];
  for (
    let i = haystack.lastIndexOf(first, haystack.byteLength - needle.byteLength);
    i >= 0;
    i = i === 0 ? -1 : haystack.lastIndexOf(first, i - 1)
  ) {
    let k = 1;
    while (k < needle.byteLength && haystack[i + k] === needle[k]) k++;
    if (k === needle.byteLength) return i;
  }
  return -1;
}
