/**
 * `.h5ad` files written by h5py in anndata ≥ 0.10's layout (test/anndata_h5py.py), for the
 * column encodings whose exact on-disk form matters: h5py's boolean enum, its variable-length
 * UTF-8 strings, nullable groups inside categoricals. Needs python3 with h5py and numpy.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonModules, runPython } from '@binscope/testkit';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'anndata_h5py.py');

export const H5PY_NEEDED = pythonModules(['h5py', 'numpy']);

export type ElementSpec =
  | { kind: 'string-array'; values: string[] }
  | { kind: 'array'; dtype: string; values: (number | boolean)[] }
  | { kind: 'nullable-integer'; dtype?: string; values: (number | null)[] }
  | { kind: 'nullable-boolean'; values: (boolean | null)[] }
  | { kind: 'nullable-string-array'; values: (string | null)[]; naValue?: 'NA' | 'NaN' }
  | {
      kind: 'categorical';
      codes: number[];
      codesDtype?: string;
      ordered?: boolean;
      categories: Exclude<ElementSpec, { kind: 'categorical' }>;
    };

export type ColumnSpec = ElementSpec & { name: string };

export interface FrameSpec {
  index: ElementSpec;
  columns?: ColumnSpec[];
}

export interface H5pyAnnData {
  /** Dense rows of X, stored as a float32 csr_matrix. */
  X: number[][];
  obs: FrameSpec;
  var: FrameSpec;
}

export function writeH5adWithH5py(file: string, spec: H5pyAnnData): void {
  runPython(SCRIPT, [file], JSON.stringify(spec));
}
