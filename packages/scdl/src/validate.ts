import {
  type DirectorySource,
  FormatError,
  isSourceError,
  percentProgress,
  ProblemList,
  readExact,
  type Target,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { FeatureIndex, openRequired } from './features.js';
import {
  arrayFile,
  FORMAT,
  HEADER_FILE,
  ITEM_SIZE,
  isNumericDType,
  isUnsignedDType,
  parseHeader,
  type ScdlHeader,
  type ScdlNumericDType,
} from './header.js';
import { checkArraySize, type RawArray, openMatrixArrays } from './read.js';

/** Entries checked per step when scanning row_ptr / col_ptr (bounded memory). */
const SCAN_CHUNK = 1 << 20;

/** The archive folder of a target: a directory, or the folder around a header.sch given as a file. */
export function archiveDirectory(target: Target): DirectorySource {
  if (target.kind === 'directory') return target.directory;
  if (target.siblings && /(^|\/)header\.sch$/.test(target.source.name)) return target.siblings;
  throw new FormatError(
    'InvalidValue',
    `${target.source.name}: an SCDL archive is a folder (holding header.sch), not a single file`,
    {
      file: target.source.name,
      format: FORMAT,
    },
  );
}

/**
 * Checks an archive in the natural order (A2): header (C1–C3) → array files' sizes (C5)
 * → row_ptr (starts at 0, non-decreasing, ends at nnz) → feature indices (C6) → column
 * indices within their block's features. Never throws for bad input.
 */
export async function validateScdl(target: Target, options: ValidateOptions = {}): Promise<ValidationReport> {
  const problems = new ProblemList(FORMAT);
  try {
    await run(target, problems, options);
  } catch (error) {
    if (isSourceError(error)) problems.error('Truncated', error.message, { file: error.path });
    else problems.capture(error);
  }
  return problems.report();
}

async function run(target: Target, problems: ProblemList, options: ValidateOptions): Promise<void> {
  const directory = archiveDirectory(target);
  const headerSource = await openRequired(directory, HEADER_FILE, options);
  if (headerSource.size > 16 * 1024 * 1024) {
    problems.error('InvalidValue', `header.sch is ${headerSource.size} bytes, more than any header needs`, {
      file: HEADER_FILE,
      offset: 0,
    });
    return;
  }
  const header = parseHeader(
    new Uint8Array(
      await readExact(headerSource, 0, headerSource.size, { format: FORMAT, what: HEADER_FILE }),
    ),
  );
  for (const w of header.warnings) problems.warn('Header', w, { file: HEADER_FILE });

  if (!(await checkArrayFiles(directory, header, problems, options))) return;
  const { data, rowPtr, colPtr } = await openMatrixArrays(directory, header, options);
  const rows = rowPtr.length - 1;
  const nnz = data.length;
  // The scans of row_ptr and of the column indices are what takes time on a big archive.
  const progress = percentProgress(options.onProgress, rowPtr.length + nnz);
  const rowPtrValues = await checkRowPtr(rowPtr, nnz, problems, options, progress);
  if (!rowPtrValues) return;

  const files = await directory.list();
  const indices: Array<FeatureIndex | undefined> = [];
  for (const name of ['var_features', 'obs_features'] as const) {
    const descriptor = header.featureIndices.find((f) => f.name === name);
    if (!descriptor && !files.some((f) => f.startsWith(`${name}/`))) {
      indices.push(undefined);
      continue;
    }
    const index = await problems.attempt(() =>
      FeatureIndex.load(directory, name, descriptor, files, options),
    );
    indices.push(index);
    if (!index) continue;
    for (const w of index.warnings) problems.warn('FeatureIndex', w, { file: `${name}/` });
    if (index.cumulativeSumIndex.length > 0 && index.rows !== rows) {
      problems.error('CountMismatch', `${name} covers ${index.rows} rows, the matrix has ${rows}`, {
        file: `${name}/cumulative_sum_index.npy`,
      });
    }
    if (descriptor && descriptor.length !== rows && index.cumulativeSumIndex.length > 0) {
      problems.error(
        'CountMismatch',
        `header.sch says ${name} has ${descriptor.length} rows, the matrix has ${rows}`,
        {
          file: HEADER_FILE,
          offset: descriptor.fields.length.offset,
        },
      );
    }
    if (index.labels.length !== index.blockCount) {
      problems.warn(
        'FeatureIndex',
        `${name} has ${index.labels.length} labels for ${index.blockCount} blocks`,
        { file: `${name}/labels.json` },
      );
    }
    for (let b = 0; b < index.blockCount; b++) {
      const tableRows = await problems.attempt(() => index.tableRows(b));
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
          { file: info.file, offset: 0 },
        );
      }
    }
  }
  if (problems.errors.length) return;

  const varIndex = indices[0];
  if (varIndex)
    await checkColumnIndices(colPtr, rowPtrValues, varIndex, problems, options, (entries) =>
      progress(rowPtr.length + entries),
    );

  await checkSidecars(directory, files, rows, problems, options);
  progress(rowPtr.length + nnz);
}

