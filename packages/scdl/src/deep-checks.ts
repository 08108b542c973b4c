import {
  type FormatError,
  Phase,
  type ProblemList,
  percentProgress,
  readExact,
  type ValidateOptions,
} from '@binscope/core';
import type { FeatureIndex } from './features.js';
import { openRequired } from './features.js';
import { arrayFile, HEADER_FILE, ITEM_SIZE, isNumericDType, type ScdlNumericDType } from './header.js';
import { type ArchiveParse, arraySizeError, MATRIX_ARRAYS, rowExtentError } from './parse.js';
import type { RawArray } from './raw-array.js';

/** Entries checked per step when scanning row_ptr / col_ptr (bounded memory). */
const SCAN_CHUNK = 1 << 20;

/** Every finding of a deep check ranks after what a strict open can find, so both agree on the first error. */
const DEEP = { phase: Phase.payload } as const;

function record(problems: ProblemList, error: FormatError): void {
  problems.error(error.code, error.detail, { offset: error.offset, file: error.file, ...DEEP });
}

/**
 * What only validate (and inspect) check, after the parse a strict open makes: every row of
 * row_ptr, the other arrays' sizes, the feature indices against the matrix, column indices
 * within their block (C6) and the neighbor files (C8).
 */
export async function deepChecks(
  state: ArchiveParse,
  problems: ProblemList,
  options: ValidateOptions,
): Promise<void> {
  const { DATA: data, ROWPTR: rowPtr, COLPTR: colPtr } = state.arrays;
  if (!state.matrixValid || !data || !rowPtr || !colPtr) return;
  await checkOtherArrays(state, problems, options);
  const rows = rowPtr.length - 1;
  // The scans of row_ptr and of the column indices are what takes time on a big archive.
  const progress = percentProgress(options.onProgress, rowPtr.length + data.length);
  if (!(await scanRowPtr(rowPtr, data.length, problems, options, progress))) return;
  for (const index of [state.varIndex, state.obsIndex])
    if (index) await checkIndexAgainstMatrix(state, index, rows, problems);
  if (problems.errors.length) return;
  if (state.varIndex)
    await checkColumnIndices(colPtr, rowPtr, state.varIndex, problems, options, (entries) =>
      progress(rowPtr.length + entries),
    );
  await checkNeighborFiles(state, rows, problems, options);
  progress(rowPtr.length + data.length);
}

/** Arrays besides the matrix: a missing file is a warning, a wrong size an error (C5). */
async function checkOtherArrays(
  state: ArchiveParse,
  problems: ProblemList,
  options: ValidateOptions,
): Promise<void> {
  for (const d of state.header?.arrays ?? []) {
    if ((MATRIX_ARRAYS as readonly string[]).includes(d.name) || !isNumericDType(d.dtype)) continue;
    const file = arrayFile(d.name);
    if (!(await state.directory.has(file))) {
      problems.warn('Array', `header lists ${d.name} but ${file} is missing`, {
        file: HEADER_FILE,
        offset: d.span.offset,
      });
      continue;
    }
    const source = await problems.attempt(() => openRequired(state.directory, file, options), DEEP);
    const broken =
      source && arraySizeError(file, source.size, d.length, ITEM_SIZE[d.dtype as ScdlNumericDType]);
    if (broken) problems.error(broken.code, broken.message, { ...broken.at, ...DEEP });
  }
}

/** Every row's extent, in chunks (its two ends were checked at open). */
async function scanRowPtr(
  rowPtr: RawArray,
  nnz: number,
  problems: ProblemList,
  options: ValidateOptions,
  progress: (entries: number) => void,
): Promise<boolean> {
  let prev = 0;
  for (let start = 0; start < rowPtr.length; start += SCAN_CHUNK) {
    options.signal?.throwIfAborted();
    const chunk = await rowPtr.slice(start, Math.min(rowPtr.length, start + SCAN_CHUNK), options);
    for (let k = start === 0 ? 1 : 0; k < chunk.length; k++) {
      const v = Number(chunk[k]);
      const broken = rowExtentError(rowPtr, start + k - 1, prev, v, nnz);
      if (broken) {
        record(problems, broken);
        return false;
      }
      prev = v;
    }
    progress(start + chunk.length);
  }
  return true;
}

