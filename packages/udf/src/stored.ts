import type { ErrorFactory, NumericArray } from '@binscope/core';
import { compressScheme, decompress } from './compress.js';
import { shapeText } from './shape-rules.js';
import type { Prim } from './types.js';

/** What decoding a stored table needs of its descriptor. */
export interface StoredTable {
  name: string;
  prim: Prim;
  dims: number;
  hint: import('./types.js').Hint;
  shape: number[];
  elementCount: number;
  compressInfo: number;
  dataOffset: number;
}

/**
 * A compressed table's data (U12): its stream decoded to exactly the values its shape declares
 * (declared × ghost axes). The descriptor check already refused schemes the crate does not
 * define and primitives a scheme does not decode, so only the stream can be wrong here.
 */
export function decodeStored(info: StoredTable, stored: Uint8Array, fail: ErrorFactory): Uint8Array {
  const scheme = compressScheme(info.compressInfo);
  const label = `table ${JSON.stringify(info.name)}`;
  if (!scheme) {
    throw fail(
      'UnsupportedFeature',
      `${label}: compress_info ${info.compressInfo} is not a scheme of the udf crate`,
      info.dataOffset,
    );
  }
  const decoded = decompress(scheme, stored, info.elementCount);
  if (decoded.ok) return decoded.bytes;
  const shape = shapeText(info.hint, info.dims, info.shape);
  throw fail(decoded.code, `${label}: ${decoded.message} (${shape})`, info.dataOffset + decoded.at);
}

/** Elements [start, end) of decoded values, clamped as readValues clamps. */
export function sliceValues(values: NumericArray, start: number, end: number): NumericArray {
  const from = Math.min(Math.max(0, Math.floor(start)), values.length);
  const to = Math.min(Math.max(from, Math.floor(end)), values.length);
  return values.subarray(from, to) as NumericArray;
}
