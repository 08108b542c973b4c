import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { vectorsFolder } from '@binscope/testkit';
import type { FieldSpec, MldfReader } from '../src/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const VECTORS = path.resolve(repoRoot, process.env.BINSCOPE_VECTORS ?? '../shared/vectors');
export const MLDF_VECTORS = path.join(VECTORS, 'mldf');
export const VECTORS_NEEDED = vectorsFolder(MLDF_VECTORS);
export const VECTORS_PRESENT = VECTORS_NEEDED.present;

/** Valid vector files: every <case>/<case>.mldf with an expected.json. */
export function validVectors(): Array<{ name: string; file: string }> {
  if (!VECTORS_PRESENT) return [];
  return fs
    .readdirSync(MLDF_VECTORS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(MLDF_VECTORS, d.name, 'expected.json')))
    .flatMap((d) => {
      const file = fs.readdirSync(path.join(MLDF_VECTORS, d.name)).find((n) => n.endsWith('.mldf'));
      return file ? [{ name: d.name, file: path.join(MLDF_VECTORS, d.name, file) }] : [];
    });
}

export function readBytes(file: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(file));
}

/** The writer's field specs that describe a file's fields. */
export function specsOf(reader: MldfReader): FieldSpec[] {
  return reader.fields.map((f) =>
    f.ndarray
      ? { name: f.name, type: f.type, dtype: f.ndarray.dtype, shape: f.ndarray.shape }
      : { name: f.name, type: f.type },
  );
}
