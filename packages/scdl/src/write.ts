import { type MemoryDirectory, throwIfAborted } from '@binscope/core';
import { appendAll, maxOf } from '@binscope/core/binary';
import {
  blockLength,
  checkIndices,
  checkMaxIndex,
  encodeData,
  encodeUnsigned,
  smallestUnsignedDType,
  toNumber,
  writerError,
} from './encode.js';
import {
  ARRAY_FILES,
  HEADER_FILE,
  type HeaderContent,
  ITEM_SIZE,
  PACKAGE_VERSION,
  serializeHeader,
} from './header.js';
import { MemoryArchiveSink } from './memory-sink.js';
import { pythonJsonStrings, writeFeatureIndex, writeNeighbors } from './write-sidecars.js';
import type {
  ArchiveSink,
  ArchiveStream,
  CsrChunk,
  CsrMatrix,
  FeatureIndices,
  ScdlDataDType,
  ScdlIndexDType,
  ScdlWriteOptions,
  ScdlWriteResult,
} from './write-types.js';

export { encodeData, pythonJsonStrings, smallestUnsignedDType };
export { MemoryArchiveSink };
export type * from './write-types.js';

const WIDE_ROW_PTR = `${ARRAY_FILES.ROWPTR}.wide-tmp`;
const WIDE_COL_PTR = `${ARRAY_FILES.COLPTR}.wide-tmp`;
/** Entries converted per step when narrowing a wide temp (bounded memory). */
const NARROW_CHUNK = 1 << 20;

/**
 * Writes an SCDL archive row chunk by row chunk, in bounded memory: `appendRows` as often
 * as needed, then `finish`. The matrix arrays stream straight to their files; when the
 * final index dtypes are not known up front (`nnz`, `numCols`), row_ptr / col_ptr stream to
 * wide temps that `finish` narrows.
 */
