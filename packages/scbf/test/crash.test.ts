import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir, builtFile, describeWith } from '@binscope/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { csvToScbf, openScbfFile, writeScbfFile } from '../src/node.js';

// A converter killed at a random moment (SIGKILL: no cleanup code runs) leaves the target
// holding the complete previous file, or the complete new one; the next successful write
// removes whatever the killed one left (temp file, spill folder).

const distNode = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/node.js');
const built = builtFile(distNode);

let tmp: { dir: string; remove: () => void };
beforeAll(() => {
  tmp = tempDir('scbf-crash-');
});
afterAll(() => tmp.remove());

function startConverter(csv: string, target: string) {
  const script = `
    const { csvToScbf } = await import(${JSON.stringify(distNode)});
    process.stdout.write('started\\n');
    await csvToScbf(${JSON.stringify(csv)}, ${JSON.stringify(target)});
    process.stdout.write('done\\n');
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

describeWith(built, 'CSV → SCBF killed mid-write', () => {
  it('leaves the previous file or the complete new one, and no litter after the next success', async () => {
    const dir = tmp.dir;
    const csv = path.join(dir, 'in.csv');
    let text = 'id,name,x\n';
    for (let i = 0; i < 80_000; i++) text += `${i},name ${i % 97},${i}.5\n`;
    fs.writeFileSync(csv, text);
    const target = path.join(dir, 'out.scbf');
    let interrupted = 0;
    let completed = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), async (delayMs) => {
        await writeScbfFile(target, [{ name: 'previous', values: Int32Array.of(42) }]);
        const child = startConverter(csv, target);
        const exited = new Promise((r) => child.once('exit', r));
        await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
        await new Promise((r) => setTimeout(r, delayMs));
        child.kill('SIGKILL');
        await exited;
        const reader = await openScbfFile(target);
        if (reader.columnNames[0] === 'previous') {
          interrupted++;
          expect(await reader.value('previous', 0)).toBe(42);
        } else {
          completed++;
          expect(reader.rowCount).toBe(80_000);
          expect(reader.column('x').type).toBe('float64');
          expect(await reader.value('x', 79_999)).toBe(79_999.5);
        }
        await reader.close();
        // The next successful write clears what the killed writer left.
        await csvToScbf(csv, target);
        expect(fs.readdirSync(dir).sort()).toEqual(['in.csv', 'out.scbf']);
      }),
      { numRuns: 6, seed: 5 },
    );
    // The property must have met real interruptions.
    expect(interrupted).toBeGreaterThan(0);
    expect(interrupted + completed).toBe(6);
  });
});
