import {
  type ByteSource,
  type DirectorySource,
  type ErrorCode,
  type Finding,
  type FormatError,
  isBinscopeError,
  formatErrors,
  Phase,
  type ProblemList,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { FeatureIndex, openRequired } from './features.js';
import {
  arrayFile,
  CORE_HEADER_SIZE,
  FORMAT,
  HEADER_FILE,
  ITEM_SIZE,
  isNumericDType,
  isUnsignedDType,
  readHeader,
  type ScdlHeader,
  type ScdlNumericDType,
} from './header.js';
import { RawArray, Slab } from './raw-array.js';

const fail = formatErrors(FORMAT);

/** header.sch is tiny; a larger one is refused before it is read whole. */
const MAX_HEADER_BYTES = 16 * 1024 * 1024;
const MAX_SIDECAR_JSON = 16 * 1024 * 1024;

export const MATRIX_ARRAYS = ['DATA', 'ROWPTR', 'COLPTR'] as const;
export type MatrixArrayName = (typeof MATRIX_ARRAYS)[number];

/**
 * What one parse of an archive got, as far as it got: a strict read only returns it whole;
 * validate and inspect get it partial, with the problems in their ProblemList.
 */
export interface ArchiveParse {
  directory: DirectorySource;
  /** Every file of the archive, relative paths, sorted. */
  files: readonly string[];
  /** Size of header.sch, 0 when it is missing. */
  headerSize: number;
  /** The core header bytes of header.sch (shown even when they are wrong). */
  headerHead: Uint8Array;
  /** The header fields decoded (all of them when `headerComplete`). */
  header: ScdlHeader | undefined;
  headerComplete: boolean;
  /** The matrix array files whose descriptors are usable; their sizes may still be wrong. */
  arrays: Partial<Record<MatrixArrayName, RawArray>>;
  /** Whether the matrix arrays passed every check a strict read makes (sizes, counts, row_ptr ends). */
  matrixValid: boolean;
  varIndex: FeatureIndex | undefined;
  obsIndex: FeatureIndex | undefined;
  /** The warnings recorded so far (the parse's own list, so later ones show too): the reader's `warnings`. */
  warnings: readonly Finding[];
}

/**
 * The one structural parse of an archive, for all three modes (A2 order: header → array sizes
 * (C5) → row_ptr ends → feature indices (C6) → metadata.json). A strict read stops at the first
 * error; validate and inspect go on wherever the archive still makes sense.
 */
export async function parseArchive(
  directory: DirectorySource,
  problems: ProblemList,
  options: ReadOptions = {},
): Promise<ArchiveParse> {
  const state: ArchiveParse = {
    directory,
    files: await directory.list(),
    headerSize: 0,
    headerHead: new Uint8Array(0),
    header: undefined,
    headerComplete: false,
    arrays: {},
    matrixValid: false,
    varIndex: undefined,
    obsIndex: undefined,
    warnings: problems.warnings,
  };
  try {
    await parseHeaderFile(state, problems, options);
  } catch (error) {
    // A strict read stops inside the header at its first error, already recorded.
    if (problems.mode === 'read' && problems.hasErrors()) throw error;
    // Nothing comes before header.sch: a missing or unreadable one ranks first.
    problems.capture(error, { phase: Phase.magic });
  }
  problems.checkpoint();
  const header = state.header;
  if (!header || !state.headerComplete) return state;
  for (const w of header.warnings) problems.warn('Header', w, { file: HEADER_FILE });

  state.matrixValid = await openMatrixArrays(state, header, problems, options);
  problems.checkpoint();
  await loadFeatureIndices(state, header, problems, options);
  problems.checkpoint();
  if (state.matrixValid) await checkMetadataJson(state, problems, options);
  return state;
}

async function parseHeaderFile(
  state: ArchiveParse,
  problems: ProblemList,
  options: ReadOptions,
): Promise<void> {
  // Writers put header.sch last (an S3 prefix, a folder copied file by file): the other files
  // without it are an archive whose writing never finished, not a damaged one.
  if (state.files.length > 0 && !state.files.includes(HEADER_FILE))
    throw fail(
      'Truncated',
      `incomplete archive (no ${HEADER_FILE}): missing file ${HEADER_FILE}, which writers write last; ${state.files.length} other file${state.files.length === 1 ? ' is' : 's are'} there`,
      0,
      HEADER_FILE,
    );
  const source = await openRequired(state.directory, HEADER_FILE, options);
  state.headerSize = source.size;
  state.headerHead = await readExact(source, 0, Math.min(source.size, CORE_HEADER_SIZE), options);
  if (source.size > MAX_HEADER_BYTES) {
    problems.error('InvalidValue', `header.sch is ${source.size} bytes, more than any header needs`, {
      file: HEADER_FILE,
      offset: 0,
      phase: Phase.header,
    });
    return;
  }
  const bytes = await readExact(source, 0, source.size, { ...options, format: FORMAT, what: HEADER_FILE });
  const { header, complete } = readHeader(new Uint8Array(bytes), problems);
  state.header = header;
  state.headerComplete = complete;
}

/**
 * Finds DATA/ROWPTR/COLPTR, checks their dtypes and each file's size against length × itemsize
 * (C5), the counts between them and row_ptr's two ends. True when all of that holds.
 */
async function openMatrixArrays(
  state: ArchiveParse,
  header: ScdlHeader,
  problems: ProblemList,
  options: ReadOptions,
): Promise<boolean> {
  const errorsBefore = problems.errors.length;
  for (const name of MATRIX_ARRAYS) {
    const d = header.arrays.find((a) => a.name === name);
    if (!d) {
      problems.error('InvalidValue', `header.sch has no ${name} array`, {
        file: HEADER_FILE,
        offset: 16,
        phase: Phase.header,
      });
    } else if (!isNumericDType(d.dtype)) {
      problems.error(
        'UnsupportedFeature',
        `${name} has dtype ${d.dtype}; only numeric arrays are supported`,
        {
          file: HEADER_FILE,
          offset: d.fields.dtype.offset,
          phase: Phase.header,
        },
      );
    } else if (name !== 'DATA' && !isUnsignedDType(d.dtype)) {
      problems.error('InvalidValue', `${name} has dtype ${d.dtype}; index arrays are unsigned integers`, {
        file: HEADER_FILE,
        offset: d.fields.dtype.offset,
        phase: Phase.header,
      });
    }
  }
  if (problems.errors.length > errorsBefore) return false;
  const slab = new Slab();
  for (const d of header.arrays) {
    if (!(MATRIX_ARRAYS as readonly string[]).includes(d.name)) continue;
    const file = arrayFile(d.name);
    const source = await problems.attempt(() => openRequired(state.directory, file, options), {
      phase: Phase.bounds,
    });
    if (!source) continue;
    const dtype = d.dtype as ScdlNumericDType;
    const sizeError = arraySizeError(file, source.size, d.length, ITEM_SIZE[dtype]);
    if (sizeError)
      problems.error(sizeError.code, sizeError.message, { ...sizeError.at, phase: Phase.bounds });
    state.arrays[d.name as MatrixArrayName] = new RawArray(d, dtype, file, source, slab);
  }
  if (problems.errors.length > errorsBefore) return false;
  const { DATA: data, ROWPTR: rowPtr, COLPTR: colPtr } = state.arrays as Record<MatrixArrayName, RawArray>;
  if (rowPtr.length < 1) {
    problems.error('CountMismatch', 'ROWPTR has 0 entries; it needs rows + 1 ≥ 1', {
      file: HEADER_FILE,
      offset: rowPtr.descriptor.fields.length.offset,
      phase: Phase.bounds,
    });
  }
  if (colPtr.length !== data.length) {
    problems.error('CountMismatch', `COLPTR has ${colPtr.length} entries but DATA has ${data.length}`, {
      file: HEADER_FILE,
      offset: colPtr.descriptor.fields.length.offset,
      phase: Phase.bounds,
    });
  }
  if (problems.errors.length > errorsBefore) return false;
  await problems.attempt(() => checkRowPtrEnds(rowPtr, data.length, options), { phase: Phase.reference });
  return problems.errors.length === errorsBefore;
}

export interface RuleBreak {
  code: ErrorCode;
  message: string;
  at: { file: string; offset: number };
}

/** C5: an array file holds exactly length × itemsize bytes; shorter is Truncated, longer CountMismatch. */
export function arraySizeError(
  file: string,
  size: number,
  length: number,
  itemSize: number,
): RuleBreak | undefined {
  const expected = length * itemSize;
  if (size < expected) {
    return {
      code: 'Truncated',
      message: `${file} is ${size} bytes; ${length} entries of ${itemSize} bytes need ${expected}`,
      at: { file, offset: size },
    };
  }
  if (size > expected) {
    return {
      code: 'CountMismatch',
      message: `${file} is ${size} bytes, more than ${length} entries of ${itemSize} bytes (${expected})`,
      at: { file, offset: expected },
    };
  }
  return undefined;
}

/** row_ptr[0] must be 0 (C5). */
export function rowPtrStartError(rowPtr: RawArray, first: number): FormatError | undefined {
  return first === 0 ? undefined : fail('InvalidValue', `row_ptr[0] is ${first}, must be 0`, 0, rowPtr.file);
}

/** Row i spans row_ptr[i] ≤ row_ptr[i+1] ≤ nnz (checked by every read of a row and by validate's scan). */
export function rowExtentError(
  rowPtr: RawArray,
  i: number,
  a: number,
  b: number,
  nnz: number,
): FormatError | undefined {
  const offset = (i + 1) * rowPtr.itemSize;
  if (b < a) return fail('InvalidValue', `row_ptr decreases at row ${i} (${a} → ${b})`, offset, rowPtr.file);
  if (b > nnz) return fail('OutOfBounds', `row_ptr[${i + 1}] = ${b} is past nnz ${nnz}`, offset, rowPtr.file);
  return undefined;
}

/** row_ptr ends at nnz (C5). */
export function rowPtrEndError(rowPtr: RawArray, last: number, nnz: number): FormatError | undefined {
  if (last === nnz) return undefined;
  const offset = (rowPtr.length - 1) * rowPtr.itemSize;
  return fail('CountMismatch', `row_ptr ends at ${last}, DATA has ${nnz} entries`, offset, rowPtr.file);
}

/** row_ptr starts at 0 and ends at nnz (C5): two small reads at open. */
export async function checkRowPtrEnds(rowPtr: RawArray, nnz: number, options?: ReadOptions): Promise<void> {
  const startError = rowPtrStartError(rowPtr, Number((await rowPtr.slice(0, 1, options))[0]));
  if (startError) throw startError;
  const lastIndex = rowPtr.length - 1;
  const last = Number((await rowPtr.slice(lastIndex, lastIndex + 1, options))[0]);
  const endError = rowPtrEndError(rowPtr, last, nnz);
  if (endError) throw endError;
}

/** var_features/ (or the older features/) and obs_features/, each loaded on its own. */
async function loadFeatureIndices(
  state: ArchiveParse,
  header: ScdlHeader,
  problems: ProblemList,
  options: ReadOptions,
): Promise<void> {
  const { directory, files } = state;
  const load = async (name: string) => {
    const descriptor = header.featureIndices.find((f) => f.name === name);
    if (!descriptor && !files.some((f) => f.startsWith(`${name}/`))) return undefined;
    const index = await problems.attempt(
      () => FeatureIndex.load(directory, name, descriptor, files, options),
      {
        phase: Phase.reference,
        scope: name,
      },
    );
    for (const w of index?.warnings ?? []) problems.warn('FeatureIndex', w, { file: `${name}/` });
    return index;
  };
  state.varIndex = await load('var_features');
  problems.checkpoint();
  const hasVar =
    header.featureIndices.some((f) => f.name === 'var_features') ||
    files.some((f) => f.startsWith('var_features/'));
  if (!hasVar && files.some((f) => f.startsWith('features/'))) {
    // Archives from before the var/obs split kept one feature index in features/.
    try {
      state.varIndex = await FeatureIndex.load(directory, 'features', undefined, files, options);
      problems.warn('FeatureIndex', 'features/ is an older layout; read as the var feature index', {
        file: 'features/',
      });
      for (const w of state.varIndex.warnings) problems.warn('FeatureIndex', w, { file: 'features/' });
    } catch (error) {
      if (!(isBinscopeError(error, 'FormatError') || isBinscopeError(error, 'SourceError'))) throw error;
      problems.warn('FeatureIndex', `features/ is unreadable: ${error.message}`, { file: 'features/' });
    }
  }
  state.obsIndex = await load('obs_features');
}

/** metadata.json's num_rows can be stale (C7: row_ptr wins): a warning, never an error. */
async function checkMetadataJson(
  state: ArchiveParse,
  problems: ProblemList,
  options: ReadOptions,
): Promise<void> {
  const rows = (state.arrays.ROWPTR?.length ?? 1) - 1;
  if (!state.files.includes('metadata.json')) {
    problems.warn('Metadata', 'metadata.json is missing', { file: 'metadata.json' });
    return;
  }
  const parsed = await readSmallJson(state.directory, state.files, 'metadata.json', options);
  if (parsed === undefined) {
    problems.warn('Metadata', 'metadata.json is not valid JSON', { file: 'metadata.json', offset: 0 });
    return;
  }
  const numRows = (parsed as { num_rows?: unknown } | null)?.num_rows;
  if (typeof numRows === 'number' && numRows !== rows) {
    problems.warn(
      'Metadata',
      `metadata.json says num_rows ${numRows}, row_ptr has ${rows} rows (C7: row_ptr wins)`,
      {
        file: 'metadata.json',
        offset: 0,
      },
    );
  }
}

/** A small JSON sidecar parsed, or undefined when absent, too large or not JSON. */
export async function readSmallJson(
  directory: DirectorySource,
  files: readonly string[],
  file: string,
  options?: ReadOptions,
): Promise<unknown> {
  if (!files.includes(file)) return undefined;
  const source: ByteSource = await directory.open(file);
  if (source.size > MAX_SIDECAR_JSON) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(await readExact(source, 0, source.size, options)));
  } catch {
    return undefined;
  }
}
