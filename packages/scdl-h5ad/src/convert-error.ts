import { FormatError } from '@binscope/core';

/** The converter's input errors (h5ad format), file before message. */
export function error(
  code: 'InvalidValue' | 'CountMismatch' | 'OutOfBounds' | 'UnsupportedFeature',
  file: string | undefined,
  message: string,
) {
  return new FormatError(code, message, { file, format: 'h5ad' });
}
