import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const launcher = path.join(here, 'own-peak-launcher.cjs');
/** The CLI as a user runs it (built: `pnpm build` first). */
export const CLI = path.resolve(here, '..', '..', 'apps', 'cli', 'bin', 'binscope.js');

export interface OwnPeak {
  /** The process's own peak RSS (VmHWM), MB. */
  peakMb: number;
  peakKb: number;
  /** Wall time of the whole process, start-up included. */
  ms: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node ...args` and returns its own peak RSS: the VmHWM its preloaded launcher reads from
 * /proc/self/status as it exits. A child's `process.resourceUsage().maxRSS` (and `wait4`'s
 * ru_maxrss) would not do: Linux keeps ru_maxrss across execve, so a child spawned by the bench
 * reports the bench's own high-water mark (bench/test/own-peak.test.ts shows both). VmHWM
 * belongs to the address space exec created, so it counts this process alone (all its threads).
 */
export function ownPeak(args: readonly string[], options: { cwd?: string } = {}): OwnPeak {
  if (process.platform !== 'linux') throw new Error('own peak RSS needs /proc (Linux)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-peak-'));
  const file = path.join(dir, 'vmhwm');
  try {
    const start = performance.now();
    const run = spawnSync(process.execPath, ['--require', launcher, ...args], {
      cwd: options.cwd,
      env: { ...process.env, BINSCOPE_OWN_PEAK_FILE: file },
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ms = performance.now() - start;
    if (run.error) throw run.error;
    if (run.status !== 0)
      throw new Error(`node ${args.join(' ')} failed (${run.status ?? run.signal}): ${run.stderr}`);
    const peakKb = Number(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : Number.NaN);
    if (!(peakKb > 0)) throw new Error(`node ${args.join(' ')} exited without reporting its VmHWM`);
    return { peakKb, peakMb: Math.round(peakKb / 1024), ms, stdout: run.stdout, stderr: run.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `binscope ...args` in a fresh process, with its own peak RSS. */
export function cliPeak(...args: string[]): OwnPeak {
  if (!fs.existsSync(path.join(path.dirname(CLI), '..', 'dist')))
    throw new Error(`${CLI} is not built: run pnpm build first`);
  return ownPeak([CLI, ...args]);
}
