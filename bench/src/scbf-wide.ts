import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Bench } from './harness.js';

/**
 * CSV → SCBF peak memory by column count (issue #21): the same ~20 MB of CSV (at scale 1) laid
 * out as 10, 1,000 and 20,000 columns, each converted in a fresh process whose peak RSS is the
 * row's figure (in its note). Memory and open files must not grow with the column count.
 */
export async function wideCsvRows(b: Bench, dir: string): Promise<void> {
  const targetBytes = b.n(20_000_000, 200_000);
  for (const columns of [10, 1_000, 20_000]) {
    const csvPath = path.join(dir, `wide-${columns}.csv`);
    const output = path.join(dir, `wide-${columns}.scbf`);
    const rows = writeWideCsv(csvPath, columns, targetBytes);
    const csvBytes = fs.statSync(csvPath).size;
    const script = `
      const { csvToScbf } = await import(${JSON.stringify(import.meta.resolve('@binscope/scbf/node'))});
      await csvToScbf(${JSON.stringify(csvPath)}, ${JSON.stringify(output)});
      process.stdout.write(String(process.resourceUsage().maxRSS));
    `;
    let peakMb = 0;
    const row = await b.measure(
      {
        format: 'scbf',
        operation: `CSV → SCBF, ${columns.toLocaleString('en')} columns, fresh process (peak RSS in note)`,
        bytes: csvBytes,
        items: rows,
        warmup: 0,
      },
      () => {
        const kb = Number(
          execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
        );
        peakMb = Math.max(peakMb, Math.round(kb / 1024));
      },
    );
    row.note = `converter peak RSS ${peakMb} MB; ${rows} rows × ${columns} columns`;
    process.stderr.write(`  scbf ${row.note}\n`);
    fs.rmSync(csvPath);
    fs.rmSync(output, { force: true });
  }
}

/** Ints, floats and short text in turn, about `targetBytes` in all; returns the row count. */
function writeWideCsv(file: string, columns: number, targetBytes: number): number {
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
