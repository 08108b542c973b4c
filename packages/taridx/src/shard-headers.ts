import type { ByteSource, ReadOptions } from '@binscope/core';
import { answersSynchronously } from '@binscope/core/binary';
import { TAR_BLOCK } from './layout.js';

/** Headers closer than this (the payloads between them) are fetched in one request from a remote shard. */
const SPAN_GAP = 64 * 1024;
/** A merged request spans at most this many bytes (with one prefetched span per shard in flight, memory stays at 8 MiB a shard). */
const SPAN_MAX = 4 * 1024 * 1024;

/** Where a run of headers is read from: one range of the shard, and the rows it covers. */
interface Span {
  start: number;
  end: number;
  rows: number[];
}

/**
 * The 512-byte tar headers of a shard's rows, visited in row order. Local shards (positional or
 * synchronous reads) are read a header at a time into one buffer; remote ones in spans of
 * neighbouring headers, the next span requested while the current one is checked, so a pass
 * costs a few large requests instead of one round trip per row.
 */
export async function visitHeaders(
  source: ByteSource,
  rows: readonly number[],
  offsetOf: (row: number) => number,
  visit: (row: number, block: Uint8Array) => Promise<void> | void,
  options: ReadOptions = {},
): Promise<void> {
  if (answersSynchronously(source)) {
    const block = new Uint8Array(TAR_BLOCK);
    // One request object for every header: the hot loop allocates nothing per row.
    const request = { into: block };
    for (const row of rows) {
      options.signal?.throwIfAborted();
      const got = source.read(offsetOf(row), TAR_BLOCK, request);
      const bytes = got instanceof Promise ? await got : got;
      await visit(row, bytes.byteLength === TAR_BLOCK ? bytes : new Uint8Array(TAR_BLOCK));
    }
    return;
  }
  const spans = planSpans(rows, offsetOf);
  const fetch = (span: Span) => Promise.resolve(source.read(span.start, span.end - span.start, options));
  let next = spans.length > 0 ? fetch(spans[0]) : undefined;
  for (let k = 0; k < spans.length; k++) {
    const bytes = await next!;
    next = k + 1 < spans.length ? fetch(spans[k + 1]) : undefined;
    // A rejected prefetch is reported when it is awaited, not as an unhandled rejection.
    next?.catch(() => {});
    const span = spans[k];
    for (const row of span.rows) {
      const at = offsetOf(row) - span.start;
      const block =
        at + TAR_BLOCK <= bytes.byteLength ? bytes.subarray(at, at + TAR_BLOCK) : new Uint8Array(TAR_BLOCK);
      await visit(row, block);
    }
  }
}

/** Groups rows whose headers lie close together (in row order) into spans one request covers. */
function planSpans(rows: readonly number[], offsetOf: (row: number) => number): Span[] {
  const spans: Span[] = [];
  let current: Span | undefined;
  for (const row of rows) {
    const offset = offsetOf(row);
    const end = offset + TAR_BLOCK;
    if (
      current &&
      offset >= current.start &&
      offset - current.end <= SPAN_GAP &&
      Math.max(end, current.end) - current.start <= SPAN_MAX
    ) {
      current.rows.push(row);
      current.end = Math.max(current.end, end);
    } else {
      current = { start: offset, end, rows: [row] };
      spans.push(current);
    }
  }
  return spans;
}
