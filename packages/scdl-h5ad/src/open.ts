import { FormatError } from '@binscope/core';
import { AnnDataFile } from './anndata.js';
import { child, condenseHdf5Error, type H5Lib, isGroup } from './h5.js';
import { asH5adError } from './h5-failures.js';

/** The HDF5 format signature (\x89HDF\r\n\x1a\n). */
export const HDF5_SIGNATURE = new Uint8Array([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Offsets where HDF5 looks for its superblock: 0, then 512, 1024, 2048, … (after a user block). */
export function signatureOffsets(size: number): number[] {
  const out = [0];
  for (let at = 512; at + 8 <= size; at *= 2) out.push(at);
  return out;
}

export function hasSignatureAt(bytes: Uint8Array): boolean {
  return bytes.byteLength >= 8 && HDF5_SIGNATURE.every((b, i) => bytes[i] === b);
}

/**
 * Opens an HDF5 file that h5wasm can reach at `path` (host path in Node, mounted path in
 * browsers) as AnnData. HDF5 failures become FormatErrors naming the file.
 */
export function openAnnData(lib: H5Lib, path: string, name: string, release?: () => void): AnnDataFile {
  let file: InstanceType<H5Lib['File']>;
  try {
    file = new lib.File(path, 'r');
    // Without the throwing error handler a failed open returns a negative id.
    if (file.file_id < 0n) throw new Error(`H5Fopen failed (${file.file_id})`);
  } catch (cause) {
    release?.();
    const detail = condenseHdf5Error(cause);
    const code = /truncat|eof|addr overflow/i.test(detail) ? 'Truncated' : 'InvalidValue';
    throw new FormatError(code, `cannot open as HDF5 (${detail})`, { file: name, format: 'h5ad' }, { cause });
  }
  let hasObs: boolean;
  let hasVar: boolean;
  try {
    hasObs = isGroup(file) && child(file, 'obs') !== undefined;
    hasVar = isGroup(file) && child(file, 'var') !== undefined;
  } catch (cause) {
    // A corrupt root group fails here, after the superblock opened fine.
    closeQuietly(file);
    release?.();
    throw asH5adError(cause, name);
  }
  if (!hasObs || !hasVar) {
    file.close();
    release?.();
    throw new FormatError('InvalidValue', 'an HDF5 file but not AnnData: no obs and var', {
      file: name,
      format: 'h5ad',
    });
  }
  return new AnnDataFile(lib, file, name, release);
}

function closeQuietly(file: { close(): unknown }): void {
  try {
    file.close();
  } catch {
    // The open already failed; that error is the one to report.
  }
}

/**
 * pathlib's ordering of paths (upstream sorts `Path.rglob('*.h5ad')`): part by part, so
 * "a/x" sorts before "a-b/x" even though "/" > "-".
 */
export function comparePathParts(a: string, b: string): number {
  const pa = a.split('/').filter(Boolean);
  const pb = b.split('/').filter(Boolean);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** A path as Python's PurePosixPath prints it: no "." parts, no doubled or trailing "/". */
export function pythonPath(p: string): string {
  const absolute = p.startsWith('/');
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  const joined = parts.join('/');
  return absolute ? `/${joined}` : joined || '.';
}
