import { type ProgressCallback, throwIfAborted } from '@binscope/core';
import {
  type CsrChunk,
  type FeatureBlock,
  type FeatureIndices,
  type ScdlWriteOptions,
  type ScdlIndexDType,
  type ScdlWriteResult,
  smallestUnsignedDType,
} from '@binscope/scdl';
import type { AnnDataFile, Matrix } from './anndata.js';
import {
  castElements,
  countChanged,
  DATA_DTYPES,
  type DataDtype,
  OUTPUT_SIZE,
  OUTPUT_TYPE,
  type OutputType,
} from './cast.js';
import { ELEMENT_SIZE } from './h5.js';
import { CastGuard } from './cast-guard.js';
import { h5adError } from './h5ad-error.js';
import { appendObsBlock, appendVarBlock, featureColumns } from './features.js';
import {
  type ChunkSink,
  columnIndices,
  dataView,
  INDEX_SIZE,
  Scratch,
  streamCsc,
  streamCsr,
  streamDense,
} from './matrix-stream.js';
import { type GraphPart, joinGraphs, readNeighborPart } from './neighbors.js';

/** Upstream's defaults (bionemo-scdl SingleCellMemMapDataset). */
export const DEFAULT_NEIGHBOR_KEY = 'next_cell_ids';
const VAR_INDEX_COLUMN = 'var_feature_id';
const OBS_INDEX_COLUMN = 'obs_feature_id';
/** Non-zeros per chunk when streaming: bounds memory (≈ 16 bytes per entry in flight). */
export const DEFAULT_CHUNK_NNZ = 1 << 21;

export interface ConvertOptions {
  /** Element type of data.npy (C10). Default float32; values are cast as numpy's astype does. */
  dataDtype?: DataDtype;
  /** Read `X` instead of `raw.X` (C10). `X` is also used, with a warning, when a file has no `raw`. */
  useX?: boolean;
  /**
   * Write neighbor files from `obsp[key]` (C13): a key, or `true` for upstream's default
   * key `next_cell_ids`. A file without the key is skipped with a warning, as upstream does.
   */
  neighbors?: string | boolean;
  onProgress?: ProgressCallback;
  /** Non-fatal findings: a missing raw or neighbor key, values the cast changed. */
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
  /** Largest number of non-zeros read and cast at once (memory bound). */
  chunkNnz?: number;
  /** Tolerance for the "cast changed values" warning (upstream's data_dtype_tolerance). */
  tolerance?: number;
  /**
   * Cast values `dataDtype` cannot hold (NaN, ±inf, fractions or out-of-range numbers for an
   * unsigned dtype, overflow to infinity for float16/32) as numpy does, instead of refusing
   * them with `InvalidValue` (C10, the default).
   */
  lossyCast?: boolean;
}

/**
 * One input: the label its feature blocks carry (labels.json lists the paths as given) and
 * how to open it. Inputs are opened one at a time (twice: to plan, then to stream), so a
 * folder of thousands of files never holds thousands of handles.
 */
export interface ConversionInput {
  label: string;
  open(): AnnDataFile | Promise<AnnDataFile>;
}

export interface ConversionResult extends ScdlWriteResult {
  /** Per input: its label, the matrix used, rows and stored entries. */
  inputs: {
    label: string;
    matrix: string;
    layout: 'csr' | 'csc' | 'dense';
    rows: number;
    cols: number;
    nnz: number;
  }[];
  warnings: string[];
}

/** What `convertAnnData` writes into: `ScdlWriter` (any sink) or the Node atomic archive writer. */
export interface ArchiveWriterLike {
  appendRows(chunk: CsrChunk): Promise<void>;
  finish(features?: FeatureIndices): Promise<ScdlWriteResult>;
  abort(): Promise<void>;
  /**
   * True when a chunk's arrays are fully consumed (written or copied) once `appendRows`
   * resolves, so the converter may reuse their buffers for the next chunk (fewer
   * allocations and page faults). Writers over a DirectorySink qualify: a ByteSink is done
   * with the bytes of a write once it resolves.
   */
  readonly reusesChunkBuffers?: boolean;
}

