import type { ErrorCode } from '@binscope/core';
import { HINT_PRIMS, type Hint, PRIM_SIZE, type Prim } from './types.js';

/**
 * How many ghost axes (U5) each hint's element may have, [min, max]; absent = any.
 *
 * The spec forbids ghost axes under NONE and wants two for TRANSFORM, but the udf crate's
 * convenience API writes them otherwise and its files are valid (U15): `[T; N].as_data_ref()`
 * is a DIM_SCALAR NONE table with one ghost axis N, `[[T; M]]` a DIM_1D one with ghost axis M,
 * `[[T; M]; N]` a scalar with two, and `Transform2F32` / `Transform3F32` carry one ghost axis
 * of 6 / 12 (the matrix flattened) instead of 2×3 / 3×4. A ghost axis under NONE is an element
 * of that many values.
 */
export const HINT_GHOST_RANGE: Partial<Record<Hint, readonly [number, number]>> = {
  none: [0, 3],
  json: [0, 0],
  text: [1, 1],
  dataset: [1, 1],
  range: [1, 1],
  coord: [1, 1],
  rgb: [1, 1],
  transform: [1, 2],
};

/** Ghost axes a hint's element needs at least (0 when unconstrained). */
export function minGhosts(hint: Hint): number {
  return HINT_GHOST_RANGE[hint]?.[0] ?? 0;
}

/** Whether `ghosts` ghost axes are allowed for `hint` (always for unconstrained hints). */
export function ghostsAllowed(hint: Hint, ghosts: number): boolean {
  const range = HINT_GHOST_RANGE[hint];
  return !range || (ghosts >= range[0] && ghosts <= range[1]);
}

/** A table's name for messages, formatted only when a message is built (descriptors are hot in walks). */
export type Label = { toString(): string };

export interface ShapeProblem {
  code: ErrorCode;
  message: string;
  /** Offset of the descriptor field at fault, relative to the descriptor. */
  field: number;
}

const TYPE_INFO = 0x04;
const DATA_SIZE = 0x10;
const DATA_SHAPE = 0x14;

function axesText(n: number): string {
  return n === 1 ? 'axis' : 'axes';
}

/** The spec's per-hint rules on primitives and ghost axes, as U15 relaxes them. */
export function hintProblem(
  label: Label,
  prim: Prim,
  hint: Hint,
  dims: number,
  shape: readonly number[],
  ghostDims: number,
  dataSize: number,
): ShapeProblem | undefined {
  const allowed = HINT_PRIMS[hint];
  if (allowed && !allowed.includes(prim)) {
    return {
      code: 'InvalidValue',
      message: `${label}: a ${hint} table cannot hold ${prim} (allowed: ${allowed.join(', ')})`,
      field: TYPE_INFO,
    };
  }
  const range = HINT_GHOST_RANGE[hint];
  if (!range) return undefined;
  const [min, max] = range;
  // An empty table may leave its ghost axes zero (a list of no strings has no width).
  const empty = dataSize === 0 && ghostDims <= max;
  if ((ghostDims < min || ghostDims > max) && !empty) {
    const wanted = min === max ? `${min}` : `${min} to ${max}`;
    return {
      code: 'InvalidValue',
      message: `${label}: a ${hint} table needs ${wanted} ghost ${axesText(max)} beyond its ${dims} declared, shape [${shape.join(', ')}] has ${ghostDims}`,
      field: DATA_SHAPE,
    };
  }
  if (ghostDims === 0) return undefined;
  const ghost = shape[shape.length - 1];
  if ((hint === 'dataset' || hint === 'range') && ghost !== 2) {
    return {
      code: 'InvalidValue',
      message: `${label}: a ${hint} table's ghost axis must be 2, not ${ghost}`,
      field: DATA_SHAPE,
    };
  }
  if (hint === 'rgb' && ghost !== 3 && ghost !== 4) {
    return {
      code: 'InvalidValue',
      message: `${label}: an rgb table's ghost axis must be 3 or 4, not ${ghost}`,
      field: DATA_SHAPE,
    };
  }
  return undefined;
}

/**
 * data_size against the shape (U5) for an uncompressed table: element count × element size,
 * where the count is declared axes × ghost axes. The message names both parts, so a ghost
 * axis never reads as a lost element (compressed tables are checked after decoding, U12).
 */
export function dataSizeProblem(
  label: Label,
  prim: Prim,
  hint: Hint,
  dims: number,
  shape: readonly number[],
  elementCount: number,
  dataSize: number,
): ShapeProblem | undefined {
  if (prim === 'custom') return undefined;
  const size = PRIM_SIZE[prim];
  if (dataSize === elementCount * size) return undefined;
  return {
    code: 'CountMismatch',
    message: `${label}: data_size ${dataSize} != ${countText(prim, hint, dims, shape, elementCount)}`,
    field: DATA_SIZE,
  };
}

/** "6 elements × 4 bytes (declared axes [1] × ghost axes [6])" and the like. */
export function countText(
  prim: Prim,
  hint: Hint,
  dims: number,
  shape: readonly number[],
  elementCount: number,
): string {
  // Three u32 axes multiply past 2^53: the exact count, not the nearest double.
  const count = Number.isSafeInteger(elementCount) ? elementCount : shape.reduce((n, d) => n * BigInt(d), 1n);
  return `${count} elements × ${PRIM_SIZE[prim]} bytes (${shapeText(hint, dims, shape)})`;
}

/** "declared axes [1] × ghost axis [6]": where a table's element count comes from. */
export function shapeText(hint: Hint, dims: number, shape: readonly number[]): string {
  const declared = shape.slice(0, dims);
  const ghosts = shape.slice(dims);
  const declaredText = dims === 0 ? 'a scalar' : `declared axes [${declared.join(', ')}]`;
  let how: string;
  if (ghosts.length > 0) how = `${declaredText} × ghost ${axesText(ghosts.length)} [${ghosts.join(', ')}]`;
  else if (minGhosts(hint) > 0)
    how = `${declaredText}, no ghost axis: a ${hint} element without its axis holds nothing`;
  else how = declaredText;
  return how;
}
