import type { NeighborGraph } from '@binscope/scdl';
import type { AnnDataFile, SparseMatrix } from './anndata.js';
import { castElements } from './cast.js';
import { h5adError } from './h5ad-error.js';

export type GraphPart = { rows: number; indptr: Float64Array; indices: Float64Array; values: Float32Array };

/**
 * C13: one input's `obsp[key]`. A missing key skips the neighbor files with a warning, as
 * upstream does; a dense matrix is an error, as upstream raises.
 */
export function readNeighborPart(
  file: AnnDataFile,
  label: string,
  rows: number,
  key: string,
  warn: (m: string) => void,
): GraphPart | undefined {
  const graph = file.obsp(key);
  if (!graph) {
    warn(`${label}: neighbor key '${key}' not found in obsp; neighbor files skipped`);
    return undefined;
  }
  if (graph.kind !== 'sparse')
    throw h5adError('InvalidValue', file.name, `${graph.path}: neighbor matrix is not a sparse matrix`);
  if (graph.rows !== rows || graph.cols !== rows) {
    throw h5adError(
      'CountMismatch',
      file.name,
      `${graph.path}: ${graph.rows}×${graph.cols}, expected ${rows}×${rows}`,
    );
  }
  return { rows, ...readGraph(file, graph) };
}

/** Several inputs' graphs as one over the concatenated rows (indices shifted by each input's first row). */
export function joinGraphs(parts: GraphPart[]): NeighborGraph {
  if (parts.length === 1)
    return { indptr: parts[0].indptr, indices: parts[0].indices, values: parts[0].values };
  const total = parts.reduce((n, p) => n + p.indices.length, 0);
  const rows = parts.reduce((n, p) => n + p.rows, 0);
  const indptr = new Float64Array(rows + 1);
  const indices = new Float64Array(total);
  const values = new Float32Array(total);
  let rowBase = 0;
  let nnzBase = 0;
  for (const part of parts) {
    for (let i = 1; i <= part.rows; i++) indptr[rowBase + i] = nnzBase + part.indptr[i];
    for (let i = 0; i < part.indices.length; i++) indices[nnzBase + i] = rowBase + part.indices[i];
    values.set(part.values, nnzBase);
    rowBase += part.rows;
    nnzBase += part.indices.length;
  }
  return { indptr, indices, values };
}

export function readGraph(
  file: AnnDataFile,
  m: SparseMatrix,
): { indptr: Float64Array; indices: Float64Array; values: Float32Array } {
  const ptr = file.integers(m.indptr, m.indptrType, 0, (m.layout === 'csr' ? m.rows : m.cols) + 1);
  const idx = file.integers(m.indices, m.indicesType, 0, m.nnz);
  const values = new Float32Array(castElements(file.raw(m.data, 0, m.nnz), m.dtype, 'f32').buffer);
  for (let i = 1; i < ptr.length; i++) {
    if (!(ptr[i] >= ptr[i - 1]))
      throw h5adError('InvalidValue', file.name, `${m.path}/indptr decreases at ${i}`);
  }
  for (let i = 0; i < idx.length; i++) {
    if (!(idx[i] >= 0 && idx[i] < m.rows))
      throw h5adError('OutOfBounds', file.name, `${m.path}/indices[${i}] = ${idx[i]}: no such cell`);
  }
  if (m.layout === 'csr') return { indptr: ptr, indices: idx, values };
  // CSC graph (rare): transpose in memory, rows ascending per column as scipy's tocsr.
  const counts = new Float64Array(m.rows + 1);
  for (let i = 0; i < idx.length; i++) counts[idx[i] + 1]++;
  for (let r = 0; r < m.rows; r++) counts[r + 1] += counts[r];
  const fill = counts.slice(0, m.rows);
  const indices = new Float64Array(idx.length);
  const out = new Float32Array(idx.length);
  for (let c = 0; c < m.cols; c++) {
    for (let p = ptr[c]; p < ptr[c + 1]; p++) {
      const at = fill[idx[p]]++;
      indices[at] = c;
      out[at] = values[p];
    }
  }
  return { indptr: counts, indices, values: out };
}