export type WriterFactory = (options: ScdlWriteOptions) => Promise<ArchiveWriterLike> | ArchiveWriterLike;

export function checkDataDtype(dtype: string): DataDtype {
  if (!(DATA_DTYPES as readonly string[]).includes(dtype)) {
    throw h5adError(
      'InvalidValue',
      undefined,
      `data dtype "${dtype}" is not one of ${DATA_DTYPES.join(', ')}`,
    );
  }
  return dtype as DataDtype;
}

interface PlannedInput {
  input: ConversionInput;
  rows: number;
  cols: number;
  /** Stored entries (sparse inputs), undefined for dense ones. */
  nnz: number | undefined;
}

async function withFile<T>(input: ConversionInput, use: (file: AnnDataFile) => Promise<T> | T): Promise<T> {
  const file = await input.open();
  try {
    return await use(file);
  } finally {
    file.close();
  }
}

/**
 * Converts AnnData inputs to one SCDL archive, as upstream bionemo-scdl 0.1.3 does
 * (C10–C13): rows concatenated in input order, the matrix streamed in row chunks (bounded
 * memory), feature blocks merged like upstream's feature indices.
 */
export async function convertAnnData(
  inputs: readonly ConversionInput[],
  createWriter: WriterFactory,
  options: ConvertOptions = {},
): Promise<ConversionResult> {
  if (inputs.length === 0) throw h5adError('InvalidValue', undefined, 'no .h5ad input to convert');
  const dataDtype = checkDataDtype(options.dataDtype ?? 'float32');
  const outType = OUTPUT_TYPE[dataDtype];
  const chunkNnz = Math.max(1, Math.floor(options.chunkNnz ?? DEFAULT_CHUNK_NNZ));
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    options.onWarning?.(message);
  };

  const { planned, varBlocks, obsBlocks } = await planInputs(inputs, options, warn);
  const totalRows = planned.reduce((n, p) => n + p.rows, 0);
  const numCols = planned.reduce((n, p) => Math.max(n, p.cols), 0);
  const allSparse = planned.every((p) => p.nnz !== undefined);
  const nnz = allSparse ? planned.reduce((n, p) => n + (p.nnz ?? 0), 0) : undefined;
  const neighborKey = options.neighbors === true ? DEFAULT_NEIGHBOR_KEY : options.neighbors || undefined;
  const graphs: GraphPart[] = [];
  let neighborsMissing = false;
  const colType = smallestUnsignedDType(Math.max(0, numCols - 1));

  const writer = await createWriter({ dataDType: dataDtype, numCols, nnz, signal: options.signal });
  const scratch = writer.reusesChunkBuffers ? new Scratch() : undefined;
  let done = 0;
  const context: WriteContext = {
    options,
    dataDtype,
    outType,
    colType,
    chunkNnz,
    scratch,
    warn,
    rowsWritten: (rows) => {
      done += rows;
      options.onProgress?.({ phase: 'matrix', done, total: totalRows, unit: 'items' });
    },
  };
  try {
    const summaries: ConversionResult['inputs'] = [];
    for (const plan of planned) {
      const { label } = plan.input;
      await withFile(plan.input, async (file) => {
        const summary = await writeInput(file, plan, label, writer, context);
        summaries.push(summary);
        if (neighborKey !== undefined && !neighborsMissing) {
          const part = readNeighborPart(file, label, summary.rows, neighborKey, warn);
          if (part) graphs.push(part);
          else neighborsMissing = true;
        }
      });
    }
    const neighbors = neighborKey === undefined || neighborsMissing ? undefined : joinGraphs(graphs);
    options.onProgress?.({
      phase: 'writing feature indices',
      done: totalRows,
      total: totalRows,
      unit: 'items',
    });
    const result = await writer.finish({ var: varBlocks, obs: obsBlocks, neighbors });
    return { ...result, inputs: summaries, warnings };
  } catch (cause) {
    await writer.abort();
    throw cause;
  }
}