async function checkIndexAgainstMatrix(
  state: ArchiveParse,
  index: FeatureIndex,
  rows: number,
  problems: ProblemList,
): Promise<void> {
  const name = index.name;
  const descriptor = state.header?.featureIndices.find((f) => f.name === name);
  if (index.cumulativeSumIndex.length > 0 && index.rows !== rows) {
    problems.error('CountMismatch', `${name} covers ${index.rows} rows, the matrix has ${rows}`, {
      file: `${name}/cumulative_sum_index.npy`,
      ...DEEP,
    });
  }
  if (descriptor && descriptor.length !== rows && index.cumulativeSumIndex.length > 0) {
    problems.error(
      'CountMismatch',
      `header.sch says ${name} has ${descriptor.length} rows, the matrix has ${rows}`,
      {
        file: HEADER_FILE,
        offset: descriptor.fields.length.offset,
        ...DEEP,
      },
    );
  }
  if (index.labels.length !== index.blockCount) {
    problems.warn(
      'FeatureIndex',
      `${name} has ${index.labels.length} labels for ${index.blockCount} blocks`,
      {
        file: `${name}/labels.json`,
      },
    );
  }
  for (let b = 0; b < index.blockCount; b++) {
    const tableRows = await problems.attempt(() => index.tableRows(b), DEEP);
    if (tableRows === undefined) continue;
    const info = index.block(b);
    if (
      name === 'obs_features' &&
      (await index.columns(b)).length > 0 &&
      tableRows !== info.end - info.start
    ) {
      problems.error(
        'CountMismatch',
        `${info.file} has ${tableRows} rows, its block covers ${info.end - info.start}`,
        {
          file: info.file,
          offset: 0,
          ...DEEP,
        },
      );
    }
  }
}

/** Every column index is below its own block's feature count (ragged archives, C6). */
async function checkColumnIndices(
  colPtr: RawArray,
  rowPtr: RawArray,
  varIndex: FeatureIndex,
  problems: ProblemList,
  options: ValidateOptions,
  progress: (entries: number) => void,
): Promise<void> {
  const rowPtrAt = async (i: number) => Number((await rowPtr.slice(i, i + 1, options))[0]);
  for (let b = 0; b < varIndex.blockCount; b++) {
    const info = varIndex.block(b);
    const width = await problems.attempt(() => varIndex.tableRows(b), DEEP);
    if (width === undefined) return;
    if (info.end <= info.start) continue;
    const from = await rowPtrAt(info.start);
    const to = await rowPtrAt(info.end);
    for (let start = from; start < to; start += SCAN_CHUNK) {
      options.signal?.throwIfAborted();
      const end = Math.min(to, start + SCAN_CHUNK);
      const chunk = await colPtr.slice(start, end, options);
      for (let k = 0; k < chunk.length; k++) {
        const c = Number(chunk[k]);
        if (c >= width) {
          problems.error(
            'OutOfBounds',
            `col_ptr[${start + k}] = ${c}, but block ${b} (${info.label ?? 'unlabelled'}) has ${width} features`,
            { file: colPtr.file, offset: (start + k) * colPtr.itemSize, ...DEEP },
          );
          return;
        }
      }
      progress(end);
    }
  }
}

const NEIGHBOR_FILES = ['neighbor_indptr.npy', 'neighbor_indices.npy', 'neighbor_values.npy'] as const;

/** C8: all three neighbor files or none, indptr with rows + 1 entries ending at the entry count. */
async function checkNeighborFiles(
  state: ArchiveParse,
  rows: number,
  problems: ProblemList,
  options: ValidateOptions,
): Promise<void> {
  const { directory, files } = state;
  if (!NEIGHBOR_FILES.some((f) => files.includes(f))) return;
  const missing = NEIGHBOR_FILES.find((f) => !files.includes(f));
  if (missing) {
    problems.error('Truncated', `missing file ${missing} (other neighbor files are present)`, {
      file: missing,
      offset: 0,
      ...DEEP,
    });
    return;
  }
  const [ptr, idx, val] = await Promise.all(NEIGHBOR_FILES.map((f) => directory.open(f)));
  if (ptr.size !== (rows + 1) * 8) {
    problems.error(
      ptr.size < (rows + 1) * 8 ? 'Truncated' : 'CountMismatch',
      `neighbor_indptr.npy is ${ptr.size} bytes; rows + 1 = ${rows + 1} u64 entries need ${(rows + 1) * 8}`,
      { file: NEIGHBOR_FILES[0], offset: 0, ...DEEP },
    );
    return;
  }
  if (idx.size % 4 || val.size % 4 || idx.size !== val.size) {
    problems.error(
      'CountMismatch',
      `neighbor_indices.npy (${idx.size} bytes) and neighbor_values.npy (${val.size} bytes) must hold the same number of 4-byte entries`,
      { file: NEIGHBOR_FILES[1], offset: 0, ...DEEP },
    );
    return;
  }
  const view = new DataView(new Uint8Array(await readExact(ptr, rows * 8, 8, options)).buffer);
  const last = view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
  if (last !== idx.size / 4) {
    problems.error(
      'CountMismatch',
      `neighbor_indptr ends at ${last}, neighbor_indices has ${idx.size / 4} entries`,
      {
        file: NEIGHBOR_FILES[0],
        offset: rows * 8,
        ...DEEP,
      },
    );
  }
}