async function checkArrayFiles(
  directory: DirectorySource,
  header: ScdlHeader,
  problems: ProblemList,
  options: ValidateOptions,
): Promise<boolean> {
  for (const name of ['DATA', 'ROWPTR', 'COLPTR']) {
    const d = header.arrays.find((a) => a.name === name);
    if (!d) {
      problems.error('InvalidValue', `header.sch has no ${name} array`, { file: HEADER_FILE, offset: 16 });
      continue;
    }
    if (!isNumericDType(d.dtype)) {
      problems.error(
        'UnsupportedFeature',
        `${name} has dtype ${d.dtype}; only numeric arrays are supported`,
        { file: HEADER_FILE, offset: d.fields.dtype.offset },
      );
    } else if (name !== 'DATA' && !isUnsignedDType(d.dtype)) {
      problems.error('InvalidValue', `${name} has dtype ${d.dtype}; index arrays are unsigned integers`, {
        file: HEADER_FILE,
        offset: d.fields.dtype.offset,
      });
    }
  }
  if (problems.errors.length) return false;
  for (const d of header.arrays) {
    const file = arrayFile(d.name);
    if (!isNumericDType(d.dtype)) continue;
    const known = ['DATA', 'ROWPTR', 'COLPTR'].includes(d.name);
    if (!known && !(await directory.has(file))) {
      problems.warn('Array', `header lists ${d.name} but ${file} is missing`, {
        file: HEADER_FILE,
        offset: d.span.offset,
      });
      continue;
    }
    await problems.attempt(async () => {
      const source = await openRequired(directory, file, options);
      checkArraySize(file, source.size, d.length, ITEM_SIZE[d.dtype as ScdlNumericDType]);
    });
  }
  if (problems.errors.length) return false;
  const data = header.arrays.find((a) => a.name === 'DATA')!;
  const rowPtr = header.arrays.find((a) => a.name === 'ROWPTR')!;
  const colPtr = header.arrays.find((a) => a.name === 'COLPTR')!;
  if (rowPtr.length < 1)
    problems.error('CountMismatch', 'ROWPTR has 0 entries; it needs rows + 1 ≥ 1', {
      file: HEADER_FILE,
      offset: rowPtr.fields.length.offset,
    });
  if (colPtr.length !== data.length) {
    problems.error('CountMismatch', `COLPTR has ${colPtr.length} entries but DATA has ${data.length}`, {
      file: HEADER_FILE,
      offset: colPtr.fields.length.offset,
    });
  }
  return problems.errors.length === 0;
}

/** Scans row_ptr in chunks; returns it (as float64) when it is valid and small enough to keep, else a sparse accessor. */
async function checkRowPtr(
  rowPtr: RawArray,
  nnz: number,
  problems: ProblemList,
  options: ValidateOptions,
  progress: (entries: number) => void,
): Promise<RowPtrLookup | undefined> {
  let prev = 0;
  for (let start = 0; start < rowPtr.length; start += SCAN_CHUNK) {
    options.signal?.throwIfAborted();
    const chunk = await rowPtr.slice(start, Math.min(rowPtr.length, start + SCAN_CHUNK), options);
    for (let k = 0; k < chunk.length; k++) {
      const v = Number(chunk[k]);
      const at = start + k;
      if (at === 0) {
        if (v !== 0) {
          problems.error('InvalidValue', `row_ptr[0] is ${v}, must be 0`, { file: rowPtr.file, offset: 0 });
          return undefined;
        }
      } else if (v < prev) {
        problems.error('InvalidValue', `row_ptr decreases at entry ${at} (${prev} → ${v})`, {
          file: rowPtr.file,
          offset: at * rowPtr.itemSize,
        });
        return undefined;
      } else if (v > nnz) {
        problems.error('OutOfBounds', `row_ptr[${at}] = ${v} is past nnz ${nnz}`, {
          file: rowPtr.file,
          offset: at * rowPtr.itemSize,
        });
        return undefined;
      }
      prev = v;
    }
    progress(start + chunk.length);
  }
  if (prev !== nnz) {
    problems.error('CountMismatch', `row_ptr ends at ${prev}, DATA has ${nnz} entries`, {
      file: rowPtr.file,
      offset: (rowPtr.length - 1) * rowPtr.itemSize,
    });
    return undefined;
  }
  return async (i: number) => Number((await rowPtr.slice(i, i + 1, options))[0]);
}

