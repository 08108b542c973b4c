import type { FormatInfo } from '@binscope/core';

/** `SCBFv1\0\0`: the 8-byte magic of S1. */
export const SCBF_MAGIC = 'SCBFv1\0\0';

/**
 * SCBF as data, for detection without the parser. The short `SCBF` signature also claims
 * files whose version or case is wrong, so `validate` can name the defect instead of
 * detection answering "unknown".
 */
export const scbfFormat: FormatInfo = {
  specificationVersion: 'v1',
  id: 'scbf',
  title: 'SCBF (Simple Columnar Binary Format)',
  kind: 'file',
  extensions: ['scbf'],
  mimeTypes: ['application/x-scbf'],
  magic: [
    { offset: 0, bytes: SCBF_MAGIC },
    { offset: 0, bytes: 'SCBF' },
  ],
};
