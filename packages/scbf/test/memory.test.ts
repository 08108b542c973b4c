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
