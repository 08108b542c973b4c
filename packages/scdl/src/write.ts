import {
  type ByteSink,
  type DirectorySink,
  MemoryDirectory,
  memoryScratch,
  type Scratch,
  type ScratchFile,
  throwIfAborted,
} from '@binscope/core';
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
import { pythonJsonStrings, writeFeatureIndex, writeNeighbors } from './write-sidecars.js';
import type {
  CsrChunk,
  CsrMatrix,
  FeatureIndices,
  ScdlDataDType,
  ScdlIndexDType,
  ScdlWriteOptions,
  ScdlWriteResult,
} from './write-types.js';

export { encodeData, pythonJsonStrings, smallestUnsignedDType };
export type * from './write-types.js';
/** Entries converted per step when narrowing a wide temp (bounded memory). */
const NARROW_CHUNK = 1 << 20;

/** Where one matrix array goes while rows arrive: a file of the archive, or a wide scratch temp. */
interface ArrayStream {
  write(bytes: Uint8Array): Promise<void> | void;
  /** The file is complete (a temp stays readable until narrowed). */
  close(): Promise<void>;
  abort(): Promise<void>;
}

/** Thrown into a file's write when the writer aborts: the sink then drops the file. */
class WriteAborted extends Error {}

/**
 * A file of `sink` held open while rows stream into it (the three matrix arrays grow side by
 * side): the sink's write runs until `close` (the file is complete) or `abort` (the sink
 * drops it, as it drops any file whose writing fails).
 */
async function openFile(sink: DirectorySink, path: string): Promise<ArrayStream> {
  let decide!: (complete: boolean) => void;
  const decided = new Promise<boolean>((resolve) => {
    decide = resolve;
  });
  let opened!: (file: ByteSink) => void;
  const ready = new Promise<ByteSink>((resolve) => {
    opened = resolve;
  });
  const done = sink.write(path, async (file) => {
    opened(file);
    if (!(await decided)) throw new WriteAborted(`${path}: writing was aborted`);
  });
  done.catch(() => {}); // awaited by close; after an abort its rejection is the expected one
  const file = await Promise.race([
    ready,
    done.then(() => {
      throw new Error(`${path}: the sink completed the file before it was written`);
    }),
  ]);
  return {
    write: (bytes) => file.write(bytes),
    close: async () => {
      decide(true);
      await done;
    },
    abort: async () => {
      decide(false);
      await done.catch(() => {});
    },
  };
}

/** A wide temp in scratch space (row_ptr as uint64, col_ptr as uint32 until their dtypes are known). */
function scratchStream(file: ScratchFile): ArrayStream {
  return {
    write: (bytes) => file.append(bytes),
    close: async () => {},
    abort: async () => file.remove(),
  };
}

/**
 * Writes an SCDL archive row chunk by row chunk, in bounded memory: `appendRows` as often
 * as needed, then `finish`. The matrix arrays stream straight to their files in `sink` (side
 * by side); when the final index dtypes are not known up front (`nnz`, `numCols`), row_ptr /
 * col_ptr stream to wide temps in `options.scratch` that `finish` narrows into the sink.
 * header.sch is written last, so an archive is complete exactly when it has one.
 */
export class ScdlWriter {
  readonly dataDType: ScdlDataDType;
  private rowCount = 0;
  private nnzCount = 0;
  private maxIndex = -1;
  private readonly declaredCols: number | undefined;
  private readonly rowPtrFinal: ScdlIndexDType | undefined;
  private readonly colPtrFinal: ScdlIndexDType | undefined;
  private streams: { data: ArrayStream; rowPtr: ArrayStream; colPtr: ArrayStream } | undefined;
  private wide: { rowPtr?: ScratchFile; colPtr?: ScratchFile } = {};
  private state: 'open' | 'finished' | 'aborted' = 'open';
  private pending: Promise<void> = Promise.resolve();
  private opening: Promise<NonNullable<ScdlWriter['streams']>> | undefined;
  /** Scratch space the writer made itself (memory), closed when it is done. */
  private ownScratch: Scratch | undefined;

