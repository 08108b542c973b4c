import { throwIfAborted } from '@binscope/core';
import { float16ToNumber, maxUnsigned } from '@binscope/core/binary';
import type { CsrChunk, ScdlIndexDType } from '@binscope/scdl';
import type { AnnDataFile, DenseMatrix, Matrix, SparseMatrix } from './anndata.js';
import { OUTPUT_SIZE, type OutputType } from './cast.js';
import { ELEMENT_SIZE, type ElementType } from './h5.js';
import { h5adError } from './h5ad-error.js';
const ROW_WINDOW = 1 << 16;

/** The cast bytes as the typed array the writer stores without re-encoding. */
export function dataView(bytes: Uint8Array, type: OutputType): CsrChunk['data'] {
  const buffer = bytes.buffer as ArrayBuffer;
  const n = bytes.byteLength / OUTPUT_SIZE[type];
  switch (type) {
    case 'f32':
      return new Float32Array(buffer, bytes.byteOffset, n);
    case 'f64':
      return new Float64Array(buffer, bytes.byteOffset, n);
    case 'u8':
      return new Uint8Array(buffer, bytes.byteOffset, n);
    case 'u16':
      return new Uint16Array(buffer, bytes.byteOffset, n);
    case 'u32':
      return new Uint32Array(buffer, bytes.byteOffset, n);
    case 'u64':
      return new BigUint64Array(buffer, bytes.byteOffset, n);
    case 'f16': {
      // The writer encodes numbers to float16 itself; half values round-trip exactly.
      const halves = new Uint16Array(buffer, bytes.byteOffset, n);
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = float16ToNumber(halves[i]);
      return out;
    }
  }
}

export const INDEX_SIZE: Record<ScdlIndexDType, number> = { uint8: 1, uint16: 2, uint32: 4, uint64: 8 };

/** Reusable buffers, one per slot, grown on demand (chunks vary in size). */
export class Scratch {
  private readonly buffers: ArrayBuffer[] = [];
  take(slot: number, bytes: number): ArrayBuffer {
    const current = this.buffers[slot];
    if (current && current.byteLength >= bytes) return current;
    const grown = new ArrayBuffer(Math.max(bytes, Math.ceil((current?.byteLength ?? 0) * 1.5)));
    this.buffers[slot] = grown;
    return grown;
  }
}

export function indexSource(
  bytes: Uint8Array,
  type: ElementType,
  n: number,
): Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float64Array {
  const buffer = bytes.buffer as ArrayBuffer;
  const at = bytes.byteOffset;
  switch (type) {
    case 'i32':
      return new Int32Array(buffer, at, n);
    case 'u32':
      return new Uint32Array(buffer, at, n);
    case 'i16':
      return new Int16Array(buffer, at, n);
    case 'u16':
      return new Uint16Array(buffer, at, n);
    case 'i8':
      return new Int8Array(buffer, at, n);
    case 'u8':
      return new Uint8Array(buffer, at, n);
    default: {
      // 64-bit indices: a valid one is < 2^32 here (columns ≤ 2^32), so its high word is 0.
      const words = new Uint32Array(buffer, at, n * 2);
      const low = new Float64Array(n);
      for (let i = 0; i < n; i++) low[i] = words[2 * i + 1] === 0 ? words[2 * i] : -1;
      return low;
    }
  }
}

/** Indices checked and narrowed per step: 256 KiB of int32, well inside L2. */
export const CHECK_BLOCK = 1 << 16;

/**
 * Column indices → col_ptr's dtype, each checked to lie in [0, cols) of its own input
 * (upstream would wrap an out-of-range index silently; a corrupt file is an error here).
 * One max pass validates and a native typed-array copy converts; the largest index goes
 * to the writer with the chunk, so it does not scan them again.
 */
