import { builtFile, describeWith } from '@binscope/testkit';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { directoryTarget } from '@binscope/core';
import { NodeDirectory } from '@binscope/core/node';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openScdlArchive, validateScdl, writeScdlArchive } from '../src/node.js';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/node.js');
const built = builtFile(dist);

const ROWS = 400;
const PER_ROW = 2000;

/** A child streaming ROWS rows of value `fill` into `target`, yielding between chunks. */
function startWriter(target: string, fill: number) {
  const script = `
    const { createScdlArchiveWriter } = await import(${JSON.stringify(dist)});
    const writer = await createScdlArchiveWriter(${JSON.stringify(target)}, { numCols: ${PER_ROW} });
    process.stdout.write('started\\n');
    const indices = Uint32Array.from({ length: ${PER_ROW} }, (_, k) => k);
    for (let r = 0; r < ${ROWS}; r++) {
      await writer.appendRows({ indptr: [0, ${PER_ROW}], indices, data: new Float32Array(${PER_ROW}).fill(${fill}) });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await writer.finish({ obs: [{ label: 'x', rows: ${ROWS}, columns: [{ name: 'cell', values: Array.from({ length: ${ROWS} }, String) }] }] });
    process.stdout.write('done\\n');
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scdl-crash-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describeWith(built, 'a writer killed mid-write (SIGKILL)', () => {
  it('leaves the previous archive or the complete new one, and no litter after the next success', async () => {
    let interrupted = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 150 }), async (delayMs) => {
        const target = path.join(dir, 'archive');
        await writeScdlArchive(target, { indptr: [0, 1], indices: [0], data: [1], numCols: 1 });
        const child = startWriter(target, 2);
        const exited = new Promise((resolve) => child.once('exit', resolve));
        await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        child.kill('SIGKILL');
        await exited;

        const reader = await openScdlArchive(target);
        const previous =
          reader.numRows === 1 && Array.from((await reader.row(0)).values as Float32Array).join() === '1';
        const complete = reader.numRows === ROWS && (await reader.row(ROWS - 1)).values.every((v) => v === 2);
        await reader.close();
        expect(previous || complete).toBe(true);
        const report = await validateScdl(directoryTarget(new NodeDirectory(target)));
        expect(report.errors).toEqual([]);
        if (previous) interrupted++;

        // Killed after the new archive was renamed in but before the old one was deleted, the
        // writer leaves the old copy aside: the next writer reports it and keeps it (never
        // deletes a copy it cannot prove redundant). Nothing else may be left.
        const warnings: string[] = [];
        await writeScdlArchive(
          target,
          { indptr: [0, 1], indices: [0], data: [3], numCols: 1 },
          { onWarning: (w) => warnings.push(w) },
        );
        const kept = fs.readdirSync(dir).filter((n) => n !== 'archive');
        expect(
          kept.every((n) => n.startsWith('.archive.binscope-old-')),
          kept.join(),
        ).toBe(true);
        expect(warnings).toHaveLength(kept.length);
        for (const n of kept) fs.rmSync(path.join(dir, n), { recursive: true });
      }),
      { numRuns: 8, seed: 11 },
    );
    // The property must have met real interruptions, not only finished writers.
    expect(interrupted).toBeGreaterThan(0);
  }, 120_000);
});
