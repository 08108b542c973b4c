/**
 * A `.h5ad` that HDF5 loops on forever: zeros over bytes 3587–3744 of a vector's input make a
 * global heap collection's free-space record 0 bytes long, and HDF5 (h5wasm, and h5py's
 * libhdf5 2.0 alike) never gets past it. Such work runs in a worker thread: a stall
 * (stallTimeout) is a FormatError and an abort stops it at once (SIGTERM and the CLI:
 * apps/cli/test/h5ad-hang.test.ts).
 * Each case runs in a child process with a time limit: on a build without the worker the
 * loop holds the only thread, and the limit (not a hung test run) fails the test.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { builtFile, describeWith, tempDir, vectorsFolder } from '@binscope/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { vectorsRoot } from './vectors.js';

const source = path.join(vectorsRoot, 'scdl/basic_float32_raw/source/input.h5ad');
const distNode = path.resolve(import.meta.dirname, '../dist/node.js');
const scratch = tempDir('scdl-h5ad-hang-');
const looping = path.join(scratch.dir, 'looping.h5ad');
afterAll(() => scratch.remove());

beforeAll(() => {
  if (!fs.existsSync(source)) return;
  const bytes = fs.readFileSync(source);
  bytes.fill(0, 3587, 3745);
  fs.writeFileSync(looping, bytes);
});

/** Runs an ES module snippet importing the built package; killed after `limit` ms. */
function child(
  code: string,
  limit: number,
): { status: number | null; signal: string | null; stdout: string } {
  const run = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `const h5ad = await import(${JSON.stringify(distNode)});\n${code}`],
    { encoding: 'utf8', timeout: limit, killSignal: 'SIGKILL' },
  );
  return { status: run.status, signal: run.signal, stdout: run.stdout };
}

describeWith(
  [vectorsFolder(path.dirname(source)), builtFile(distNode)],
  'HDF5 looping on a corrupt file',
  () => {
    it('describe and convert end with a FormatError once no HDF5 call returns for stallTimeout', () => {
      const out = path.join(scratch.dir, 'out');
      const run = child(
        `for (const go of [
           () => h5ad.describeH5ad(${JSON.stringify(looping)}, { stallTimeout: 1500 }),
           () => h5ad.convertH5adToScdl(${JSON.stringify(looping)}, ${JSON.stringify(out)}, { stallTimeout: 1500 }),
         ]) {
           try { await go(); console.log('no error'); } catch (e) { console.log(e._tag, e.code, e.message); }
         }`,
        90_000,
      );
      expect(run.signal, 'still looping when killed').toBeNull();
      const lines = run.stdout.trim().split('\n');
      expect(lines).toHaveLength(2);
      for (const line of lines)
        expect(line).toMatch(
          /^FormatError InvalidValue HDF5 read failed \(the HDF5 library has not returned for 1.5 s: it loops on a corrupt structure\) \(at .*looping\.h5ad\)$/,
        );
      expect(fs.readdirSync(scratch.dir)).toEqual(['looping.h5ad']);
    }, 120_000);

    it('an abort stops a conversion HDF5 loops in, and leaves nothing behind', () => {
      const out = path.join(scratch.dir, 'aborted');
      const run = child(
        `const controller = new AbortController();
         setTimeout(() => controller.abort(), 300);
         try { await h5ad.convertH5adToScdl(${JSON.stringify(looping)}, ${JSON.stringify(out)}, { signal: controller.signal }); console.log('no error'); }
         catch (e) { console.log(e._tag, e.message); }`,
        90_000,
      );
      expect(run.signal, 'still looping when killed').toBeNull();
      expect(run.stdout.trim()).toBe('SourceError aborted');
      expect(fs.readdirSync(scratch.dir)).toEqual(['looping.h5ad']);
    }, 120_000);
  },
);
