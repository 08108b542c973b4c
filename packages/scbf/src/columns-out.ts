/**
 * The last step of every streamed conversion to SCBF (CSV → SCBF, records → SCBF): columns
 * spilled to scratch as they grew (spill.ts, csv-column.ts) become the file, head first, once
 * every column's type and block sizes are known. Browser-safe.
 */
import type { ByteSink, ProgressCallback, Scratch, ScratchFile } from '@binscope/core';
import type { ColumnWriter } from './csv-column.js';
import type { ScbfType } from './layout.js';
import { type ColumnPlan, encodeHead } from './write.js';

/**
 * The next macrotask. The deflaters' finished work is handed back (and their next chunk
 * started) only when this thread returns to the event loop: do so often, or they idle.
 */
export const nextTask: () => Promise<void> =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function'
    ? () =>
        new Promise((resolve) =>
          (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(resolve),
        )
    : () => new Promise((resolve) => setTimeout(resolve, 0));

/** The files made through a scratch, removable together without closing the scratch. */
export function ownFiles(scratch: Scratch): Scratch {
  const files: ScratchFile[] = [];
  return {
    file(name) {
      const file = scratch.file(name);
      files.push(file);
      return file;
    },
    close() {
      for (const file of files.splice(0)) file.remove();
    },
  };
}

/** Waits until every column's deflaters have caught up (backpressure), giving the loop turns. */
export async function settleColumns(
  columns: readonly ColumnWriter[],
  pace: () => Promise<void>,
): Promise<void> {
  for (const column of columns) {
    for (const spill of column.spills()) await spill.settle();
    await pace();
  }
}

/**
 * Ends every column, then writes the SCBF file to `sink`: the head (schema, metadata table)
 * and each column's blocks copied from scratch. Returns the columns' types and the bytes written.
 */
export async function writeColumns(
  columns: readonly ColumnWriter[],
  rows: number,
  sink: ByteSink,
  pace: () => Promise<void>,
  onProgress?: ProgressCallback,
): Promise<{ columns: { name: string; type: ScbfType }[]; scbfBytes: number }> {
  for (let c = 0; c < columns.length; c++) {
    await pace();
    await columns[c].finish(pace);
    if (onProgress && (c % 1024 === 0 || c === columns.length - 1))
      onProgress({ phase: 'columns', done: c + 1, total: columns.length, unit: 'items' });
  }
  const plans: ColumnPlan[] = columns.map((c) => ({
    name: c.name,
    type: c.type!,
    blocks: c.blocks.map((b) => ({
      uncompressedSize: b.uncompressedSize,
      compressedSize: b.compressedSize,
    })),
  }));
  const { head } = encodeHead(plans, rows);
  await sink.write(head);
  for (const column of columns) {
    for (const block of column.blocks) await block.copyTo(sink);
    await pace();
  }
  return {
    columns: plans.map((p) => ({ name: p.name, type: p.type })),
    scbfBytes:
      head.byteLength + plans.reduce((sum, p) => sum + p.blocks.reduce((s, b) => s + b.compressedSize, 0), 0),
  };
}
