import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir, builtFile, describeWith } from '@binscope/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';

// CSV → SCBF never holds the CSV or a whole column in memory: a CSV larger than the whole
// JS heap the converter is allowed converts fine (a memory bound, not a timing).

const distNode = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/node.js');
const built = builtFile(distNode);

let tmp: { dir: string; remove: () => void };
beforeAll(() => {
  tmp = tempDir('scbf-memory-');
});
afterAll(() => tmp.remove());

describeWith(built, 'CSV → SCBF memory', () => {
  it('converts a CSV larger than its 32 MB heap limit', () => {
    const csv = path.join(tmp.dir, 'big.csv');
    const fd = fs.openSync(csv, 'w');
    fs.writeSync(fd, 'id,name,value,category\n');
    const categories = ['alpha', 'beta', 'gamma', 'delta'];
    for (let block = 0; block < 50; block++) {
      let text = '';
      for (let i = block * 20_000; i < (block + 1) * 20_000; i++) {
        text += `${i},"name, number ${i}",${i}.5,${categories[i % 4]}\n`;
      }
      fs.writeSync(fd, text);
    }
    fs.closeSync(fd);
    const csvBytes = fs.statSync(csv).size;
    expect(csvBytes).toBeGreaterThan(40 << 20);
    const script = `
      const { csvToScbf, openScbfFile } = await import(${JSON.stringify(distNode)});
      const result = await csvToScbf(${JSON.stringify(csv)}, ${JSON.stringify(path.join(tmp.dir, 'big.scbf'))});
      const reader = await openScbfFile(${JSON.stringify(path.join(tmp.dir, 'big.scbf'))});
      const last = await reader.value('name', result.rows - 1);
      process.stdout.write(JSON.stringify({ rows: result.rows, types: result.columns.map((c) => c.type), last }));
    `;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--max-old-space-size=32', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      }),
    );
    expect(out).toEqual({
      rows: 1_000_000,
      types: ['int32', 'utf8', 'float64', 'utf8'],
      last: 'name, number 999999',
    });
  });
});

describeWith(built, 'CSV → SCBF with many columns', () => {
  // Each column used to get its own spill files, zlib streams and 256 KiB buffers: EMFILE near
  // 20,000 columns and gigabytes of memory. Now open files and buffers do not grow with it.
  const rows = 12;

  /**
   * CSV → SCBF → CSV of a `columns`-wide CSV in a process allowed 64 open files, and that
   * process's own peak RSS (VmHWM, KiB): its maxRSS would start at that of the process it was
   * forked from (this one).
   */
  function roundTrip(columns: number) {
    const header = Array.from({ length: columns }, (_, c) => `c${c}`);
    const cell = (r: number, c: number) => {
      if (c % 4 === 0) return String(r * c - 7);
      if (c % 4 === 1) return `${r}.25`;
      if (c % 4 === 2) return r === rows - 1 ? 'late text' : String(r); // a numeric start turned into text
      return r % 2 ? `"q,${c}"` : `t${c}`;
    };
    let csv = `${header.join(',')}\n`;
    for (let r = 0; r < rows; r++) csv += `${header.map((_, c) => cell(r, c)).join(',')}\n`;
    const input = path.join(tmp.dir, `wide-${columns}.csv`);
    const output = path.join(tmp.dir, `wide-${columns}.scbf`);
    const back = path.join(tmp.dir, `wide-${columns}-back.csv`);
    fs.writeFileSync(input, csv);
    const script = `
      const { csvToScbf, scbfToCsv } = await import(${JSON.stringify(distNode)});
      const { readFileSync } = await import('node:fs');
      const result = await csvToScbf(${JSON.stringify(input)}, ${JSON.stringify(output)});
      await scbfToCsv(${JSON.stringify(output)}, ${JSON.stringify(back)});
      const types = {};
      for (const c of result.columns) types[c.type] = (types[c.type] ?? 0) + 1;
      const peakKb = Number(/^VmHWM:\\s*(\\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
      process.stdout.write(JSON.stringify({ rows: result.rows, types, peakKb }));
    `;
    const out = JSON.parse(
      execFileSync(
        'sh',
        ['-c', 'ulimit -n 64 && exec "$0" --input-type=module -e "$1"', process.execPath, script],
        {
          encoding: 'utf8',
        },
      ),
    );
    expect({ rows: out.rows, types: out.types }).toEqual({
      rows,
      types: { int32: columns / 4, float64: columns / 4, utf8: columns / 2 },
    });
    expect(fs.readFileSync(back, 'utf8')).toBe(csv);
    return out.peakKb as number;
  }

  it('converts and round-trips 20,000 columns with 64 open files and a bounded RSS', () => {
    const narrow = roundTrip(2_000);
    const wide = roundTrip(20_000);
    // Measured against the same run 10 times narrower, not against a fixed figure: Node itself, the
    // 64 MiB of column buffers and freed buffers V8 has not yet collected are in both. The 18,000
    // more columns add their names, types and statistics: 120-160 MiB measured on Node 20 and 22
    // (~8 KiB a column). A buffer, a zlib stream or a spill file each (the old layout: 256 KiB
    // buffers) would add gigabytes; the bound is 16 KiB a column.
    expect(wide - narrow).toBeLessThan(18_000 * 16);
  });
});

describeWith(built, 'records → SCBF memory', () => {
  // Records are streamed into spilled columns: 600,000 synthetic rows (about 40 MB of
  // values) convert within a 32 MB heap, so nothing holds a column, let alone the table.
  it('converts 600,000 records with a 32 MB heap, into temp files', () => {
    const index = path.resolve(path.dirname(distNode), 'index.js');
    const output = path.join(tmp.dir, 'records.scbf');
    const script = `
      const { recordsToScbfConverter, openScbf } = await import(${JSON.stringify(index)});
      const { runConverter, MemorySource } = await import('@binscope/core');
      const { AtomicFile, fileScratch, openFile } = await import('@binscope/core/node');
      const rows = 600000;
      const input = {
        kind: 'records', name: 'synthetic', format: 'test',
        schema: { fields: [
          { name: 'id', type: { kind: 'int', bits: 32, signed: true } },
          { name: 'big', type: { kind: 'int', bits: 64, signed: true } },
          { name: 'x', type: { kind: 'float', bits: 32 } },
          { name: 'text', type: { kind: 'string' } },
        ] },
        async *tables() {},
        async *records(options = {}) {
          const n = options.limit ?? rows;
          for (let i = 0; i < n; i++)
            yield { index: i, values: { id: i, big: BigInt(i) * 4096n, x: i / 8, text: 'row number ' + i + ' of the synthetic table' } };
        },
        summary: async () => ({}),
      };
      const sink = AtomicFile.create(${JSON.stringify(output)});
      const scratch = fileScratch(${JSON.stringify(output)});
      const report = await runConverter(recordsToScbfConverter, await recordsToScbfConverter.load(), input,
        { kind: 'file', sink }, { scratch, values: { cast: true } });
      scratch.close();
      await sink.commit();
      const reader = await openScbf(openFile(${JSON.stringify(output)}));
      const last = { text: await reader.value('text', rows - 1), big: await reader.value('big', rows - 1) };
      process.stdout.write(JSON.stringify({ rows: report.details.rows, types: reader.columns.map((c) => c.type), last }));
    `;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--max-old-space-size=32', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        cwd: path.resolve(path.dirname(distNode), '..'),
      }),
    );
    expect(out).toEqual({
      rows: 600_000,
      types: ['int32', 'float64', 'float64', 'utf8'],
      last: { text: 'row number 599999 of the synthetic table', big: 599_999 * 4096 },
    });
  });
});
