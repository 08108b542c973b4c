import { FormatError } from '@binscope/core';

/** Errors in an .h5ad input (h5ad format), file before message. */
export function h5adError(
  code: 'InvalidValue' | 'CountMismatch' | 'OutOfBounds' | 'UnsupportedFeature',
  file: string | undefined,
  message: string,
) {
  return new FormatError(code, message, { file, format: 'h5ad' });
}

/** Errors in an SCDL archive being exported to `.h5ad` (scdl format). */
export function scdlError(
  code: 'InvalidValue' | 'CountMismatch' | 'OutOfBounds' | 'UnsupportedFeature',
  file: string | undefined,
  message: string,
) {
  return new FormatError(code, message, { file, format: 'scdl' });
}
