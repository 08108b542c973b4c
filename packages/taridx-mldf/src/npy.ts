import type { NdDtype } from '@binscope/mldf';

const ND: ReadonlySet<string> = new Set([
  '|u1',
  '|i1',
  '<u2',
  '<i2',
  '<u4',
  '<i4',
  '<u8',
  '<i8',
  '<f4',
  '<f8',
]);
const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
const latin1 = new TextDecoder('latin1');

export interface NpyLayout {
  dtype: NdDtype;
  shape: number[];
  /** Where the C-order array data starts inside the member. */
  dataOffset: number;
}

/**
 * The array an .npy member holds when MLDF's NDARRAY can carry it (one of its ten dtypes,
 * C order, at most 8 axes, data exactly prod(shape)·itemsize); undefined otherwise, and the
 * field falls back to BYTES.
 */
export function npyLayout(bytes: Uint8Array): NpyLayout | undefined {
  if (bytes.length < 10 || NPY_MAGIC.some((b, i) => bytes[i] !== b)) return undefined;
  const major = bytes[6];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lengthSize = major === 1 ? 2 : 4;
  if (major < 1 || major > 3 || bytes.length < 8 + lengthSize) return undefined;
  const headerLength = lengthSize === 2 ? view.getUint16(8, true) : view.getUint32(8, true);
  const dataOffset = 8 + lengthSize + headerLength;
  if (dataOffset > bytes.length) return undefined;
  const header = latin1.decode(bytes.subarray(8 + lengthSize, dataOffset));
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || fortran !== 'False' || shapeText === undefined) return undefined;
  // One-byte types have no byte order; numpy may still spell them with '<' or '>'.
  const dtype =
    descr === '<u1' || descr === '>u1' ? '|u1' : descr === '<i1' || descr === '>i1' ? '|i1' : descr;
  if (!ND.has(dtype)) return undefined;
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  if (shape.length > 8 || shape.some((d) => !Number.isSafeInteger(d) || d < 0)) return undefined;
  const size = shape.reduce((a, b) => a * b, 1) * Number(dtype.slice(2));
  if (dataOffset + size !== bytes.length) return undefined;
  return { dtype: dtype as NdDtype, shape, dataOffset };
}

/** Two layouts are the same field type exactly when their keys are equal. */
export const layoutKey = (l: NpyLayout | undefined) => (l ? `${l.dtype} ${l.shape.join('x')}` : 'bytes');
