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
