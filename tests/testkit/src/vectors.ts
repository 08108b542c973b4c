import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests/testkit/src → ../../..). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** $BINSCOPE_VECTORS, else ../shared/vectors beside the repository. */
export const VECTORS = path.resolve(REPO_ROOT, process.env.BINSCOPE_VECTORS ?? '../shared/vectors');
export const VECTORS_PRESENT = fs.existsSync(VECTORS) && fs.statSync(VECTORS).isDirectory();

export interface ValidVector {
  format: string;
  name: string;
  dir: string;
  /** The file or archive directory the format's reader opens. */
  target: string;
  expected: Record<string, unknown>;
}

export interface InvalidVector {
  format: string;
  name: string;
  path: string;
  errorClass: string;
}

export function vectorFormats(): string[] {
  if (!VECTORS_PRESENT) return [];
  return fs
    .readdirSync(VECTORS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

const SIDE_FILES = new Set(['.json', '.csv', '.md', '.tar', '.h5ad', '.hex']);

/**
 * The case's target, by the vector layout alone: `archive_dir` (SCDL), else `file`
 * (TARIDX), else the one file named after the case that is not a side file.
 */
function targetOf(dir: string, name: string, expected: Record<string, unknown>): string | undefined {
  if (typeof expected.archive_dir === 'string') return path.join(dir, expected.archive_dir);
  if (typeof expected.file === 'string') return path.join(dir, expected.file);
  if (fs.existsSync(path.join(dir, 'archive'))) return path.join(dir, 'archive');
  const candidates = fs
    .readdirSync(dir)
    .filter((f) => !SIDE_FILES.has(path.extname(f).toLowerCase()) && fs.statSync(path.join(dir, f)).isFile());
  const named =
    candidates.find((f) => f.startsWith(`${name}.`)) ?? (candidates.length === 1 ? candidates[0] : undefined);
  return named === undefined ? undefined : path.join(dir, named);
}

/** Every `<format>/<case>/expected.json` case, sorted by name. */
export function validVectors(format: string): ValidVector[] {
  const root = path.join(VECTORS, format);
  if (!fs.existsSync(root)) return [];
  const out: ValidVector[] = [];
  for (const d of fs.readdirSync(root, { withFileTypes: true })) {
    const dir = path.join(root, d.name);
    if (!d.isDirectory() || d.name === 'invalid' || !fs.existsSync(path.join(dir, 'expected.json'))) continue;
    const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const target = targetOf(dir, d.name, expected);
    if (target) out.push({ format, name: d.name, dir, target, expected });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Rows of the `| file | what is wrong | error class |` table in <format>/invalid/README.md. */
export function invalidVectors(format: string): InvalidVector[] {
  const readme = path.join(VECTORS, format, 'invalid', 'README.md');
  if (!fs.existsSync(readme)) return [];
  const out: InvalidVector[] = [];
  for (const line of fs.readFileSync(readme, 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5) continue;
    const file = cells[1].replace(/`/g, '');
    const errorClass = cells[cells.length - 2].replace(/`/g, '');
    if (!file || file === 'file' || /^-+$/.test(file) || !/^[A-Za-z]+$/.test(errorClass)) continue;
    out.push({
      format,
      name: file.replace(/\/$/, ''),
      path: path.join(VECTORS, format, 'invalid', file),
      errorClass,
    });
  }
  return out;
}
