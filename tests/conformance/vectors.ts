import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The vectors folder: $BINSCOPE_VECTORS, else ../shared/vectors beside the repo. */
export const VECTORS = path.resolve(repoRoot, process.env.BINSCOPE_VECTORS ?? '../shared/vectors');
export const VECTORS_PRESENT = fs.existsSync(VECTORS) && fs.statSync(VECTORS).isDirectory();

export interface ValidCase {
  format: string;
  name: string;
  dir: string;
  expected: Record<string, unknown>;
}

export interface InvalidCase {
  format: string;
  name: string;
  path: string;
  errorClass: string;
}

export function formats(): string[] {
  if (!VECTORS_PRESENT) return [];
  return fs
    .readdirSync(VECTORS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function validCases(format: string): ValidCase[] {
  const root = path.join(VECTORS, format);
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter(
      (d) =>
        d.isDirectory() && d.name !== 'invalid' && fs.existsSync(path.join(root, d.name, 'expected.json')),
    )
    .map((d) => ({
      format,
      name: d.name,
      dir: path.join(root, d.name),
      expected: JSON.parse(fs.readFileSync(path.join(root, d.name, 'expected.json'), 'utf8')),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Rows of the `| file | what is wrong | error class |` table in <format>/invalid/README.md. */
export function invalidCases(format: string): InvalidCase[] {
  const readme = path.join(VECTORS, format, 'invalid', 'README.md');
  if (!fs.existsSync(readme)) return [];
  const out: InvalidCase[] = [];
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
