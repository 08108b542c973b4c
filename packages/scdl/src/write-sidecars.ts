import type { DirectorySink } from '@binscope/core';
import { featureTableParquet } from './feature-parquet.js';
import { featureTableFile } from './features.js';
import { blockLength, checkIndices, encodeData, encodeUnsigned, toNumber, writerError } from './encode.js';
import { ARRAY_FILES, PACKAGE_VERSION } from './header.js';
import { int64Npy, unicodeScalarNpy } from './npy.js';
import type { FeatureBlock, NeighborGraph } from './write-types.js';

/** A Python-json-compatible dump of a list of strings (ensure_ascii, ", " separators), as labels.json. */
export function pythonJsonStrings(values: readonly string[]): string {
  const items = values.map((s) =>
    JSON.stringify(s).replace(
      /[\u007f-\uffff]/g,
      (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
    ),
  );
  return `[${items.join(', ')}]`;
}

export async function writeFeatureIndex(
  sink: DirectorySink,
  dir: string,
  blocks: readonly FeatureBlock[],
  rows: number,
  isObs: boolean,
): Promise<string[]> {
  const cumulative: number[] = [-1];
  let covered = 0;
  for (const block of blocks) {
    if (!(Number.isSafeInteger(block.rows) && block.rows >= 0))
      throw writerError('InvalidValue', `${dir} block "${block.label}": rows ${block.rows} is not a count`);
    covered += block.rows;
    cumulative.push(covered);
    const length = blockLength(block);
    if (isObs && block.columns.length > 0 && length !== block.rows) {
      throw writerError(
        'CountMismatch',
        `${dir} block "${block.label}" covers ${block.rows} rows but its table has ${length}`,
      );
    }
  }
  if (covered !== rows)
    throw writerError('CountMismatch', `${dir} blocks cover ${covered} rows but the matrix has ${rows}`);
  const files = [`${dir}/cumulative_sum_index.npy`, `${dir}/labels.json`, `${dir}/version.npy`];
  await sink.write(files[0], int64Npy(cumulative));
  await sink.write(files[1], new TextEncoder().encode(pythonJsonStrings(blocks.map((b) => b.label))));
  await sink.write(files[2], unicodeScalarNpy(PACKAGE_VERSION));
  for (let i = 0; i < blocks.length; i++) {
    const path = featureTableFile(dir, i, blocks.length);
    await sink.write(path, featureTableParquet(blocks[i]));
    files.push(path);
  }
  return files;
}

export async function writeNeighbors(
  sink: DirectorySink,
  graph: NeighborGraph,
  rows: number,
): Promise<string[]> {
  if (graph.indptr.length !== rows + 1) {
    throw writerError(
      'CountMismatch',
      `neighbor indptr has ${graph.indptr.length} entries, expected rows + 1 = ${rows + 1}`,
    );
  }
  const nnz = toNumber(graph.indptr[graph.indptr.length - 1]) - toNumber(graph.indptr[0]);
  if (graph.indices.length !== nnz || graph.values.length !== nnz) {
    throw writerError(
      'CountMismatch',
      `neighbor indptr says ${nnz} entries but indices has ${graph.indices.length} and values ${graph.values.length}`,
    );
  }
  checkIndices(graph.indices, rows, 0);
  const base = toNumber(graph.indptr[0]);
  const indptr = Float64Array.from(graph.indptr as ArrayLike<number>, (v) => toNumber(v) - base);
  await sink.write(ARRAY_FILES.NEIGHBOR_INDICES_PTR, encodeUnsigned(indptr, 'uint64'));
  await sink.write(ARRAY_FILES.NEIGHBOR_INDICES, encodeUnsigned(graph.indices, 'uint32'));
  await sink.write(ARRAY_FILES.NEIGHBOR_VALUES, encodeData(graph.values, 'float32'));
  return [ARRAY_FILES.NEIGHBOR_INDICES_PTR, ARRAY_FILES.NEIGHBOR_INDICES, ARRAY_FILES.NEIGHBOR_VALUES];
}
