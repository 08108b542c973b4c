import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../src/node/index.js';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/node/index.js');
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-crash-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const CHUNK = 1 << 16;
const CHUNKS = 200;

/** A child that writes CHUNKS chunks of byte `fill` to `target` through AtomicFile, yielding between chunks. */
function startWriter(target: string, fill: number) {
  const script = `
    const { writeFileAtomic } = await import(${JSON.stringify(dist)});
    await writeFileAtomic(${JSON.stringify(target)}, async (sink) => {
      process.stdout.write('started\\n');
      for (let i = 0; i < ${CHUNKS}; i++) {
        await sink.write(new Uint8Array(${CHUNK}).fill(${fill}));
        await new Promise((r) => setImmediate(r));
      }
    });
    process.stdout.write('done\\n');
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

describe('a writer killed mid-write', () => {
  it('leaves the previous file or the complete new one, and no litter after the next success', async () => {
    let killedMidWrite = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 60 }), async (delayMs) => {
        const target = path.join(dir, 'out.bin');
        await writeFileAtomic(target, new Uint8Array(10).fill(1));
        const child = startWriter(target, 2);
        const exited = new Promise((r) => child.once('exit', r));
        await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
        await new Promise((r) => setTimeout(r, delayMs));
        child.kill('SIGKILL');
        await exited;
        const bytes = fs.readFileSync(target);
        const previous = bytes.byteLength === 10 && bytes.every((b) => b === 1);
        const complete = bytes.byteLength === CHUNK * CHUNKS && bytes.every((b) => b === 2);
        expect(previous || complete).toBe(true);
        if (previous) killedMidWrite++;
        await writeFileAtomic(target, new Uint8Array(3).fill(3));
        expect(fs.readdirSync(dir)).toEqual(['out.bin']);
      }),
      { numRuns: 8, seed: 7 },
    );
    // The property must have met real interruptions, not only finished writers.
    expect(killedMidWrite).toBeGreaterThan(0);
  }, 60_000);
});
