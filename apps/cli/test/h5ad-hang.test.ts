import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeWith, tempDir, vectorsFolder } from '@binscope/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN } from './helpers.js';
import { VECTORS } from './vectors.js';

// A `.h5ad` HDF5 loops on forever (zeros over bytes 3587–3744 of a vector's input: a global
// heap record of size 0) used to hold `convert` past 10 minutes, deaf to SIGTERM: the loop
// held the only thread, so the signal handler never ran. HDF5 now runs in a worker thread.

const source = path.join(VECTORS, 'scdl/basic_float32_raw/source/input.h5ad');
const scratch = tempDir('binscope-cli-h5ad-hang-');
const looping = path.join(scratch.dir, 'looping.h5ad');
afterAll(() => scratch.remove());
beforeAll(() => {
  if (!fs.existsSync(source)) return;
  const bytes = fs.readFileSync(source);
  bytes.fill(0, 3587, 3745);
  fs.writeFileSync(looping, bytes);
});

/** CPU time a process has used, in clock ticks (1/100 s), from /proc. */
function cpuTicks(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describeWith(vectorsFolder(path.dirname(source)), 'convert of a .h5ad HDF5 loops on', () => {
  it('stops on SIGTERM, leaving nothing behind', async () => {
    const out = path.join(scratch.dir, 'signalled');
    const convert = spawn(process.execPath, [BIN, 'convert', looping, out], { stdio: 'ignore' });
    const exited = new Promise<string | null>((resolve) =>
      convert.on('exit', (_code, signal) => resolve(signal)),
    );
    // Inside the loop for sure once it has spent 3 s of CPU (start-up takes well under one):
    // a state to wait for, not a sleep.
    while (cpuTicks(convert.pid!) < 300) await new Promise((resolve) => setTimeout(resolve, 100));
    convert.kill('SIGTERM');
    const limit = setTimeout(() => convert.kill('SIGKILL'), 60_000);
    const signal = await exited;
    clearTimeout(limit);
    expect(signal, 'ignored SIGTERM (killed after 60 s)').toBe('SIGTERM');
    expect(fs.readdirSync(scratch.dir)).toEqual(['looping.h5ad']);
  }, 180_000);
});