type RowPtrLookup = (i: number) => Promise<number>;

/** Every column index is below its own block's feature count (ragged archives, C6). */
async function checkColumnIndices(
  colPtr: RawArray,
  rowPtrAt: RowPtrLookup,
  varIndex: FeatureIndex,
  problems: ProblemList,
  options: ValidateOptions,
  progress: (entries: number) => void,
): Promise<void> {
  for (let b = 0; b < varIndex.blockCount; b++) {
    const info = varIndex.block(b);
    const width = await problems.attempt(() => varIndex.tableRows(b));
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
            {
              file: colPtr.file,
              offset: (start + k) * colPtr.itemSize,
            },
          );
          return;
        }
      }
      progress(end);
    }
  }
}

async function checkSidecars(
  directory: DirectorySource,
  files: readonly string[],
  rows: number,
  problems: ProblemList,
  options: ValidateOptions,
): Promise<void> {
  if (files.includes('metadata.json')) {
    const source = await directory.open('metadata.json');
    const text =
      source.size <= 1024 * 1024
        ? new TextDecoder().decode(await readExact(source, 0, source.size, options))
        : '';
    let numRows: unknown;
    try {
      numRows = (JSON.parse(text) as { num_rows?: unknown }).num_rows;
    } catch {
      problems.warn('Metadata', 'metadata.json is not valid JSON', { file: 'metadata.json', offset: 0 });
    }
    if (typeof numRows === 'number' && numRows !== rows) {
      problems.warn(
        'Metadata',
        `metadata.json says num_rows ${numRows}, row_ptr has ${rows} rows (row_ptr wins, C7)`,
        { file: 'metadata.json', offset: 0 },
      );
    }
  } else problems.warn('Metadata', 'metadata.json is missing', { file: 'metadata.json' });

  const neighborFiles = ['neighbor_indptr.npy', 'neighbor_indices.npy', 'neighbor_values.npy'];
  const present = neighborFiles.filter((f) => files.includes(f));
  if (present.length === 0) return;
  for (const f of neighborFiles) {
    if (!files.includes(f)) {
      problems.error('Truncated', `missing file ${f} (other neighbor files are present)`, {
        file: f,
        offset: 0,
      });
      return;
    }
  }
  const ptr = await directory.open(neighborFiles[0]);
  const idx = await directory.open(neighborFiles[1]);
  const val = await directory.open(neighborFiles[2]);
  if (ptr.size !== (rows + 1) * 8) {
    const code = ptr.size < (rows + 1) * 8 ? 'Truncated' : 'CountMismatch';
    problems.error(
      code,
      `neighbor_indptr.npy is ${ptr.size} bytes; rows + 1 = ${rows + 1} u64 entries need ${(rows + 1) * 8}`,
      { file: neighborFiles[0], offset: 0 },
    );
    return;
  }
  if (idx.size % 4 || val.size % 4 || idx.size !== val.size) {
    problems.error(
      'CountMismatch',
      `neighbor_indices.npy (${idx.size} bytes) and neighbor_values.npy (${val.size} bytes) must hold the same number of 4-byte entries`,
      {
        file: neighborFiles[1],
        offset: 0,
      },
    );
    return;
  }
  const view = new DataView(new Uint8Array(await readExact(ptr, rows * 8, 8, options)).buffer);
  const last = view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
  if (last !== idx.size / 4) {
    problems.error(
      'CountMismatch',
      `neighbor_indptr ends at ${last}, neighbor_indices has ${idx.size / 4} entries`,
      { file: neighborFiles[0], offset: rows * 8 },
    );
  }
}