export class ScdlWriter {
  readonly dataDType: ScdlDataDType;
  private rowCount = 0;
  private nnzCount = 0;
  private maxIndex = -1;
  private readonly declaredCols: number | undefined;
  private readonly rowPtrFinal: ScdlIndexDType | undefined;
  private readonly colPtrFinal: ScdlIndexDType | undefined;
  private streams: { data: ArchiveStream; rowPtr: ArchiveStream; colPtr: ArchiveStream } | undefined;
  private state: 'open' | 'finished' | 'aborted' = 'open';
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: ArchiveSink,
    private readonly options: ScdlWriteOptions = {},
  ) {
    this.dataDType = options.dataDType ?? 'float32';
    if (!(this.dataDType in ITEM_SIZE))
      throw writerError(
        'InvalidValue',
        `data dtype ${String(this.dataDType)} is not one of ${Object.keys(ITEM_SIZE).join(', ')}`,
      );
    const varCols = options.var?.length ? maxOf(options.var, blockLength) : undefined;
    this.declaredCols = options.numCols ?? varCols;
    if (
      this.declaredCols !== undefined &&
      !(Number.isSafeInteger(this.declaredCols) && this.declaredCols >= 0)
    ) {
      throw writerError('InvalidValue', `numCols ${this.declaredCols} is not a count`);
    }
    if (options.nnz !== undefined && !(Number.isSafeInteger(options.nnz) && options.nnz >= 0)) {
      throw writerError('InvalidValue', `nnz ${options.nnz} is not a count`);
    }
    this.rowPtrFinal = options.nnz === undefined ? undefined : smallestUnsignedDType(options.nnz);
    this.colPtrFinal =
      this.declaredCols === undefined ? undefined : smallestUnsignedDType(Math.max(0, this.declaredCols - 1));
  }

  get rows(): number {
    return this.rowCount;
  }
  get nnz(): number {
    return this.nnzCount;
  }

  private async open(): Promise<NonNullable<ScdlWriter['streams']>> {
    if (this.streams) return this.streams;
    const data = await this.sink.createStream(ARRAY_FILES.DATA);
    const rowPtr = await this.sink.createStream(this.rowPtrFinal ? ARRAY_FILES.ROWPTR : WIDE_ROW_PTR);
    const colPtr = await this.sink.createStream(this.colPtrFinal ? ARRAY_FILES.COLPTR : WIDE_COL_PTR);
    this.streams = { data, rowPtr, colPtr };
    await rowPtr.write(encodeUnsigned([0], this.rowPtrFinal ?? 'uint64'));
    return this.streams;
  }

  /** Appends rows (calls are serialised, so it is safe not to await each one before the next). */
  appendRows(chunk: CsrChunk): Promise<void> {
    const run = this.pending.then(() => this.append(chunk));
    this.pending = run.catch(() => {});
    return run;
  }

  private async append(chunk: CsrChunk): Promise<void> {
    if (this.state !== 'open')
      throw writerError('InvalidValue', `appendRows after ${this.state === 'finished' ? 'finish' : 'abort'}`);
    throwIfAborted(this.options.signal);
    const { indptr, indices, data } = chunk;
    const rows = indptr.length - 1;
    if (rows < 0) throw writerError('CountMismatch', 'indptr must have at least one entry (rows + 1)');
    const base = toNumber(indptr[0]);
    const rowPtr = new Float64Array(rows);
    let prev = base;
    for (let r = 0; r < rows; r++) {
      const v = toNumber(indptr[r + 1]);
      if (!(v >= prev))
        throw writerError('InvalidValue', `indptr decreases at row ${this.rowCount + r} (${prev} → ${v})`);
      rowPtr[r] = this.nnzCount + (v - base);
      prev = v;
    }
    const chunkNnz = prev - base;
    if (indices.length !== chunkNnz || data.length !== chunkNnz) {
      throw writerError(
        'CountMismatch',
        `indptr says ${chunkNnz} non-zeros but indices has ${indices.length} and data ${data.length}`,
      );
    }
    const total = this.nnzCount + chunkNnz;
    if (this.options.nnz !== undefined && total > this.options.nnz) {
      throw writerError('CountMismatch', `more non-zeros than the declared nnz ${this.options.nnz}`);
    }
    const maxIndex =
      chunk.maxIndex === undefined
        ? checkIndices(indices, this.declaredCols, this.rowCount)
        : checkMaxIndex(chunk.maxIndex, chunkNnz, this.declaredCols, this.rowCount);
    if (maxIndex > this.maxIndex) this.maxIndex = maxIndex;
    if (this.colPtrFinal === undefined && maxIndex > 0xffffffff) {
      throw writerError('OutOfBounds', `column index ${maxIndex} needs numCols to be given up front`);
    }
    const streams = await this.open();
    if (chunkNnz > 0) {
      await streams.data.write(encodeData(data, this.dataDType));
      await streams.colPtr.write(encodeUnsigned(indices, this.colPtrFinal ?? 'uint32'));
    }
    if (rows > 0) await streams.rowPtr.write(encodeUnsigned(rowPtr, this.rowPtrFinal ?? 'uint64'));
    this.rowCount += rows;
    this.nnzCount = total;
    this.options.onProgress?.({ phase: 'rows', done: this.rowCount, unit: 'items' });
  }

  /** Dense rows (each row an array of numCols values); zeros are dropped, NaN kept (as scipy does). */
  appendDenseRows(rows: ArrayLike<ArrayLike<number>>): Promise<void> {
    return this.appendRows(denseToCsr(rows));
  }

  /**
   * Writes row_ptr/col_ptr in their final dtypes, the feature indices, metadata.json,
   * version.json and header.sch. Blocks given here replace those given to the constructor.
   */
  async finish(features: FeatureIndices = {}): Promise<ScdlWriteResult> {
    await this.pending;
    if (this.state !== 'open')
      throw writerError('InvalidValue', `finish after ${this.state === 'finished' ? 'finish' : 'abort'}`);
    throwIfAborted(this.options.signal);
    const streams = await this.open();
    await streams.data.close();
    await streams.rowPtr.close();
    await streams.colPtr.close();
    this.state = 'finished';
    const sink = this.sink;
    const nnz = this.nnzCount;
    const rows = this.rowCount;
    if (this.options.nnz !== undefined && nnz !== this.options.nnz) {
      throw writerError(
        'CountMismatch',
        `declared nnz ${this.options.nnz} but ${nnz} non-zeros were written`,
      );
    }
    const varBlocks = features.var ?? this.options.var;
    const obsBlocks = features.obs ?? this.options.obs;
    const varCols = varBlocks?.length ? maxOf(varBlocks, blockLength) : undefined;
    const numCols = this.declaredCols ?? varCols ?? this.maxIndex + 1;
    if (this.maxIndex >= numCols) {
      throw writerError(
        'OutOfBounds',
        `column index ${this.maxIndex} is not below the column count ${numCols}`,
      );
    }
    const rowPtrDType = this.rowPtrFinal ?? smallestUnsignedDType(nnz);
    const colPtrDType = this.colPtrFinal ?? smallestUnsignedDType(Math.max(0, numCols - 1));
    if (!this.rowPtrFinal)
      await narrow(sink, WIDE_ROW_PTR, 'uint64', ARRAY_FILES.ROWPTR, rowPtrDType, rows + 1);
    if (!this.colPtrFinal) await narrow(sink, WIDE_COL_PTR, 'uint32', ARRAY_FILES.COLPTR, colPtrDType, nnz);

    const files = [ARRAY_FILES.DATA, ARRAY_FILES.ROWPTR, ARRAY_FILES.COLPTR];
    const header: HeaderContent = {
      arrays: [
        { name: 'DATA', length: nnz, dtype: this.dataDType },
        { name: 'ROWPTR', length: rows + 1, dtype: rowPtrDType },
        { name: 'COLPTR', length: nnz, dtype: colPtrDType },
      ],
      featureIndices: [],
    };
    for (const [dir, blocks] of [
      ['var_features', varBlocks],
      ['obs_features', obsBlocks],
    ] as const) {
      if (!blocks) continue;
      const written = await writeFeatureIndex(sink, dir, blocks, rows, dir === 'obs_features');
      appendAll(files, written);
      header.featureIndices.push({ name: dir, length: rows, dtype: 'string', files: written });
    }
    const neighbors = features.neighbors ?? this.options.neighbors;
    if (neighbors) files.push(...(await writeNeighbors(sink, neighbors, rows)));
    const encoder = new TextEncoder();
    await sink.writeFile('metadata.json', encoder.encode(`{"num_rows": ${rows}}`));
    await sink.writeFile('version.json', encoder.encode(JSON.stringify(PACKAGE_VERSION)));
    const headerBytes = serializeHeader(header);
    await sink.writeFile(HEADER_FILE, headerBytes);
    files.push('metadata.json', 'version.json', HEADER_FILE);
    return {
      rows,
      nnz,
      numCols,
      dataDType: this.dataDType,
      rowPtrDType,
      colPtrDType,
      files: files.sort(),
      header: headerBytes,
    };
  }

  /** Stops writing; the sink's owner discards what was written (the Node writer deletes its temp folder). */
  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    await this.pending;
    if (this.streams) {
      await this.streams.data.close().catch(() => {});
      await this.streams.rowPtr.close().catch(() => {});
      await this.streams.colPtr.close().catch(() => {});
    }
  }
}

