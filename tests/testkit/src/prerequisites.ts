import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { describe, it } from 'vitest';

/**
 * Something a suite needs that the checkout may lack: the shared vectors, a built `dist/`.
 * Outside CI a missing one skips the suite with its reason printed and one skipped test
 * counted per suite, so "N skipped" in the summary says how much did not run. Under CI it
 * fails the test file at load, naming what is missing: a CI run that proves less than it
 * claims must not pass.
 */
export interface Prerequisite {
  readonly present: boolean;
  /** What is missing and how to get it (empty when present). */
  readonly missing: string;
}

export const IN_CI = ['1', 'true'].includes((process.env.CI ?? '').toLowerCase());

export function prerequisite(present: boolean, missing: string): Prerequisite {
  if (present) return { present, missing: '' };
  if (IN_CI) throw new Error(`CI: ${missing}`);
  console.warn(`skipped: ${missing}`);
  return { present, missing };
}

/** A vectors folder (the whole set or one format's part of it). */
export function vectorsFolder(folder: string): Prerequisite {
  const present = fs.existsSync(folder) && fs.statSync(folder).isDirectory();
  return prerequisite(present, `no vectors folder at ${folder} (set BINSCOPE_VECTORS)`);
}

/** A built file, e.g. a package's `dist/node.js` that a child process imports. */
export function builtFile(file: string): Prerequisite {
  return prerequisite(fs.existsSync(file), `${file} is not built (run \`pnpm build\` first)`);
}

/**
 * A command that must run and succeed (exit 0): e.g. GNU tar, or python3 importing a module.
 * `how` says how to get it when it is missing.
 */
export function command(file: string, args: readonly string[], what: string, how: string): Prerequisite {
  const run = spawnSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const ok = run.error === undefined && run.status === 0;
  return prerequisite(ok, `${what} is not available (\`${[file, ...args].join(' ')}\` failed; ${how})`);
}

/** GNU tar (not bsdtar): `tar --version` names it. */
export function gnuTar(): Prerequisite {
  const run = spawnSync('tar', ['--version'], { encoding: 'utf8' });
  const ok = run.status === 0 && /GNU tar/.test(run.stdout ?? '');
  return prerequisite(ok, 'GNU tar is not on PATH (apt-get install tar)');
}

/** `describe`, or, when a prerequisite is missing, one skipped test that names it. */
export function describeWith(
  needed: Prerequisite | readonly Prerequisite[],
  name: string,
  body: () => void | Promise<void>,
): void {
  const missing = (Array.isArray(needed) ? needed : [needed]).filter((p: Prerequisite) => !p.present);
  if (missing.length === 0) describe(name, body);
  else describe(name, () => it.skip(`skipped: ${missing.map((p: Prerequisite) => p.missing).join('; ')}`));
}
