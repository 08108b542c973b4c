import { execFileSync, spawnSync } from 'node:child_process';
import { type Prerequisite, prerequisite } from './prerequisites.js';

/** The Python that cross-checks run against the upstream tools (numpy, h5py): BINSCOPE_PYTHON, else python3. */
export const PYTHON = process.env.BINSCOPE_PYTHON ?? 'python3';

const checked = new Map<string, boolean>();

/**
 * Python with these modules importable (`pip install -r tests/python-requirements.txt`), for
 * tests that compare binscope with the real upstream libraries or build inputs with them.
 */
export function pythonModules(modules: readonly string[]): Prerequisite {
  const key = modules.join(',');
  let present = checked.get(key);
  if (present === undefined) {
    const probe = spawnSync(PYTHON, ['-c', `import ${key}`], { stdio: 'ignore' });
    present = probe.status === 0;
    checked.set(key, present);
  }
  return prerequisite(
    present,
    `${PYTHON} cannot import ${modules.join(', ')} (pip install -r tests/python-requirements.txt, or set BINSCOPE_PYTHON)`,
  );
}

/** Runs a Python script file with arguments and optional stdin; its stdout as text (throws on a non-zero exit). */
export function runPython(script: string, args: readonly string[] = [], input?: string): string {
  return execFileSync(PYTHON, [script, ...args], {
    input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}
