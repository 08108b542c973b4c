import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const NOBODY = 65534;

/** Where a file of a package lies for the child: `locate(packageDir, 'dist/index.js')`. */
export type Locate = (packageDir: string, entry: string) => string;

export interface UnprivilegedResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs an ES module snippet in a child Node process as an unprivileged user when the tests
 * run as root (root ignores directory permissions, so a read-only folder only stops others).
 *
 * The unprivileged child cannot enter a checkout that lies in a folder closed to others
 * (`/root`, `mktemp -d`), so under root the packages it imports are staged first: each
 * package's published files and its dependencies are copied into a world-readable temp
 * folder laid out as node_modules, and `locate` points there. Node itself is copied too
 * when its binary is out of reach (e.g. a Node fetched by `npx` under /root).
 */
export function runUnprivileged(code: (locate: Locate) => string): UnprivilegedResult {
  if (process.getuid?.() !== 0) {
    const result = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', code((dir, entry) => path.join(dir, entry))],
      {
        encoding: 'utf8',
      },
    );
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-unprivileged-'));
  try {
    fs.chmodSync(stage, 0o755);
    const staged = new Map<string, string>();
    const locate: Locate = (dir, entry) => path.join(stagePackage(dir, stage, staged), entry);
    const source = code(locate);
    makeWorldReadable(stage);
    const result = spawnSync(reachableNode(), ['--input-type=module', '-e', source], {
      encoding: 'utf8',
      cwd: stage,
      uid: NOBODY,
      gid: NOBODY,
    });
    if (result.error) throw result.error;
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

interface Manifest {
  name: string;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function manifestOf(dir: string): Manifest {
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** Copies a package (and, recursively, what it depends on) under `stage/node_modules`. */
function stagePackage(dir: string, stage: string, staged: Map<string, string>): string {
  const real = fs.realpathSync(dir);
  const manifest = manifestOf(real);
  const existing = staged.get(manifest.name);
  if (existing) return existing;
  const target = path.join(stage, 'node_modules', manifest.name);
  staged.set(manifest.name, target);
  fs.mkdirSync(target, { recursive: true });
  // A workspace package ships only its `files` (as npm would); an installed one is copied whole.
  const inWorkspace = !real.split(path.sep).includes('node_modules');
  const entries = inWorkspace && manifest.files ? ['package.json', ...manifest.files] : fs.readdirSync(real);
  for (const entry of entries) {
    if (entry === 'node_modules' || !fs.existsSync(path.join(real, entry))) continue;
    fs.cpSync(path.join(real, entry), path.join(target, entry), { recursive: true, dereference: true });
  }
  for (const name of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    const found = findDependency(real, name);
    if (found) stagePackage(found, stage, staged);
  }
  return target;
}

/** Node's lookup: `node_modules/<name>` in the package's folder or any folder above it. */
function findDependency(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function makeWorldReadable(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    fs.chmodSync(full, entry.isDirectory() ? 0o755 : 0o644);
  }
}

/** True when a user who is neither owner nor group can run `file`. */
function othersCanRun(file: string): boolean {
  if ((fs.statSync(file).mode & 0o005) !== 0o005) return false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if ((fs.statSync(dir).mode & 0o001) === 0) return false;
    if (path.dirname(dir) === dir) return true;
  }
}

/** This Node binary, or a cached world-readable copy of it when others cannot run it. */
function reachableNode(): string {
  const node = fs.realpathSync(process.execPath);
  if (othersCanRun(node)) return node;
  const stat = fs.statSync(node);
  const dir = path.join(os.tmpdir(), `binscope-node-${process.version}-${stat.size}`);
  const copy = path.join(dir, 'node');
  if (!fs.existsSync(copy)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    // Copy under a private name, then rename: parallel test files may race here.
    const partial = `${copy}.${process.pid}`;
    fs.copyFileSync(node, partial);
    fs.chmodSync(partial, 0o755);
    fs.renameSync(partial, copy);
  }
  return copy;
}
