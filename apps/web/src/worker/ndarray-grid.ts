import type { NdArrayValue } from '@binscope/core';
import type { NdGridView } from '../protocol';

/** Cells drawn along each side at most (a record's detail; a page of records asks for fewer). */
export const GRID_MAX = 512;

/**
 * A 2-D array's cells for a heatmap: min and max over every finite element, and the elements
 * of every `rowStep`-th row and `colStep`-th column (row-major), so at most `side`² cells
 * cross to the page whatever the array's size. Undefined for any other shape.
 */
export function ndGrid(array: NdArrayValue, side = GRID_MAX): NdGridView | undefined {
  if (array.shape.length !== 2) return undefined;
  const [rows, cols] = array.shape;
  const data = array.data;
  if (rows <= 0 || cols <= 0 || data.length !== rows * cols) return undefined;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < data.length; i++) {
    const v = Number(data[i]);
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const rowStep = Math.ceil(rows / side);
  const colStep = Math.ceil(cols / side);
  const shownRows = Math.ceil(rows / rowStep);
  const shownCols = Math.ceil(cols / colStep);
  const cells = new Float64Array(shownRows * shownCols);
  for (let r = 0; r < shownRows; r++)
    for (let c = 0; c < shownCols; c++)
      cells[r * shownCols + c] = Number(data[r * rowStep * cols + c * colStep]);
  return { rows, cols, rowStep, colStep, shownRows, shownCols, cells, min, max };
}
