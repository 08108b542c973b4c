import { DETECTION_SCORE, type FormatInfo } from '@binscope/core';

/**
 * UDF's detection data. "UDF" is the family signature (later revisions bump the fourth byte,
 * which the reader reports as UnsupportedVersion), so a file starting "UDF" + digit is UDF.
 */
export const udfFormat: FormatInfo = {
  specificationVersion: 2,
  id: 'udf',
  title: 'UDF (Untitled Data Format)',
  kind: 'file',
  extensions: ['udf'],
  mimeTypes: ['application/x-udf'],
  magic: [{ offset: 0, bytes: 'UDF0' }],
  async detect(target, head) {
    if (target.kind !== 'file') return 0;
    return head.length >= 4 &&
      head[0] === 0x55 &&
      head[1] === 0x44 &&
      head[2] === 0x46 &&
      head[3] >= 0x30 &&
      head[3] <= 0x39
      ? DETECTION_SCORE.partialMagic
      : 0;
  },
};
