import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { builtFile, describeWith, tempDir } from '@binscope/testkit';
import { afterAll, expect, it } from 'vitest';

// An export holds one record batch, whatever the table's size: 2,000,000 rows (a 139 MB
// Arrow file) peak within a few MB of 100,000 rows', in a fresh process with a 16 MB heap.
// Holding the table (batches never flushed) adds ~350 MB here; holding it as JS objects runs
// out of heap.

const PACKAGE = path.resolve(import.meta.dirname, '..');
const dist = path.join(PACKAGE, 'dist', 'index.js');
const tmp = tempDir('arrow-memory-');
afterAll(() => tmp.remove());

/** Records of int32, int64 (bigint), float64 and a ~45-byte string, made as they are read. */
const script = (out: string, rows: number) => `
  const { arrowFileConverter } = await import(${JSON.stringify(dist)});
  const { AtomicFile } = await import('@binscope/core/node');
  const input = {
    kind: 'records', name: 'synthetic', format: 'test',
    schema: { fields: [
      { name: 'id', type: { kind: 'int', bits: 32, signed: true } },
      { name: 'big', type: { kind: 'int', bits: 64, signed: true } },
      { name: 'x', type: { kind: 'float', bits: 64 } },
      { name: 'text', type: { kind: 'string' } },
    ] },
    async *tables() {},
    async *records() {
      for (let i = 0; i < ${rows}; i++)
        yield { index: i, values: { id: i, big: BigInt(i) << 20n, x: i / 8, text: 'the same forty bytes of text every row.' + i } };
    },
    summary: async () => ({}),
  };
  const sink = AtomicFile.create(${JSON.stringify(out)});
  const report = await arrowFileConverter.convertRecords(input, { kind: 'file', sink }, {});
  await sink.commit();
  process.stdout.write(JSON.stringify(report.details));
`;

/** Peak RSS of the export in a fresh process (spawned, not forked: a fork's maxRSS starts at vitest's). */
function exportPeak(rows: number): { peak: number; rows: number; bytes: number } {
  const out = path.join(tmp.dir, `${rows}.arrow`);
  const record = path.join(tmp.dir, `${rows}.peak`);
  const hook = path.join(tmp.dir, 'peak.cjs');
  fs.writeFileSync(
    hook,
    [
      'let peak = process.memoryUsage.rss();',
      'setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 5).unref();',
      'process.on("exit", () => require("node:fs").writeFileSync(process.env.PEAK_FILE, String(Math.max(peak, process.memoryUsage.rss()))));',
    ].join('\n'),
  );
  const details = JSON.parse(
    execFileSync(
      process.execPath,
      ['--max-old-space-size=16', '--require', hook, '--input-type=module', '-e', script(out, rows)],
      { cwd: PACKAGE, encoding: 'utf8', env: { ...process.env, PEAK_FILE: record } },
    ),
  );
  const bytes = fs.statSync(out).size;
  fs.rmSync(out);
  return { peak: Number(fs.readFileSync(record, 'utf8')), rows: details.rows, bytes };
}

describeWith(builtFile(dist), 'export memory', () => {
  it('peak RSS does not grow with the table: 2,000,000 rows add less than a third of their output', () => {
    const small = exportPeak(100_000);
    const big = exportPeak(2_000_000);
    expect([small.rows, big.rows]).toEqual([100_000, 2_000_000]);
    expect(big.bytes).toBeGreaterThan(130e6);
    expect(big.peak - small.peak).toBeLessThan(big.bytes / 3);
  });
});