/** Writes a whole CSR matrix (and optional feature indices) to a sink in one call. */
export async function writeScdl(
  sink: ArchiveSink,
  matrix: CsrMatrix,
  options: ScdlWriteOptions = {},
): Promise<ScdlWriteResult> {
  const nnz = toNumber(matrix.indptr[matrix.indptr.length - 1] ?? 0) - toNumber(matrix.indptr[0] ?? 0);
  const writer = new ScdlWriter(sink, {
    ...options,
    numCols: options.numCols ?? matrix.numCols,
    nnz: options.nnz ?? (matrix.indptr.length > 0 ? nnz : undefined),
  });
  try {
    if (matrix.indptr.length > 0) await writer.appendRows(matrix);
    return await writer.finish();
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/** Writes an archive into memory: browsers (then zip or save it) and tests. */
export async function writeScdlToMemory(
  matrix: CsrMatrix,
  options: ScdlWriteOptions = {},
): Promise<{ directory: MemoryDirectory; sink: MemoryArchiveSink; result: ScdlWriteResult }> {
  const sink = new MemoryArchiveSink();
  const result = await writeScdl(sink, matrix, options);
  return { directory: sink.directory(), sink, result };
}

/** Dense rows → CSR (zeros dropped, NaN kept, as scipy.sparse.csr_matrix does). */
export function denseToCsr(rows: ArrayLike<ArrayLike<number>>, numCols?: number): CsrMatrix {
  const width = numCols ?? (rows.length ? rows[0].length : 0);
  const indptr = new Float64Array(rows.length + 1);
  const indices: number[] = [];
  const data: number[] = [];
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    if (row.length !== width)
      throw writerError('CountMismatch', `dense row ${r} has ${row.length} values, expected ${width}`);
    for (let c = 0; c < row.length; c++) {
      const v = row[c];
      if (v !== 0) {
        indices.push(c);
        data.push(v);
      }
    }
    indptr[r + 1] = indices.length;
  }
  return { indptr, indices, data: Float64Array.from(data), numCols: width };
}

async function narrow(
  sink: ArchiveSink,
  from: string,
  fromDType: 'uint32' | 'uint64',
  to: string,
  toDType: ScdlIndexDType,
  count: number,
): Promise<void> {
  const out = await sink.createStream(to);
  const fromSize = fromDType === 'uint64' ? 8 : 4;
  for (let start = 0; start < count; start += NARROW_CHUNK) {
    const n = Math.min(NARROW_CHUNK, count - start);
    const bytes = await sink.readBack(from, start * fromSize, n * fromSize);
    if (fromDType === toDType) {
      await out.write(bytes);
      continue;
    }
    const aligned = bytes.byteOffset % fromSize === 0 ? bytes : new Uint8Array(bytes);
    const wide =
      fromDType === 'uint64'
        ? new BigUint64Array(aligned.buffer, aligned.byteOffset, n)
        : new Uint32Array(aligned.buffer, aligned.byteOffset, n);
    await out.write(encodeUnsigned(wide instanceof BigUint64Array ? wide : wide, toDType));
  }
  await out.close();
  await sink.remove(from);
}
