import * as fs from 'node:fs';
import * as path from 'node:path';
import { csvToScbf, scbfToCsv, writeScbfFile } from '@binscope/scbf/node';
import { type Bench, formatBytes, type Row } from './harness.js';
import { cliPeak } from './own-peak.js';
import { generate } from './scbf.js';

/**
 * Peak RSS of large exports (issues #31, #34): `binscope convert big.scbf big.parquet` and
 * `… big.arrow`, each in a fresh process whose own peak RSS (VmHWM, own-peak.ts) is the row's,
 * at two input sizes, ≈ scale × 250 MB and scale × 1 GB of SCBF, so the rows show whether an
 * export's memory grows with its input (it must not). The input is the SCBF bench's table as
 * CSV, its rows repeated and streamed through CSV → SCBF (≈ 42 M rows at 1 GB: a scale-1 run
 * spends minutes writing it).
 */
export default async function run(b: Bench): Promise<void> {
  const dir = b.dir('export-peak');
  const seed = path.join(dir, 'seed.scbf');
  const csv = path.join(dir, 'seed.csv');
  await writeScbfFile(seed, generate(b.n(1_000_000, 1000)));
  await scbfToCsv(seed, csv);
  await csvToScbf(csv, seed);
  const perCopy = fs.statSync(seed).size;
  fs.rmSync(seed);
  const text = fs.readFileSync(csv);
  const body = text.subarray(text.indexOf(10) + 1);
  fs.rmSync(csv);

  const smaller = new Map<string, { input: number; peakMb: number }>();
  for (const target of [b.scale * 0.25e9, b.scale * 1e9]) {
    const copies = Math.max(1, Math.ceil(target / perCopy));
    // Streamed into the converter: at scale 1 the repeated CSV would be ~12 GB on disk.
    async function* repeated() {
      yield text;
      for (let i = 1; i < copies; i++) yield body;
    }
    const big = path.join(dir, 'big.scbf');
    await csvToScbf(repeated(), big, { inputName: 'big.csv' });
    const input = fs.statSync(big).size;
    for (const ext of ['parquet', 'arrow']) {
      const output = path.join(dir, `big.${ext}`);
      const run = cliPeak('convert', big, output);
      const before = smaller.get(ext);
      const row: Row = {
        format: ext,
        operation: `binscope convert big.scbf big.${ext}, ${formatBytes(input)} (CLI, fresh process, its own peak RSS)`,
        bytes: input,
        medianMs: run.ms,
        runs: 1,
        peakRssMb: run.peakMb,
        figure: `peak RSS ${run.peakMb} MB for ${formatBytes(input)} SCBF → ${formatBytes(fs.statSync(output).size)}`,
        note: before
          ? `own peak (VmHWM) of the CLI process; ${before.peakMb} MB for the ${(input / before.input).toFixed(1)}× smaller input (${formatBytes(before.input)}): ${run.peakMb - before.peakMb >= 0 ? '+' : ''}${run.peakMb - before.peakMb} MB`
          : 'own peak (VmHWM) of the CLI process',
      };
      smaller.set(ext, { input, peakMb: run.peakMb });
      b.rows.push(row);
      process.stderr.write(
        `  ${ext} ${row.operation}: ${run.ms.toFixed(0)} ms | ${row.figure} | ${row.note}\n`,
      );
      fs.rmSync(output);
    }
    fs.rmSync(big);
  }
}
