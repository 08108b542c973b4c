/**
 * @binscope/core/binary: what format implementers decode and encode with. Browser-safe.
 */
export { ReadAhead, type ReadAheadOptions } from './ahead.js';
export { answersSynchronously } from './bytes.js';
export { appendAll, maxOf, minOf } from './collections.js';
export { crc32 } from './crc32.js';
export {
  Cursor,
  type CursorOptions,
  decodeUtf8,
  encodeFloat16,
  float16ToNumber,
  numberToFloat16,
  readU64,
  readU64Big,
  readU64Exact,
} from './cursor.js';
export {
  DTYPE_SIZE,
  type DType,
  maxUnsigned,
  type NumericArray,
  TYPED_ARRAY,
  toTypedArray,
  typedArrayBytes,
} from './dtype.js';
export { ForwardReadSource, type ForwardReadsOptions } from './forward.js';
export { fromHex, hexDump, toHex } from './hex.js';
export { alignUp, type ByteSink, concatBytes, MemorySink } from './sink.js';