/** Each input's matrix shape and its tables, read before anything is written (fail early). */
async function planInputs(
  inputs: readonly ConversionInput[],
  options: ConvertOptions,
  warn: (message: string) => void,
): Promise<{ planned: PlannedInput[]; varBlocks: FeatureBlock[]; obsBlocks: FeatureBlock[] }> {
  const planned: PlannedInput[] = [];
  const varBlocks: FeatureBlock[] = [];
  const obsBlocks: FeatureBlock[] = [];
  for (const input of inputs) {
    throwIfAborted(options.signal);
    const { label } = input;
    options.onProgress?.({
      phase: `reading tables of ${label}`,
      done: planned.length,
      total: inputs.length,
      unit: 'items',
    });
    planned.push(
      await withFile(input, (file) => {
        const plan = planFile(file, label, options, warn);
        appendVarBlock(varBlocks, featureColumns(plan.varFrame, VAR_INDEX_COLUMN), plan.rows, label);
        appendObsBlock(obsBlocks, featureColumns(plan.obsFrame, OBS_INDEX_COLUMN), plan.obsFrame.rows, label);
        return { input, rows: plan.rows, cols: plan.cols, nnz: plan.nnz };
      }),
    );
  }

  return { planned, varBlocks, obsBlocks };
}

/**
 * One input's plan, what the converter refuses before writing anything: the matrix (raw.X,
 * else X with a warning; X with `useX`), the obs and var dataframes decoded, obs as long as
 * the matrix (var of another length only warns, as upstream stores it anyway).
 */
export function planFile(
  file: AnnDataFile,
  label: string,
  options: ConvertOptions,
  warn: (message: string) => void,
) {
  const matrix = pickMatrix(file, label, options.useX === true, warn);
  const varFrame = file.dataframe('var');
  const obsFrame = file.dataframe('obs');
  if (obsFrame.rows !== matrix.rows) {
    throw h5adError(
      'CountMismatch',
      file.name,
      `obs has ${obsFrame.rows} rows but ${matrix.path} has ${matrix.rows}`,
    );
  }
  if (varFrame.rows !== matrix.cols) {
    warn(
      `${label}: var has ${varFrame.rows} rows but ${matrix.path} has ${matrix.cols} columns; var is stored as upstream does`,
    );
  }
  return {
    matrix,
    varFrame,
    obsFrame,
    rows: matrix.rows,
    cols: matrix.cols,
    nnz: matrix.kind === 'sparse' ? matrix.nnz : undefined,
  };
}

/**
 * Everything a conversion of this one file checks, without writing: the plan (feature tables
 * included), then the matrix streamed through the same index and cast checks. What
 * `validate` reports for a `.h5ad` (with `deep`; without it, only the plan).
 */
export async function checkFile(
  file: AnnDataFile,
  label: string,
  options: ConvertOptions,
  warn: (message: string) => void,
  deep: boolean,
): Promise<void> {
  const plan = planFile(file, label, options, warn);
  featureColumns(plan.varFrame, VAR_INDEX_COLUMN);
  featureColumns(plan.obsFrame, OBS_INDEX_COLUMN);
  if (!deep) return;
  const dataDtype = checkDataDtype(options.dataDtype ?? 'float32');
  const discard: ArchiveWriterLike = {
    appendRows: async () => {},
    finish: async () => {
      throw new Error('a check writes nothing');
    },
    abort: async () => {},
    reusesChunkBuffers: true,
  };
  const context: WriteContext = {
    options,
    dataDtype,
    outType: OUTPUT_TYPE[dataDtype],
    colType: smallestUnsignedDType(Math.max(0, plan.cols - 1)),
    chunkNnz: Math.max(1, Math.floor(options.chunkNnz ?? DEFAULT_CHUNK_NNZ)),
    scratch: new Scratch(),
    warn,
    rowsWritten: () => {},
  };
  await writeInput(file, { input: { label, open: () => file }, ...plan }, label, discard, context);
}