  constructor(
    private readonly sink: DirectorySink,
    private readonly options: ScdlWriteOptions = {},
  ) {
    this.dataDType = options.dataDType ?? 'float32';
    if (!(this.dataDType in ITEM_SIZE))
      throw writerError(
        'InvalidValue',
        `data dtype ${String(this.dataDType)} is not one of ${Object.keys(ITEM_SIZE).join(', ')}`,
      );
    const varCols = options.var?.length ? Math.max(...options.var.map(blockLength)) : undefined;
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

  private scratch(): Scratch {
    if (this.options.scratch) return this.options.scratch;
    this.ownScratch ??= memoryScratch();
    return this.ownScratch;
  }

  private open(): Promise<NonNullable<ScdlWriter['streams']>> {
    this.opening ??= (async () => {
      const opened: ArrayStream[] = [];
      const stream = async (path: string, final: boolean, wide: 'rowPtr' | 'colPtr' | undefined) => {
        let out: ArrayStream;
        if (final || !wide) out = await openFile(this.sink, path);
        else {
          const file = this.scratch().file(`${path}.wide`);
          this.wide[wide] = file;
          out = scratchStream(file);
        }
        opened.push(out);
        return out;
      };
      try {
        const data = await stream(ARRAY_FILES.DATA, true, undefined);
        const rowPtr = await stream(ARRAY_FILES.ROWPTR, this.rowPtrFinal !== undefined, 'rowPtr');
        const colPtr = await stream(ARRAY_FILES.COLPTR, this.colPtrFinal !== undefined, 'colPtr');
        await rowPtr.write(encodeUnsigned([0], this.rowPtrFinal ?? 'uint64'));
        this.streams = { data, rowPtr, colPtr };
        return this.streams;
      } catch (error) {
        for (const out of opened) await out.abort();
        throw error;
      }
    })();
    return this.opening;
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
    this.state = 'finished';
    try {
      await streams.data.close();
      await streams.rowPtr.close();
      await streams.colPtr.close();
      return await this.writeRest(features);
    } catch (error) {
      await this.discard();
      throw error;
    } finally {
      this.ownScratch?.close();
    }
  }

  /** After the matrix arrays: the narrowed index arrays, feature indices, side files, header.sch. */
  private async writeRest(features: FeatureIndices): Promise<ScdlWriteResult> {
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
    const varCols = varBlocks?.length ? Math.max(...varBlocks.map(blockLength)) : undefined;
    const numCols = this.declaredCols ?? varCols ?? this.maxIndex + 1;
    if (this.maxIndex >= numCols) {
      throw writerError(
        'OutOfBounds',
        `column index ${this.maxIndex} is not below the column count ${numCols}`,
      );
    }
    const rowPtrDType = this.rowPtrFinal ?? smallestUnsignedDType(nnz);
    const colPtrDType = this.colPtrFinal ?? smallestUnsignedDType(Math.max(0, numCols - 1));
    if (this.wide.rowPtr) await narrow(sink, this.wide.rowPtr, 'uint64', ARRAY_FILES.ROWPTR, rowPtrDType);
    if (this.wide.colPtr) await narrow(sink, this.wide.colPtr, 'uint32', ARRAY_FILES.COLPTR, colPtrDType);

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
      files.push(...written);
      header.featureIndices.push({ name: dir, length: rows, dtype: 'string', files: written });
    }
    const neighbors = features.neighbors ?? this.options.neighbors;
    if (neighbors) files.push(...(await writeNeighbors(sink, neighbors, rows)));
    const encoder = new TextEncoder();
    await sink.write('metadata.json', encoder.encode(`{"num_rows": ${rows}}`));
    await sink.write('version.json', encoder.encode(JSON.stringify(PACKAGE_VERSION)));
    const headerBytes = serializeHeader(header);
    await sink.write(HEADER_FILE, headerBytes);
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

  /**
   * Stops writing: the files still open are dropped by the sink, the wide temps removed; the
   * sink's owner discards what was written (an atomic folder output removes its temp folder).
   */
  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    await this.pending;
    await this.discard();
    this.ownScratch?.close();
  }

  private async discard(): Promise<void> {
    const streams = await this.opening?.catch(() => undefined);
    if (streams) for (const out of [streams.data, streams.rowPtr, streams.colPtr]) await out.abort();
    this.wide.rowPtr?.remove();
    this.wide.colPtr?.remove();
  }
}

/** Writes a whole CSR matrix (and optional feature indices) to a sink in one call. */
export async function writeScdl(
  sink: DirectorySink,
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

/** Writes an archive into memory (a MemoryDirectory, to open or save): browsers and tests. */
export async function writeScdlToMemory(
  matrix: CsrMatrix,
  options: ScdlWriteOptions = {},
): Promise<{ directory: MemoryDirectory; result: ScdlWriteResult }> {
  const directory = new MemoryDirectory();
  const result = await writeScdl(directory, matrix, options);
  return { directory, result };
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

/** A wide temp rewritten into its final (smaller) dtype as a file of the archive, then removed. */
async function narrow(
  sink: DirectorySink,
  from: ScratchFile,
  fromDType: 'uint32' | 'uint64',
  to: string,
  toDType: ScdlIndexDType,
): Promise<void> {
  const fromSize = fromDType === 'uint64' ? 8 : 4;
  const count = from.size / fromSize;
  await sink.write(to, async (out) => {
    for (let start = 0; start < count; start += NARROW_CHUNK) {
      const n = Math.min(NARROW_CHUNK, count - start);
      const bytes = await from.read(start * fromSize, n * fromSize);
      if (fromDType === toDType) {
        await out.write(bytes);
        continue;
      }
      const aligned = bytes.byteOffset % fromSize === 0 ? bytes : new Uint8Array(bytes);
      const wide =
        fromDType === 'uint64'
          ? new BigUint64Array(aligned.buffer, aligned.byteOffset, n)
          : new Uint32Array(aligned.buffer, aligned.byteOffset, n);
      await out.write(encodeUnsigned(wide, toDType));
    }
  });
  from.remove();
}