export function columnIndices(
  file: string,
  matrix: Matrix,
  bytes: Uint8Array,
  type: ElementType,
  colType: ScdlIndexDType,
  firstRow: number,
  into?: ArrayBuffer,
): { indices: CsrChunk['indices']; maxIndex: number } {
  const n = bytes.byteLength / ELEMENT_SIZE[type];
  const source = indexSource(bytes, type, n);
  const bytesOut = n * INDEX_SIZE[colType];
  const buffer = into && into.byteLength >= bytesOut ? into : new ArrayBuffer(bytesOut);
  const out =
    colType === 'uint8'
      ? new Uint8Array(buffer, 0, n)
      : colType === 'uint16'
        ? new Uint16Array(buffer, 0, n)
        : colType === 'uint32'
          ? new Uint32Array(buffer, 0, n)
          : new Float64Array(buffer, 0, n);
  const cols = matrix.cols;
  let maxIndex: number;
  if ((source instanceof Int32Array || source instanceof Uint32Array) && cols <= 0x80000000) {
    // Seen as uint32, a negative int32 is ≥ 2^31 ≥ cols: one max pass checks both bounds,
    // then the typed-array copy (native, several times faster than a JS loop) converts.
    // Block by block, so the copy reads what the check has just brought into cache.
    const unsigned = new Uint32Array(source.buffer, source.byteOffset, n);
    maxIndex = -1;
    for (let start = 0; start < n && maxIndex < cols; start += CHECK_BLOCK) {
      const end = Math.min(n, start + CHECK_BLOCK);
      maxIndex = Math.max(maxIndex, maxUnsigned(unsigned.subarray(start, end)));
      if (maxIndex < cols) out.set(source.subarray(start, end), start);
    }
  } else {
    maxIndex = copyChecked(source, out, cols);
  }
  if (!(maxIndex < cols)) {
    let bad = 0;
    while (source[bad] >= 0 && source[bad] < cols) bad++;
    throw h5adError(
      'OutOfBounds',
      file,
      `${matrix.path}: column index ${source[bad]} (in rows from ${firstRow}) is outside [0, ${cols})`,
    );
  }
  // The writer is told the largest index, so it need not scan them all again.
  return { indices: out, maxIndex };
}

/** Copies indices checked to lie in [0, cols); returns the largest (−1 when none, NaN when one is out of range). */
export function copyChecked(source: ArrayLike<number>, out: { [i: number]: number }, cols: number): number {
  let max = -1;
  for (let i = 0; i < source.length; i++) {
    const v = source[i];
    if (!(v >= 0 && v < cols)) return Number.NaN;
    if (v > max) max = v;
    out[i] = v;
  }
  return max;
}

/** Raw chunk bytes (possibly views into wasm memory) in the file's element types. */
export interface RawChunk {
  indices: Uint8Array;
  indicesType: ElementType;
  data: Uint8Array;
  dataType: ElementType;
  firstRow: number;
}

export interface PreparedChunk {
  indices: CsrChunk['indices'];
  /** The largest column index, checked against the input's width. */
  maxIndex: number;
  data: CsrChunk['data'];
}

/**
 * Where streamed rows go: `prepare` turns raw bytes into owned, converted arrays
 * synchronously (while wasm views are alive), `write` hands them to the archive writer.
 */
export interface ChunkSink {
  prepare(raw: RawChunk): PreparedChunk;
  write(indptr: Float64Array, chunk: PreparedChunk): Promise<void>;
}

/** CSR: row windows of indptr, each cut into chunks of at most `chunkNnz` entries (≥ 1 row). */
export async function streamCsr(
  file: AnnDataFile,
  m: SparseMatrix,
  chunkNnz: number,
  sink: ChunkSink,
): Promise<void> {
  let previous = 0;
  for (let r = 0; r < m.rows; r += ROW_WINDOW) {
    const end = Math.min(m.rows, r + ROW_WINDOW);
    const ptr = file.integers(m.indptr, m.indptrType, r, end + 1);
    for (let i = 0; i < ptr.length; i++) {
      const v = ptr[i];
      if (!(v >= previous && v <= m.nnz)) {
        throw h5adError(
          'InvalidValue',
          file.name,
          `${m.path}/indptr[${r + i}] = ${v} after ${previous} (nnz ${m.nnz}): not a valid row pointer`,
        );
      }
      previous = v;
    }
    let i = 0;
    const rows = end - r;
    while (i < rows) {
      let j = i + 1;
      while (j < rows && ptr[j + 1] - ptr[i] <= chunkNnz) j++;
      const a = ptr[i];
      const b = ptr[j];
      const firstRow = r + i;
      const prepared = file.views(
        [
          { ds: m.indices, start: a, end: b },
          { ds: m.data, start: a, end: b },
        ],
        ([indices, data]) =>
          sink.prepare({ indices, indicesType: m.indicesType, data, dataType: m.dtype, firstRow }),
      );
      await sink.write(ptr.subarray(i, j + 1), prepared);
      i = j;
    }
  }
}

