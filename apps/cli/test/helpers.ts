import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const BIN = path.join(REPO, 'apps/cli/bin/binscope.js');
export const BUILT = fs.existsSync(path.join(REPO, 'apps/cli/dist/index.js'));
if (!BUILT)
  throw new Error(
    'apps/cli/dist is missing: the tests run the built CLI; build it first (pnpm --filter @binscope/cli build)',
  );

export interface CliResult {
  code: number | null;
  stdout: string;
  stdoutBytes: Buffer;
  stderr: string;
}

/** Runs the built CLI as a user would, from the repo root: `node apps/cli/bin/binscope.js ARGS`. */
export function cli(
  args: readonly string[],
  options: { cwd?: string; nodeArgs?: string[]; env?: NodeJS.ProcessEnv } = {},
): CliResult {
  const result = spawnSync(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    cwd: options.cwd ?? REPO,
    env: { ...process.env, ...options.env },
    maxBuffer: 512 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return {
    code: result.status,
    stdoutBytes: result.stdout,
    stdout: result.stdout.toString('utf8'),
    stderr: result.stderr.toString('utf8'),
  };
}

/** Like `cli`, but reads stdout as a stream and closes it after `lines` lines (`| head`). */
export function cliFirstLines(
  args: readonly string[],
  lines: number,
): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    const got: string[] = [];
    let partial = '';
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdout.on('data', (d: Buffer) => {
      if (got.length >= lines) return;
      partial += d.toString('utf8');
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      got.push(...parts.slice(0, lines - got.length));
      if (got.length >= lines) child.stdout.destroy();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, lines: got, stderr }));
  });
}

/** A stack trace line: never on stderr without --debug. */
export const STACK_LINE = /^\s+at .+\(.*:\d+:\d+\)$|^\s+at .+:\d+:\d+$/m;

export function expectOneLineError(stderr: string): string[] {
  const lines = stderr.split('\n').filter((l) => l.trim() && !l.includes('warning:'));
  return lines;
}

/**
 * Like `cli`, without blocking this process: for tests whose server runs in the test process
 * itself (a synchronous run would stall it). The run is killed after `killAfterMs` (its result
 * then has code null), so a CLI that hangs fails the test instead of stalling the suite.
 */
export function cliAsync(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; killAfterMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: REPO,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({
        code,
        stdoutBytes,
        stdout: stdoutBytes.toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}
