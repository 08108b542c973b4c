import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Bench } from './harness.js';
import { cliPeak } from './own-peak.js';

/**
 * CSV → SCBF peak memory by column count (issue #21): the same ~20 MB of CSV (at scale 1) laid
 * out as 10, 1,000 and 20,000 columns, each converted by `binscope convert` in a fresh process
 * whose own peak RSS (VmHWM, own-peak.ts) is the row's peak RSS. Memory and open files must not
 * grow with the column count beyond the per-column buffers (~3 KB each, csv-records.ts).
 */
export async function wideCsvRows(b: Bench, dir: string): Promise<void> {
  const targetBytes = b.n(20_000_000, 200_000);
  const atRest = cliPeak('--version').peakMb;
  for (const columns of [10, 1_000, 20_000]) {
    const csvPath = path.join(dir, `wide-${columns}.csv`);
    const output = path.join(dir, `wide-${columns}.scbf`);
    const rows = writeWideCsv(csvPath, columns, targetBytes);
    const csvBytes = fs.statSync(csvPath).size;
    const peaks: number[] = [];
    const row = await b.measure(
      {
        format: 'scbf',
        operation: `binscope convert CSV → SCBF, ${columns.toLocaleString('en')} columns (CLI, fresh process, its own peak RSS)`,
        bytes: csvBytes,
        items: rows,
        warmup: 0,
      },
      () => {
        fs.rmSync(output, { force: true });
        peaks.push(cliPeak('convert', csvPath, output).peakMb);
      },
    );
    row.peakRssMb = Math.max(...peaks);
    row.figure = `converter peak RSS ${row.peakRssMb} MB`;
    row.note = `own peak (VmHWM) of the CLI process, ${Math.min(...peaks)}–${row.peakRssMb} MB over ${peaks.length} runs; the CLI at rest (--version) peaks at ${atRest} MB; ${rows} rows × ${columns} columns`;
    process.stderr.write(`  scbf ${row.note}\n`);
    fs.rmSync(csvPath);
    fs.rmSync(output, { force: true });
  }
}

/** Ints, floats and short text in turn, about `targetBytes` in all; returns the row count. */
export function writeWideCsv(file: string, columns: number, targetBytes: number): number {
  const header = Array.from({ length: columns }, (_, c) => `col${c}`).join(',');
  const cell = (r: number, c: number) =>
    c % 3 === 0 ? String(r + c) : c % 3 === 1 ? `${r}.5` : `s${c % 97}`;
  const sample = Array.from({ length: columns }, (_, c) => cell(1, c)).join(',').length + 1;
  const rows = Math.max(2, Math.round(targetBytes / sample));
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, `${header}\n`);
    for (let r = 0; r < rows; r++)
      fs.writeSync(fd, `${Array.from({ length: columns }, (_, c) => cell(r, c)).join(',')}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return rows;
}