/** Dense: row blocks; zeros dropped, NaN kept (scipy.sparse.csr_matrix semantics). */
export async function streamDense(
  file: AnnDataFile,
  m: DenseMatrix,
  chunkNnz: number,
  sink: ChunkSink,
): Promise<void> {
  const size = ELEMENT_SIZE[m.dtype];
  const rowsPerChunk = Math.max(1, Math.floor(chunkNnz / Math.max(1, m.cols)));
  for (let r = 0; r < m.rows; r += rowsPerChunk) {
    const end = Math.min(m.rows, r + rowsPerChunk);
    const rows = end - r;
    const indptr = new Float64Array(rows + 1);
    const prepared = file.views([{ ds: m.dataset, start: r, end }], ([bytes]) => {
      const positions = new Uint32Array(rows * m.cols);
      let count = 0;
      for (let i = 0; i < rows; i++) {
        for (let c = 0; c < m.cols; c++) {
          if (!isZero(bytes, (i * m.cols + c) * size, m.dtype)) positions[count++] = i * m.cols + c;
        }
        indptr[i + 1] = count;
      }
      const data = new Uint8Array(count * size);
      const indices = new Uint32Array(count);
      for (let k = 0; k < count; k++) {
        const p = positions[k];
        data.set(bytes.subarray(p * size, p * size + size), k * size);
        indices[k] = p % m.cols;
      }
      return sink.prepare({
        indices: new Uint8Array(indices.buffer),
        indicesType: 'u32',
        data,
        dataType: m.dtype,
        firstRow: r,
      });
    });
    await sink.write(indptr, prepared);
  }
}

/** Whether an element's value is zero (+0 or -0 for floats: scipy drops both). */
export function isZero(bytes: Uint8Array, at: number, type: ElementType): boolean {
  const size = ELEMENT_SIZE[type];
  if (type === 'f16') return (bytes[at] | (bytes[at + 1] & 0x7f)) === 0;
  if (type === 'f32') return (bytes[at] | bytes[at + 1] | bytes[at + 2] | (bytes[at + 3] & 0x7f)) === 0;
  if (type === 'f64') {
    for (let k = 0; k < 7; k++) if (bytes[at + k] !== 0) return false;
    return (bytes[at + 7] & 0x7f) === 0;
  }
  for (let k = 0; k < size; k++) if (bytes[at + k] !== 0) return false;
  return true;
}

/**
 * CSC → CSR in bounded memory: one pass counts each row's entries, then bands of rows
 * holding at most `chunkNnz` entries are gathered column by column (so each row's columns
 * come out ascending, as scipy's tocsr gives). Each band re-reads indices and data.
 */
export async function streamCsc(
  file: AnnDataFile,
  m: SparseMatrix,
  chunkNnz: number,
  sink: ChunkSink,
  signal?: AbortSignal,
): Promise<void> {
  const colPtr = file.integers(m.indptr, m.indptrType, 0, m.cols + 1);
  for (let c = 0; c < m.cols; c++) {
    if (!(colPtr[c + 1] >= colPtr[c]))
      throw h5adError('InvalidValue', file.name, `${m.path}/indptr decreases at column ${c}`);
  }
  const counts = new Float64Array(m.rows);
  const window = Math.max(1, chunkNnz);
  for (let start = 0; start < m.nnz; start += window) {
    const end = Math.min(m.nnz, start + window);
    const rows = file.integers(m.indices, m.indicesType, start, end);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (!(r >= 0 && r < m.rows))
        throw h5adError(
          'OutOfBounds',
          file.name,
          `${m.path}/indices[${start + i}] = ${r}: no such row (${m.rows})`,
        );
      counts[r]++;
    }
  }
  const size = ELEMENT_SIZE[m.dtype];
  let r0 = 0;
  while (r0 < m.rows) {
    throwIfAborted(signal);
    let r1 = r0 + 1;
    let bandNnz = counts[r0];
    while (r1 < m.rows && bandNnz + counts[r1] <= chunkNnz) bandNnz += counts[r1++];
    const indptr = new Float64Array(r1 - r0 + 1);
    for (let r = r0; r < r1; r++) indptr[r - r0 + 1] = indptr[r - r0] + counts[r];
    const fill = indptr.slice(0, r1 - r0);
    const bandCols = new Uint32Array(bandNnz);
    const bandData = new Uint8Array(bandNnz * size);
    let column = 0;
    for (let start = 0; start < m.nnz && bandNnz > 0; start += window) {
      const end = Math.min(m.nnz, start + window);
      const rows = file.integers(m.indices, m.indicesType, start, end);
      file.views([{ ds: m.data, start, end }], ([data]) => {
        for (let i = 0; i < rows.length; i++) {
          const p = start + i;
          while (colPtr[column + 1] <= p) column++;
          const r = rows[i];
          if (r < r0 || r >= r1) continue;
          const at = fill[r - r0]++;
          bandCols[at] = column;
          bandData.set(data.subarray(i * size, i * size + size), at * size);
        }
      });
    }
    const prepared = sink.prepare({
      indices: new Uint8Array(bandCols.buffer),
      indicesType: 'u32',
      data: bandData,
      dataType: m.dtype,
      firstRow: r0,
    });
    await sink.write(indptr, prepared);
    r0 = r1;
  }
}
