import { type DirectorySource, isBinscopeError, type ReadOptions, readExact } from '@binscope/core';
import { arrayFile, FORMAT, HEADER_FILE, parseHeader } from './header.js';

/** A header.sch larger than this is no header the reader would accept either. */
const MAX_HEADER = 1 << 20;
/** Files beside the matrix at fixed names: the side files and the neighbor graph (C8). */
const SIDE_FILES = [
  'metadata.json',
  'version.json',
  'neighbor_indptr.npy',
  'neighbor_indices.npy',
  'neighbor_values.npy',
];
/** What a feature index folder holds when header.sch (an older one) does not list its files. */
const FEATURE_FILES = ['cumulative_sum_index.npy', 'labels.json', 'version.npy', 'dataframe_0.parquet'];

/**
 * The files of an archive known by name (`FormatInfo.expectedFiles`): header.sch, the arrays
 * and feature-index files it declares, and the fixed side files; a folder opened through a
 * server that does not list folders is then read like any other. No header.sch: no names.
 * A header that does not parse gives header.sch alone, and the reader then names what is
 * wrong with it.
 */
export async function scdlExpectedFiles(
  directory: DirectorySource,
  options?: ReadOptions,
): Promise<string[]> {
  if (!(await directory.has(HEADER_FILE))) return [];
  const source = await directory.open(HEADER_FILE);
  try {
    const bytes = await readExact(source, 0, Math.min(source.size, MAX_HEADER), {
      signal: options?.signal,
      format: FORMAT,
      what: HEADER_FILE,
    });
    const header = parseHeader(new Uint8Array(bytes));
    const features = header.featureIndices.length
      ? header.featureIndices.flatMap((f) => f.files)
      : ['var_features', 'obs_features'].flatMap((dir) => FEATURE_FILES.map((f) => `${dir}/${f}`));
    return [HEADER_FILE, ...SIDE_FILES, ...header.arrays.map((a) => arrayFile(a.name)), ...features];
  } catch (error) {
    if (!isBinscopeError(error)) throw error;
    return [HEADER_FILE];
  }
}
