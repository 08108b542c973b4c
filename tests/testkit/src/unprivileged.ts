import { spawnSync } from 'node:child_process';

const NOBODY = 65534;

/**
 * Runs an ES module snippet in a child Node process as an unprivileged user when the tests
 * run as root (root ignores directory permissions, so a read-only folder only stops others).
 * Returns the child's exit status and output.
 */
export function runUnprivileged(moduleCode: string): {
  status: number | null;
  stdout: string;
  stderr: string;
} {
  const asRoot = process.getuid?.() === 0;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', moduleCode], {
    encoding: 'utf8',
    ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
