import { readExact } from '@binscope/core';
import type { HttpDirectory } from '@binscope/core/http';

/** A header.sch larger than this is no header the reader would accept either. */
const MAX_HEADER = 1 << 20;
const SIDE_FILES = ['metadata.json', 'version.json'];
const FEATURE_FILES = ['cumulative_sum_index.npy', 'labels.json', 'version.npy', 'dataframe_0.parquet'];

/**
 * An HTTP server need not list folders, so an SCDL archive under a base URL is known by
 * name: header.sch, the arrays and feature-index files it declares, and the format's fixed
 * side files. Tells the directory to expect them; a folder without a readable header gets
 * no names and the reader reports what is wrong.
 */
export async function expectScdlFiles(directory: HttpDirectory): Promise<void> {
  if (!(await directory.has('header.sch'))) return;
  const { arrayFile, parseHeader } = await import('@binscope/scdl');
  const source = await directory.open('header.sch');
  let names: string[];
  try {
    const header = parseHeader(await readExact(source, 0, Math.min(source.size, MAX_HEADER)));
    const features = header.featureIndices.length
      ? header.featureIndices.flatMap((f) => f.files)
      : ['var_features', 'obs_features'].flatMap((dir) => FEATURE_FILES.map((f) => `${dir}/${f}`));
    names = ['header.sch', ...SIDE_FILES, ...header.arrays.map((a) => arrayFile(a.name)), ...features];
  } catch {
    // Not a header we can read: the SCDL reader opens it again and names the problem.
    names = ['header.sch'];
  }
  directory.expect(names);
}