/** What writing one input needs from the conversion around it. */
interface WriteContext {
  options: ConvertOptions;
  dataDtype: DataDtype;
  outType: OutputType;
  colType: ScdlIndexDType;
  chunkNnz: number;
  scratch: Scratch | undefined;
  warn: (message: string) => void;
  rowsWritten: (rows: number) => void;
}

/** Streams one input's matrix into the writer: indices checked and narrowed, values cast. */
async function writeInput(
  file: AnnDataFile,
  plan: PlannedInput,
  label: string,
  writer: ArchiveWriterLike,
  context: WriteContext,
): Promise<ConversionResult['inputs'][number]> {
  const { options, dataDtype, outType, colType, chunkNnz, scratch, warn } = context;
  const matrix = pickMatrix(file, label, options.useX === true, () => {});
  if (matrix.rows !== plan.rows || matrix.cols !== plan.cols) {
    throw h5adError('CountMismatch', file.name, `${matrix.path} changed shape while converting`);
  }
  let changed = 0;
  let inputNnz = 0;
  const guard = options.lossyCast
    ? undefined
    : new CastGuard(file.name, label === file.name ? matrix.path : `${label}: ${matrix.path}`, dataDtype);
  const sink: ChunkSink = {
    prepare: (raw) => {
      const n = raw.indices.byteLength / ELEMENT_SIZE[raw.indicesType];
      const { indices, maxIndex } = columnIndices(
        file.name,
        matrix,
        raw.indices,
        raw.indicesType,
        colType,
        raw.firstRow,
        scratch?.take(0, n * INDEX_SIZE[colType]),
      );
      const into = scratch?.take(1, n * OUTPUT_SIZE[outType]);
      const tolerance = options.tolerance ?? 1e-8;
      let cast: Uint8Array;
      if (guard) {
        const guarded = guard.castChunk(raw.data, raw.dataType, raw.firstRow, tolerance, into);
        cast = guarded.cast;
        changed += guarded.changed;
      } else {
        cast = castElements(raw.data, raw.dataType, outType, into);
        if (raw.dataType !== outType)
          changed += countChanged(raw.data, raw.dataType, cast, outType, tolerance);
      }
      return { indices, maxIndex, data: dataView(cast, outType) };
    },
    write: async (indptr, chunk) => {
      guard?.check(indptr, chunk.indices);
      throwIfAborted(options.signal);
      await writer.appendRows({
        indptr,
        indices: chunk.indices,
        data: chunk.data,
        maxIndex: chunk.maxIndex,
      });
      context.rowsWritten(indptr.length - 1);
      inputNnz += indptr[indptr.length - 1] - indptr[0];
    },
  };
  if (matrix.kind === 'dense') await streamDense(file, matrix, chunkNnz, sink);
  else if (matrix.layout === 'csr') await streamCsr(file, matrix, chunkNnz, sink);
  else await streamCsc(file, matrix, chunkNnz, sink, options.signal);
  if (changed > 0)
    warn(
      `${label}: the cast to ${dataDtype} changed ${changed} value(s) by more than ${options.tolerance ?? 1e-8}`,
    );
  return {
    label,
    matrix: matrix.path,
    layout: matrix.kind === 'dense' ? 'dense' : matrix.layout,
    rows: matrix.rows,
    cols: matrix.cols,
    nnz: inputNnz,
  };
}

/** C10: raw.X unless X is asked for; X (with a warning) when there is no raw. */
function pickMatrix(file: AnnDataFile, label: string, useX: boolean, warn: (m: string) => void): Matrix {
  if (!useX) {
    const raw = file.matrix('raw.X');
    if (raw) return raw;
    const x = file.matrix('X');
    if (x) {
      warn(`${label}: no raw.X, converting X`);
      return x;
    }
  } else {
    const x = file.matrix('X');
    if (x) return x;
  }
  throw h5adError('InvalidValue', file.name, `${label} has no ${useX ? 'X' : 'raw.X or X'} matrix`);
}
