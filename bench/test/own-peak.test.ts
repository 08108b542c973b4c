import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ownPeak } from '../src/own-peak.js';

const MB = 2 ** 20;
const vmHwmMb = () =>
  Number(/^VmHWM:\s*(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;

describe('ownPeak', () => {
  it("reports a child's own peak, not the high-water mark of the big parent that spawned it", () => {
    // Filled, so every page is resident: this process's peak is now above 500 MB.
    const ballast = Buffer.alloc(500 * MB, 1);
    expect(vmHwmMb()).toBeGreaterThan(500);
    const child = ownPeak(['-e', 'process.stdout.write(String(process.resourceUsage().maxRSS / 1024))']);
    // Why the helper exists: Linux keeps ru_maxrss across execve, so the child's own
    // resourceUsage() reports (about) the parent's peak ...
    expect(Number(child.stdout)).toBeGreaterThan(450);
    // ... while its VmHWM is that of a bare node process (~40 MB).
    expect(child.peakMb).toBeGreaterThan(10);
    expect(child.peakMb).toBeLessThan(150);
    expect(ballast[ballast.length - 1]).toBe(1);
  });

  it('counts what the child itself allocates, worker threads included', () => {
    const main = ownPeak(['-e', 'const b = Buffer.alloc(300 * 2 ** 20, 1); b[0] = 2;']);
    expect(main.peakMb).toBeGreaterThan(300);
    // A worker's memory is the process's: its allocation shows in the main thread's VmHWM.
    const worker = ownPeak([
      '-e',
      `const { Worker } = require('node:worker_threads');
       new Worker("const b = Buffer.alloc(300 * 2 ** 20, 1); b[0] = 2;", { eval: true });`,
    ]);
    expect(worker.peakMb).toBeGreaterThan(300);
  });

  it('fails when the command fails', () => {
    expect(() => ownPeak(['-e', 'process.exitCode = 3'])).toThrow(/failed \(3\)/);
  });
});
