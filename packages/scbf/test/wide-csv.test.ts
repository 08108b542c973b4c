import * as fs from 'node:fs';
import * as path from 'node:path';
import { isBinscopeError } from '@binscope/core';
import { tempDir } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { csvToScbf } from '../src/node.js';

// CSV → SCBF holds a little state per column, so the column count is capped (maxColumns,
// default 100,000) and a wider CSV is refused while its header is read: 500,000 columns used
// to reach 1.45 GB. And the loops over every column give the event loop turns, so a SIGTERM
// handler or an abort runs while a wide file is assembled (2 M columns ignored SIGTERM 120 s).

const scratch = tempDir('scbf-wide-');
afterAll(() => scratch.remove());

/** A CSV header of `columns` names, then one row, in 64 KiB chunks; counts the chunks taken. */
function wideCsv(columns: number): { chunks: AsyncIterable<Uint8Array>; taken: () => number; total: number } {
  const header = Array.from({ length: columns }, (_, i) => `c${i}`).join(',');
  const row = Array.from({ length: columns }, (_, i) => String(i % 10)).join(',');
  const bytes = new TextEncoder().encode(`${header}\n${row}\n`);
  const size = 64 << 10;
  let taken = 0;
  return {
    total: Math.ceil(bytes.byteLength / size),
    taken: () => taken,
    chunks: (async function* () {
      for (let at = 0; at < bytes.byteLength; at += size) {
        taken++;
        yield bytes.slice(at, at + size);
      }
    })(),
  };
}

describe('the column cap', () => {
  it('refuses 150,000 columns (default cap 100,000) before reading the header to its end', async () => {
    const csv = wideCsv(150_000);
    const out = path.join(scratch.dir, 'wide.scbf');
    const error = await csvToScbf(csv.chunks, out, { inputName: 'wide.csv' }).catch((e: unknown) => e);
    expect(isBinscopeError(error, 'FormatError'), String(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /wide\.csv: the header has more than 100000 columns.*raise maxColumns \(binscope convert --max-columns N\)/,
    );
    // c0..c9 take 3 bytes, c10..c99 4, c100..c999 5, c1000..c9999 6, c10000.. 7: the 100,000th comma.
    const at = 10 * 3 + 90 * 4 + 900 * 5 + 9000 * 6 + 90_000 * 7 - 1;
    expect((error as { offset: number }).offset).toBe(at);
    expect(csv.taken()).toBeLessThan(csv.total);
    expect(fs.readdirSync(scratch.dir)).toEqual([]);
  }, 60_000);

  it('takes a wider CSV when maxColumns says so, and a narrower cap refuses sooner', async () => {
    const wide = wideCsv(3_000);
    const result = await csvToScbf(wide.chunks, path.join(scratch.dir, 'ok.scbf'), { maxColumns: 3_000 });
    expect(result.columns).toHaveLength(3_000);
    const narrow = wideCsv(3_000);
    await expect(
      csvToScbf(narrow.chunks, path.join(scratch.dir, 'no.scbf'), { maxColumns: 2_999 }),
    ).rejects.toThrow(/more than 2999 columns/);
    fs.rmSync(path.join(scratch.dir, 'ok.scbf'));
  }, 60_000);
});

describe('long loops over the columns', () => {
  it('let an abort scheduled on the event loop stop the assembly of 5,000 columns', async () => {
    const controller = new AbortController();
    let scheduled = false;
    let assembled = 0;
    const out = path.join(scratch.dir, 'stopped.scbf');
    const run = csvToScbf(wideCsv(5_000).chunks, out, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase !== 'columns') return;
        assembled = p.done;
        // A macrotask, as a signal handler is: it runs only when the loop yields.
        if (!scheduled) setImmediate(() => controller.abort());
        scheduled = true;
      },
    });
    await expect(run).rejects.toThrow(/aborted/);
    expect(scheduled).toBe(true);
    expect(assembled).toBeLessThan(5_000);
    expect(fs.readdirSync(scratch.dir)).toEqual([]);
  }, 60_000);
});
