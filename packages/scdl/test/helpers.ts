import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryDirectory } from '@binscope/core';
import { writeScdlToMemory } from '../src/index.js';
import { vectorsFolder } from '@binscope/testkit';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const VECTORS = path.resolve(repoRoot, process.env.BINSCOPE_VECTORS ?? '../shared/vectors');
export const SCDL_VECTORS = path.join(VECTORS, 'scdl');
export const VECTORS_NEEDED = vectorsFolder(SCDL_VECTORS);
export const VECTORS_PRESENT = VECTORS_NEEDED.present;

/** Valid cases: folders with expected.json and an archive/. */
export function validCases(): Array<{ name: string; archive: string; expected: Record<string, unknown> }> {
  if (!VECTORS_PRESENT) return [];
  return fs
    .readdirSync(SCDL_VECTORS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(SCDL_VECTORS, d.name, 'expected.json')))
    .map((d) => {
      const expected = JSON.parse(fs.readFileSync(path.join(SCDL_VECTORS, d.name, 'expected.json'), 'utf8'));
      return {
        name: d.name,
        archive: path.join(SCDL_VECTORS, d.name, expected.archive_dir ?? 'archive'),
        expected,
      };
    });
}

/** Every file of a folder, recursively, as a MemoryDirectory (for mutation tests). */
export function loadDirectory(dir: string): MemoryDirectory {
  const files = new Map<string, Uint8Array>();
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const full = path.join(dir, rel);
    if (fs.statSync(full).isFile())
      files.set(rel.split(path.sep).join('/'), new Uint8Array(fs.readFileSync(full)));
  }
  return new MemoryDirectory(files, path.basename(dir));
}

/** A copy of an in-memory archive with some files replaced (bytes) or removed (null). */
export async function withChanges(
  dir: MemoryDirectory,
  changes: Record<string, Uint8Array | null>,
): Promise<MemoryDirectory> {
  const out = new MemoryDirectory(new Map(), dir.name);
  for (const file of await dir.list()) {
    const change = changes[file];
    if (change === null) continue;
    out.set(file, change ?? dir.get(file)!);
  }
  for (const [file, bytes] of Object.entries(changes))
    if (bytes && !(await out.has(file))) out.set(file, bytes);
  return out;
}

/** A writer-made archive: 6 rows in two ragged var blocks (4 and 3 genes) and one obs block. */
export async function raggedArchive(): Promise<MemoryDirectory> {
  const { directory } = await writeScdlToMemory(
    {
      indptr: [0, 2, 3, 3, 5, 6, 7],
      indices: [0, 3, 2, 1, 2, 0, 2],
      data: [1, 2, 3, 4, 5, 6, 7],
      numCols: 4,
    },
    {
      var: [
        { label: 'a.h5ad', rows: 4, columns: [{ name: 'gene', values: ['g0', 'g1', 'g2', 'g3'] }] },
        { label: 'b.h5ad', rows: 2, columns: [{ name: 'gene', values: ['h0', 'h1', 'h2'] }] },
      ],
      obs: [
        {
          label: 'a.h5ad',
          rows: 6,
          columns: [{ name: 'cell', values: ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'] }],
        },
      ],
    },
  );
  return directory;
}
